//! The remote hook modes, behind the [`Remote`] port of `agora-hooks` (voting-4-hooks.md §4,
//! voting-1-3-5.md "Hooks (§4) in practice"), for every service:
//!
//! | mode | module | runs |
//! |---|---|---|
//! | `http` | [`http`] | POST of the hook input (plus `parameters`) to a URL |
//! | `function` | [`registry`] | a function of `FUNCTIONS_REGISTRY_URL`: external, stateful or stateless |
//! | `dsl` | [`dsl`] | a workflow of `WORKFLOWS_API_URL`, its modules on the [`policy_runner`] |
//! | `lambda` | [`lambda`] | a synchronous AWS Lambda invoke |
//!
//! Common rules: every call has a time limit (default 30 s, `AGORA_HOOK_TIMEOUT_MS`), applied
//! by `agora_hooks::Hooks`; every failure is a typed [`HookError`]; `http` and external calls are
//! signed (Standard Webhooks) when `AGORA_HOOK_SIGNING_SECRET` is set. A mode whose setting is
//! missing is refused when a spec is stored, naming the setting, and so is a Lambda function
//! outside `AGORA_HOOK_LAMBDA_ARNS` ([`LambdaScope`]).
//!
//! On AWS (template.yaml) DSL modules run in the policy-runner function (`functions/policy-runner`,
//! `AGORA_POLICY_RUNNER_LAMBDA`), which every function that runs hooks may invoke, and Lambda
//! hooks may invoke the functions of the template's `HookLambdaArns` (`AGORA_HOOK_LAMBDA_ARNS`).

mod cache;
pub mod config;
pub mod dsl;
pub mod http;
pub mod lambda;
pub mod policy_runner;
pub mod registry;
/// Standard Webhooks signing, shared with the delegate system: the `agora-signing` crate.
pub use agora_signing as signing;

use agora_hooks::{Call, HookError, Remote};
use agora_schema::HookTarget;
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

pub use config::{HooksConfig, LambdaScope, DEFAULT_TIMEOUT};
pub use dsl::{PolicyExecutor, Workflows};
pub use http::HttpClient;
pub use lambda::LambdaInvoker;
pub use policy_runner::{LoadSpec, PolicyCall, PolicyRunner};
pub use registry::Registry;
pub use signing::{SecretError, Signer};

pub(crate) use agora_hooks::truncate;

/// Runs hooks in every remote mode this deployment is configured for. Cheap to clone.
#[derive(Clone)]
pub struct RemoteHooks {
    inner: Arc<Inner>,
}

struct Inner {
    timeout: Duration,
    http: HttpClient,
    signer: Option<Signer>,
    registry: Option<Registry>,
    workflows: Option<Workflows>,
    lambda: LambdaInvoker,
    lambda_available: bool,
    lambda_scope: LambdaScope,
    policy: PolicyRunner,
}

/// The body sent to an `http` hook: the hook input, plus the spec's `parameters` when it has
/// some. A hook named by a bare URL (Orcade's function ids) has none, and gets exactly its
/// input (orcade §4: "Functions receive exactly the input above").
#[derive(Serialize)]
struct HttpRequest<'a> {
    #[serde(flatten)]
    input: &'a (dyn erased_serde::Serialize + Sync),
    #[serde(skip_serializing_if = "is_empty_object")]
    parameters: &'a Value,
}

fn is_empty_object(v: &&Value) -> bool {
    v.as_object().is_some_and(|o| o.is_empty())
}

/// The hook input as a JSON body.
pub(crate) fn json_body(value: &(impl Serialize + ?Sized)) -> Result<Vec<u8>, HookError> {
    serde_json::to_vec(value).map_err(|e| HookError::Malformed(format!("hook input is not JSON: {e}")))
}

impl RemoteHooks {
    /// The remote modes of `config`; fails only on a signing secret that is not `whsec_` + base64.
    pub fn new(config: &HooksConfig) -> Result<Self, SecretError> {
        let signer = config.signing_secret.as_deref().map(Signer::from_secret).transpose()?;
        let http = HttpClient::new(config.timeout);
        let policy = PolicyRunner::new(config);
        let lambda = LambdaInvoker::new(config);
        let registry = config
            .functions_registry_url
            .as_deref()
            .map(|url| Registry::new(url, config.executor_id.clone(), http.clone(), signer.clone(), config.cache_ttl));
        let executor = match &config.policy_runner_lambda {
            Some(function) => PolicyExecutor::Lambda { invoker: lambda.clone(), function: function.clone() },
            None => PolicyExecutor::Local(policy.clone()),
        };
        let workflows = config.workflows_api_url.as_deref().map(|url| Workflows::new(url, http.clone(), executor, config.cache_ttl));
        Ok(Self {
            inner: Arc::new(Inner {
                timeout: config.timeout,
                http,
                signer,
                registry,
                workflows,
                lambda,
                lambda_available: config.lambda_available(),
                lambda_scope: config.lambda_scope.clone(),
                policy,
            }),
        })
    }

