//! [`Hooks`]: a service's builtins and the remote modes behind one `check` and one `run`.

use crate::{truncate, Builtins, Call, HookError, Remote};
use agora_schema::{FunctionSpec, HookTarget};
use agora_telemetry::names;
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
    /// object that meets the hook's contract, or a [`HookError`], logged here once (in the
    /// calling flow's span, which names the task or job). Every call is counted by mode and
    /// outcome (`ok`, `failed`), with the seconds it took.
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
        let (mode, took) = (target.mode(), started.elapsed());
        metrics::counter!(names::HOOK_CALLS, "mode" => mode, "outcome" => if result.is_ok() { "ok" } else { "failed" }).increment(1);
        metrics::histogram!(names::HOOK_CALL_SECONDS, "mode" => mode).record(took.as_secs_f64());
        if let Err(error) = &result {
            tracing::warn!(
                hook = self.builtins.hook_name(hook),
                mode,
                target = target.name(),
                elapsed_ms = took.as_millis() as u64,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NoRemote;
    use agora_telemetry::testing::record;

    /// One hook, two rules: `ok` answers an object, `boom` fails.
    struct Rules;

    impl Builtins for Rules {
        type Hook = ();
        type Input<'a> = Value;

        fn hook_name(&self, _: ()) -> &'static str {
            "test_hook"
        }

        fn check(&self, _: (), _: &str) -> Result<(), String> {
            Ok(())
        }

        fn run(&self, _: (), name: &str, _: &Value, _: &Value) -> Result<Value, String> {
            match name {
                "ok" => Ok(serde_json::json!({"fine": true})),
                _ => Err(format!("rule {name} refused its input")),
            }
        }
    }

    #[test]
    fn every_call_is_counted_by_mode_and_outcome_with_its_duration() {
        let hooks = Hooks::new(Rules, Arc::new(NoRemote));
        let input = serde_json::json!({});
        let recorded = record(|| async {
            let run = |id: &str| {
                let spec = FunctionSpec::from_id(id);
                let (hooks, input) = (&hooks, &input);
                async move { hooks.run((), &spec, "task-1", input).await }
            };
            assert!(run("builtin:ok").await.is_ok());
            assert!(run("builtin:ok").await.is_ok());
            assert!(matches!(run("builtin:boom").await, Err(HookError::Rule(_))));
            // A remote mode this deployment cannot run: a failed call of its mode.
            assert!(matches!(run("http://127.0.0.1:9/hook").await, Err(HookError::Unavailable(_))));
            // Not configured: no call is made, none is counted.
            assert!(matches!(run("").await, Err(HookError::NotConfigured)));
        });
        let calls = |mode, outcome| recorded.counter(names::HOOK_CALLS, &[("mode", mode), ("outcome", outcome)]);
        assert_eq!(calls("builtin", "ok"), Some(2));
        assert_eq!(calls("builtin", "failed"), Some(1));
        assert_eq!(calls("http", "failed"), Some(1));
        assert_eq!(calls("http", "ok"), None);
        let seconds = |mode| recorded.histogram(names::HOOK_CALL_SECONDS, &[("mode", mode)]).map(|s| s.len());
        assert_eq!((seconds("builtin"), seconds("http")), (Some(3), Some(1)));
    }
}
