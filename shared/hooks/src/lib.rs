//! The hook runner: one [`HookRunner`] that runs a function spec in whatever mode it names.
//! Modes here: `builtin` (the rules of `agora-social-choice`, in process) and `http` (a POST of
//! the hook input). The registry, DSL and Lambda modes are refused at task creation with a
//! message that says so, until they are built.

mod http;

use agora_core::{HookError, HookRunner};
use agora_schema::{FunctionSpec, Hook, HookInput, HookTarget};
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

pub use http::HttpHooks;

/// Default time limit of one hook call (§4 in practice).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs hooks in the modes this deployment supports.
#[derive(Clone)]
pub struct HookDispatcher {
    http: HttpHooks,
}

impl HookDispatcher {
    /// A dispatcher whose remote calls give up after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        Self { http: HttpHooks::new(timeout) }
    }
}

impl Default for HookDispatcher {
    fn default() -> Self {
        Self::new(DEFAULT_TIMEOUT)
    }
}

fn unavailable_mode(mode: &str) -> String {
    format!("mode \"{mode}\" is not available in this deployment (available modes: builtin, http)")
}

#[async_trait]
impl HookRunner for HookDispatcher {
    fn check(&self, hook: Hook, spec: &FunctionSpec) -> Result<(), String> {
        match spec.target()? {
            None => Ok(()),
            Some(HookTarget::Builtin { name, .. }) => agora_social_choice::check(hook, name),
            Some(HookTarget::Http { .. }) => Ok(()),
            Some(other) => Err(unavailable_mode(other.mode())),
        }
    }

    async fn run(&self, hook: Hook, spec: &FunctionSpec, input: &HookInput<'_>) -> Result<Value, HookError> {
        let target = spec.target().map_err(HookError::Unavailable)?.ok_or(HookError::NotConfigured)?;
        let out = match target {
            HookTarget::Builtin { name, parameters } => {
                agora_social_choice::run(hook, name, parameters, input).map_err(|e| HookError::Rule(e.to_string()))?
            }
            HookTarget::Http { url, parameters } => self.http.call(url, parameters, input).await?,
            other => return Err(HookError::Unavailable(unavailable_mode(other.mode()))),
        };
        if !out.is_object() {
            return Err(HookError::Malformed(format!("output must be a JSON object, got {}", truncate(&out.to_string()))));
        }
        Ok(out)
    }
}

/// Cuts long text for error messages and logs.
pub(crate) fn truncate(s: &str) -> String {
    const MAX: usize = 300;
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
