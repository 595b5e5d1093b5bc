//! One hook runner for every service. A hook is a function a service calls at a point of its
//! flow (voting: invitation, PQT, choice evaluation, tie-breaker, post-award; bidding: PQT,
//! evaluator; the exchange: selector, acceptance). Where its logic lives is a
//! [`FunctionSpec`](agora_schema::FunctionSpec) (a spec object, or a function id read by
//! [`FunctionSpec::from_id`](agora_schema::FunctionSpec::from_id)):
//!
//! - `builtin`: a rule shipped with the service, run in process by the service's [`Builtins`];
//! - every other mode (`http`, `function`, `dsl`, `lambda`) runs through the [`Remote`] port
//!   (`agora-hooks-remote` holds the real one), under its time limit.
//!
//! [`Hooks`] joins the two: it checks a spec when it is stored (a mode this deployment cannot
//! run is refused then), runs it, checks the output (a JSON object, and what the service's
//! contract for that hook requires), and logs every failure once with the hook, the mode and
//! the target (in the calling flow's span, which names the task or job). Every call is counted
//! by mode and outcome, with its duration (`agora_telemetry::names::HOOK_CALLS`,
//! `HOOK_CALL_SECONDS`).

mod builtins;
mod error;
mod remote;
mod runner;

pub use builtins::Builtins;
pub use error::HookError;
pub use remote::{Call, NoRemote, Remote};
pub use runner::Hooks;

/// Cuts long text for error messages and logs (300 bytes, on a character boundary).
pub fn truncate(s: &str) -> String {
    agora_support::truncate(s, 300)
}
