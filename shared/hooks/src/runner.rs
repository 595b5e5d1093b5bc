//! [`Hooks`]: a service's builtins and the remote modes behind one `check` and one `run`.

use crate::{truncate, Builtins, Call, HookError, Remote};
use agora_schema::{FunctionSpec, HookTarget};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// Runs one service's hooks, whatever mode their spec names. Cheap to clone.
pub struct Hooks<B: Builtins> {
    builtins: Arc<B>,
    remote: Arc<dyn Remote>,
    deployment_id: Option<Arc<str>>,
}

impl<B: Builtins> Clone for Hooks<B> {
    fn clone(&self) -> Self {
        Self { builtins: self.builtins.clone(), remote: self.remote.clone(), deployment_id: self.deployment_id.clone() }
    }
}

impl<B: Builtins> Hooks<B> {
    pub fn new(builtins: B, remote: Arc<dyn Remote>) -> Self {
        Self { builtins: Arc::new(builtins), remote, deployment_id: None }
    }

    /// Names every stateful registry deployment `<function_name>-<id>` instead of
    /// `<function_name>-<scope>` (voting's `SOCIAL_CHOICE_ID`).
    pub fn with_deployment_id(mut self, id: Option<String>) -> Self {
        self.deployment_id = id.map(Arc::from);
        self
    }

    pub fn builtins(&self) -> &B {
        &self.builtins
    }

    /// Whether this deployment can run `spec` for `hook`; called when a spec is stored, so that
    /// a spec naming an unavailable mode or rule is refused then, not when it runs. `{}` passes.
    pub fn check(&self, hook: B::Hook, spec: &FunctionSpec) -> Result<(), String> {
        match spec.target()? {
            None => Ok(()),
            Some(HookTarget::Builtin { name, .. }) => self.builtins.check(hook, name),
            Some(target) => self.remote.check(&target),
        }
    }

    /// Runs `spec` for `hook` on `input`; `scope` is the task or job id. The output is a JSON
    /// object that meets the hook's contract, or a [`HookError`], logged here once.
    pub async fn run(&self, hook: B::Hook, spec: &FunctionSpec, scope: &str, input: &B::Input<'_>) -> Result<Value, HookError> {
        let target = spec.target().map_err(HookError::Unavailable)?.ok_or(HookError::NotConfigured)?;
        let started = Instant::now();
        let result = match target {
            HookTarget::Builtin { name, parameters } => self.builtins.run(hook, name, parameters, input).map_err(HookError::Rule),
            _ => {
                let call = Call {
                    hook: self.builtins.hook_name(hook),
                    target,
                    input,
                    scope,
                    deployment: self.deployment_id.as_deref().unwrap_or(scope),
                };
                let limit = self.remote.timeout();
                match tokio::time::timeout(limit, self.remote.call(&call)).await {
                    Ok(result) => result,
                    Err(_) => Err(HookError::Timeout(limit)),
                }
            }
        }
        .and_then(|out| self.check_output(hook, out));
        if let Err(error) = &result {
            tracing::warn!(
                scope,
                hook = self.builtins.hook_name(hook),
                mode = target.mode(),
                target = target.name(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                %error,
                "hook call failed"
            );
        }
        result
    }

    /// The output contract common to every hook (a JSON object), then the service's own.
    fn check_output(&self, hook: B::Hook, out: Value) -> Result<Value, HookError> {
        if !out.is_object() {
            return Err(HookError::Malformed(format!("output must be a JSON object, got {}", truncate(&out.to_string()))));
        }
        self.builtins.check_output(hook, &out).map_err(HookError::Malformed)?;
        Ok(out)
    }
}
