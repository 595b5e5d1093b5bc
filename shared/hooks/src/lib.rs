//! The hook runner: one [`HookRunner`] that runs a function spec in whatever mode it names
//! (voting-4-hooks.md §4, voting-1-3-5.md "Hooks (§4) in practice"):
//!
//! | mode | module | runs |
//! |---|---|---|
//! | `builtin` | `agora-social-choice` | a rule shipped in this project, in process |
//! | `http` | [`http`] | POST of the hook input (plus `parameters`) to a URL |
//! | `function` | [`registry`] | a function of `FUNCTIONS_REGISTRY_URL`: external, stateful or stateless |
//! | `dsl` | [`dsl`] | a workflow of `WORKFLOWS_API_URL`, its modules on the [`policy_runner`] |
//! | `lambda` | [`lambda`] | a synchronous AWS Lambda invoke |
//!
//! Common rules: every call has a time limit (default 30 s, `AGORA_HOOK_TIMEOUT_MS`); every
//! failure is a typed [`HookError`] and is logged once here with the task, the hook, the mode
//! and the target; the output must be a JSON object (and a PQT's must hold `qualified`);
//! `http` and external calls are signed (Standard Webhooks) when `AGORA_HOOK_SIGNING_SECRET` is
//! set. A mode whose setting is missing is refused at task creation, naming the setting.

mod cache;
pub mod config;
pub mod dsl;
pub mod http;
pub mod lambda;
pub mod policy_runner;
pub mod registry;
pub mod signing;

use agora_voting_core::{HookError, HookRunner};
use agora_voting_schema::{FunctionSpec, Hook, HookInput, HookTarget};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use config::{HooksConfig, DEFAULT_TIMEOUT};
pub use dsl::{PolicyExecutor, Workflows};
pub use http::HttpClient;
pub use lambda::LambdaInvoker;
pub use policy_runner::{LoadSpec, PolicyCall, PolicyRunner};
pub use registry::Registry;
pub use signing::{SecretError, Signer};

/// Runs hooks in every mode this deployment is configured for. Cheap to clone.
#[derive(Clone)]
pub struct HookDispatcher {
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
    policy: PolicyRunner,
}

/// The body sent to an `http` hook: the hook input, plus the spec's `parameters`.
#[derive(Serialize)]
struct HttpRequest<'a> {
    #[serde(flatten)]
    input: &'a HookInput<'a>,
    parameters: &'a Value,
}

impl HookDispatcher {
    /// A dispatcher for `config`; fails only on a signing secret that is not `whsec_` + base64.
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
                policy,
            }),
        })
    }

    /// A dispatcher with only `builtin` and `http` hooks (and the given time limit).
    pub fn with_timeout(timeout: Duration) -> Self {
        Self::new(&HooksConfig { timeout, ..HooksConfig::default() }).expect("no signing secret, nothing to refuse")
    }

    /// The local policy runner (shared with the local registry, so instances live in one place).
    pub fn policy_runner(&self) -> PolicyRunner {
        self.inner.policy.clone()
    }

    /// The time limit of one call.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    async fn run_remote(&self, target: &HookTarget<'_>, input: &HookInput<'_>) -> Result<Value, HookError> {
        let inner = &self.inner;
        match *target {
            HookTarget::Http { url, parameters } => {
                let body = serde_json::to_vec(&HttpRequest { input, parameters })
                    .map_err(|e| HookError::Malformed(format!("hook input is not JSON: {e}")))?;
                Ok(http::unwrap_output(inner.http.post_json(url, body, inner.signer.as_ref()).await?))
            }
            HookTarget::Function { function_id, parameters } => match &inner.registry {
                Some(registry) => registry.call(function_id, parameters, input).await,
                None => Err(HookError::Unavailable(missing("function"))),
            },
            HookTarget::Dsl { workflow_id } => match &inner.workflows {
                Some(workflows) => workflows.run(workflow_id, input).await,
                None => Err(HookError::Unavailable(missing("dsl"))),
            },
            HookTarget::Lambda { function_name, .. } => {
                let payload = serde_json::to_vec(input).map_err(|e| HookError::Malformed(format!("hook input is not JSON: {e}")))?;
                inner.lambda.invoke(function_name, payload).await
            }
            HookTarget::Builtin { .. } => Err(HookError::Unavailable("builtin rules run in process".into())),
        }
    }
}

impl Default for HookDispatcher {
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

/// What the target names, for logs.
fn target_name<'a>(target: &HookTarget<'a>) -> &'a str {
    match *target {
        HookTarget::Function { function_id, .. } => function_id,
        HookTarget::Dsl { workflow_id } => workflow_id,
        HookTarget::Builtin { name, .. } => name,
        HookTarget::Http { url, .. } => url,
        HookTarget::Lambda { function_name, .. } => function_name,
    }
}

/// The output contract common to every hook: an object; a PQT's holds `qualified`.
fn check_output(hook: Hook, out: Value) -> Result<Value, HookError> {
    if !out.is_object() {
        return Err(HookError::Malformed(format!("output must be a JSON object, got {}", truncate(&out.to_string()))));
    }
    if hook == Hook::Pqt && out.get("qualified").is_none() {
        return Err(HookError::Malformed(format!("PQT output has no \"qualified\": {}", truncate(&out.to_string()))));
    }
    Ok(out)
}

#[async_trait]
impl HookRunner for HookDispatcher {
    fn check(&self, hook: Hook, spec: &FunctionSpec) -> Result<(), String> {
        match spec.target()? {
            None => Ok(()),
            Some(HookTarget::Builtin { name, .. }) => agora_voting_rules::check(hook, name),
            Some(HookTarget::Http { .. }) => Ok(()),
            Some(HookTarget::Function { .. }) if self.inner.registry.is_none() => Err(missing("function")),
            Some(HookTarget::Dsl { .. }) if self.inner.workflows.is_none() => Err(missing("dsl")),
            Some(HookTarget::Lambda { .. }) if !self.inner.lambda_available => Err(missing("lambda")),
            Some(_) => Ok(()),
        }
    }

    async fn run(&self, hook: Hook, spec: &FunctionSpec, input: &HookInput<'_>) -> Result<Value, HookError> {
        let target = spec.target().map_err(HookError::Unavailable)?.ok_or(HookError::NotConfigured)?;
        let started = Instant::now();
        let result = match target {
            HookTarget::Builtin { name, parameters } => {
                agora_voting_rules::run(hook, name, parameters, input).map_err(|e| HookError::Rule(e.to_string()))
            }
            _ => match tokio::time::timeout(self.inner.timeout, self.run_remote(&target, input)).await {
                Ok(result) => result,
                Err(_) => Err(HookError::Timeout(self.inner.timeout)),
            },
        }
        .and_then(|out| check_output(hook, out));
        if let Err(error) = &result {
            tracing::warn!(
                social_task_id = %input.user_input.task.social_task_id,
                hook = hook.output_key(),
                mode = target.mode(),
                target = target_name(&target),
                elapsed_ms = started.elapsed().as_millis() as u64,
                %error,
                "hook call failed"
            );
        }
        result
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