    /// Only the `http` mode (and the given time limit).
    pub fn with_timeout(timeout: Duration) -> Self {
        Self::new(&HooksConfig { timeout, ..HooksConfig::default() }).expect("no signing secret, nothing to refuse")
    }

    /// The local policy runner (shared with the local registry, so instances live in one place).
    pub fn policy_runner(&self) -> PolicyRunner {
        self.inner.policy.clone()
    }
}

impl Default for RemoteHooks {
    fn default() -> Self {
        Self::with_timeout(DEFAULT_TIMEOUT)
    }
}

/// Why a mode is refused: the setting it needs.
fn missing(mode: &str) -> String {
    let setting = match mode {
        "function" => "FUNCTIONS_REGISTRY_URL (the function registry)",
        "dsl" => "WORKFLOWS_API_URL (the DSL workflow registry)",
        _ => "AWS_REGION, or AGORA_LAMBDA_ENDPOINT_URL for a local Lambda endpoint",
    };
    format!("mode \"{mode}\" is not available in this deployment: it needs {setting}, which is not set")
}

#[async_trait]
impl Remote for RemoteHooks {
    fn check(&self, target: &HookTarget<'_>) -> Result<(), String> {
        match target {
            HookTarget::Function { .. } if self.inner.registry.is_none() => Err(missing("function")),
            HookTarget::Dsl { .. } if self.inner.workflows.is_none() => Err(missing("dsl")),
            HookTarget::Lambda { .. } if !self.inner.lambda_available => Err(missing("lambda")),
            HookTarget::Lambda { function_name, .. } => self.inner.lambda_scope.check(function_name),
            HookTarget::Builtin { .. } => Err("builtin rules run in process, not remotely".into()),
            _ => Ok(()),
        }
    }

    async fn call(&self, call: &Call<'_>) -> Result<Value, HookError> {
        let inner = &self.inner;
        match call.target {
            HookTarget::Http { url, parameters } => {
                let body = json_body(&HttpRequest { input: call.input, parameters })?;
                Ok(http::unwrap_output(inner.http.post_json(url, body, inner.signer.as_ref()).await?))
            }
            HookTarget::Function { function_id, parameters } => match &inner.registry {
                Some(registry) => registry.call(function_id, parameters, call.input, call.deployment).await,
                None => Err(HookError::Unavailable(missing("function"))),
            },
            HookTarget::Dsl { workflow_id } => match &inner.workflows {
                Some(workflows) => workflows.run(workflow_id, call.input).await,
                None => Err(HookError::Unavailable(missing("dsl"))),
            },
            HookTarget::Lambda { function_name, .. } => inner.lambda.invoke(function_name, json_body(call.input)?).await,
            HookTarget::Builtin { .. } => Err(HookError::Unavailable("builtin rules run in process".into())),
        }
    }

    fn timeout(&self) -> Duration {
        self.inner.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lambda(function_name: &str) -> HookTarget<'_> {
        HookTarget::Lambda { function_name, parameters: &Value::Null }
    }

    #[test]
    fn lambda_hooks_are_checked_against_the_scope_when_stored() {
        let on_aws = |scope: &str| {
            let config =
                HooksConfig { aws_region: Some("eu-west-1".into()), lambda_scope: LambdaScope::parse(scope), ..HooksConfig::default() };
            RemoteHooks::new(&config).unwrap()
        };
        let arn = "arn:aws:lambda:eu-west-1:123456789012:function:agora-hook-post";
        let e = on_aws("none").check(&lambda(arn)).unwrap_err();
        assert!(e.contains("HookLambdaArns"), "{e}");
        let scoped = on_aws("arn:aws:lambda:eu-west-1:123456789012:function:agora-hook-*");
        assert_eq!(scoped.check(&lambda(arn)), Ok(()));
        assert!(scoped.check(&lambda("arn:aws:lambda:eu-west-1:123456789012:function:billing")).is_err());
        // Unset (local runs): any function; no region nor endpoint: the mode itself is refused.
        let any = RemoteHooks::new(&HooksConfig { aws_region: Some("eu-west-1".into()), ..HooksConfig::default() }).unwrap();
        assert_eq!(any.check(&lambda("billing")), Ok(()));
        assert!(RemoteHooks::default().check(&lambda(arn)).unwrap_err().contains("AWS_REGION"));
    }
}
