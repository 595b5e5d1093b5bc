//! The port to every mode that does not run in process: `http`, `function` (the registry),
//! `dsl` and `lambda`. `agora-hooks-remote` implements it over HTTP and the AWS SDK.

use crate::HookError;
use agora_schema::HookTarget;
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

/// One remote hook call.
#[derive(Clone, Copy)]
pub struct Call<'a> {
    /// The hook's name (for logs).
    pub hook: &'static str,
    /// Where it runs; never `builtin`.
    pub target: HookTarget<'a>,
    /// The hook input, serialized by the mode as it needs.
    pub input: &'a (dyn erased_serde::Serialize + Sync),
    /// The service's scope key: the task or job the call is for (logs).
    pub scope: &'a str,
    /// What names a stateful registry deployment: `<function_name>-<deployment>`.
    pub deployment: &'a str,
}

/// Runs hooks in the modes a deployment is configured for.
#[async_trait]
pub trait Remote: Send + Sync + 'static {
    /// Whether this deployment can run `target`'s mode; the `Err` names the missing setting.
    fn check(&self, target: &HookTarget<'_>) -> Result<(), String>;

    /// Runs one call; the result is the hook's output as the mode unwraps it.
    async fn call(&self, call: &Call<'_>) -> Result<Value, HookError>;

    /// The time limit of one call.
    fn timeout(&self) -> Duration;
}

/// A deployment with builtins only: every remote mode is refused (flow tests, tools).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRemote;

fn refused(target: &HookTarget<'_>) -> String {
    format!("mode \"{}\" is not available in this deployment: it runs builtin hooks only", target.mode())
}

#[async_trait]
impl Remote for NoRemote {
    fn check(&self, target: &HookTarget<'_>) -> Result<(), String> {
        Err(refused(target))
    }

    async fn call(&self, call: &Call<'_>) -> Result<Value, HookError> {
        Err(HookError::Unavailable(refused(&call.target)))
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(30)
    }
}
