//! A service's builtin rules: the catalogue of `builtin:<name>` functions it ships, and the
//! output contract of each of its hooks.

use serde::Serialize;
use serde_json::Value;

/// One service's builtin rules and hook contracts.
pub trait Builtins: Send + Sync + 'static {
    /// The service's hooks (an enum).
    type Hook: Copy + Send + Sync + 'static;
    /// What a hook receives; borrowed, so that an in-process rule reads a million votes without
    /// a copy and a remote hook gets them serialized once.
    type Input<'a>: Serialize + Sync;

    /// The hook's name in logs.
    fn hook_name(&self, hook: Self::Hook) -> &'static str;

    /// Whether `name` is a builtin this service can run for `hook`. The `Err` says why not
    /// (unknown name, or a rule for another hook), naming the known ones.
    fn check(&self, hook: Self::Hook, name: &str) -> Result<(), String>;

    /// Runs the builtin `name` for `hook` with the spec's `parameters`.
    fn run(&self, hook: Self::Hook, name: &str, parameters: &Value, input: &Self::Input<'_>) -> Result<Value, String>;

    /// The hook's output contract beyond "a JSON object" (voting's PQT: holds `qualified`;
    /// bidding's: holds `accepted`). The `Err` says what is missing.
    fn check_output(&self, _hook: Self::Hook, _output: &Value) -> Result<(), String> {
        Ok(())
    }
}
