//! What the hook runner needs to know about its deployment, read from the environment.
//!
//! | Variable | Used by | Default |
//! |---|---|---|
//! | `FUNCTIONS_REGISTRY_URL` | `mode: "function"` | none: the mode is refused |
//! | `WORKFLOWS_API_URL` | `mode: "dsl"` | none: the mode is refused |
//! | `EXECUTOR_ID` | stateless registry functions | none: such a function fails, naming it |
//! | `AGORA_HOOK_SIGNING_SECRET` | `http` hooks and external functions (`whsec_` + base64) | none: unsigned |
//! | `AGORA_HOOK_TIMEOUT_MS` | every mode: the time limit of one call | 30 000 |
//! | `AGORA_PYTHON` | the local policy runner | `python3` |
//! | `AGORA_POLICY_WORKERS` | the local policy runner: Python processes | 1 |
//! | `AGORA_POLICY_CACHE_DIR` | the policy runner: fetched code and installed requirements | `<temp>/agora-policy-cache` |
//! | `AGORA_POLICY_RUNNER_LAMBDA` | `dsl`: run modules in this Lambda (functions/policy-runner) instead of a local process | none |
//! | `AWS_REGION` | `mode: "lambda"` (and the policy-runner Lambda) | none: the mode is refused |
//! | `AGORA_LAMBDA_ENDPOINT_URL` | `mode: "lambda"`: a Lambda-API-compatible endpoint (e.g. a local one) | AWS |
//! | `AGORA_REGISTRY_CACHE_SECONDS` | how long registry entries and workflows are cached | 30 |

use std::path::PathBuf;
use std::time::Duration;

/// Default time limit of one hook call (§4 in practice).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Default time registry entries and workflows are cached.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, PartialEq)]
pub struct HooksConfig {
    /// Time limit of one hook call, whatever its mode.
    pub timeout: Duration,
    pub functions_registry_url: Option<String>,
    pub workflows_api_url: Option<String>,
    pub executor_id: Option<String>,
    /// `whsec_` + base64 (the `whsec_` prefix is optional).
    pub signing_secret: Option<String>,
    /// The Python interpreter of the local policy runner.
    pub python: String,
    /// Python processes of the local policy runner (instances are spread over them by key).
    pub policy_workers: usize,
    pub policy_cache_dir: PathBuf,
    /// Run DSL modules in this Lambda function (functions/policy-runner) instead of locally.
    pub policy_runner_lambda: Option<String>,
    pub aws_region: Option<String>,
    /// A Lambda-API-compatible endpoint instead of AWS's. It gets the environment's AWS
    /// credentials when set, else fixed local ones (a local endpoint accepts any).
    pub lambda_endpoint_url: Option<String>,
    /// How long function entries and workflows are cached.
    pub cache_ttl: Duration,
}

impl Default for HooksConfig {
    /// No registry, no workflows, no signing; the interpreter is `AGORA_PYTHON` or `python3`.
    fn default() -> Self {
        Self {
            timeout: DEFAULT_TIMEOUT,
            functions_registry_url: None,
            workflows_api_url: None,
            executor_id: None,
            signing_secret: None,
            python: non_empty_env("AGORA_PYTHON").unwrap_or_else(|| "python3".into()),
            policy_workers: 1,
            policy_cache_dir: std::env::temp_dir().join("agora-policy-cache"),
            policy_runner_lambda: None,
            aws_region: None,
            lambda_endpoint_url: None,
            cache_ttl: DEFAULT_CACHE_TTL,
        }
    }
}

use agora_support::env::{number as env_number, var as non_empty_env};

impl HooksConfig {
    /// Reads the variables of the table above; unset or unparsable numbers keep their default.
    pub fn from_env() -> Self {
        let defaults = Self::default();
        Self {
            timeout: env_number("AGORA_HOOK_TIMEOUT_MS").map(Duration::from_millis).unwrap_or(defaults.timeout),
            functions_registry_url: non_empty_env("FUNCTIONS_REGISTRY_URL"),
            workflows_api_url: non_empty_env("WORKFLOWS_API_URL"),
            executor_id: non_empty_env("EXECUTOR_ID"),
            signing_secret: non_empty_env("AGORA_HOOK_SIGNING_SECRET"),
            python: defaults.python,
            policy_workers: env_number("AGORA_POLICY_WORKERS").map_or(defaults.policy_workers, |n| n.clamp(1, 16) as usize),
            policy_cache_dir: non_empty_env("AGORA_POLICY_CACHE_DIR").map(PathBuf::from).unwrap_or(defaults.policy_cache_dir),
            policy_runner_lambda: non_empty_env("AGORA_POLICY_RUNNER_LAMBDA"),
            aws_region: non_empty_env("AWS_REGION").or_else(|| non_empty_env("AWS_DEFAULT_REGION")),
            lambda_endpoint_url: non_empty_env("AGORA_LAMBDA_ENDPOINT_URL"),
            cache_ttl: env_number("AGORA_REGISTRY_CACHE_SECONDS").map(Duration::from_secs).unwrap_or(defaults.cache_ttl),
        }
    }

    /// Whether `mode: "lambda"` can run here.
    pub fn lambda_available(&self) -> bool {
        self.aws_region.is_some() || self.lambda_endpoint_url.is_some()
    }
}
