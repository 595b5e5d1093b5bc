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
//! | `AGORA_HOOK_LAMBDA_ARNS` | `mode: "lambda"`: the functions hooks may name, comma-separated ARN patterns (IAM's `*` and `?`), or `none`; a hook naming another is refused when stored (see [`LambdaScope`]) | unset: any function |
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
    /// Which functions `mode: "lambda"` hooks may name.
    pub lambda_scope: LambdaScope,
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
            lambda_scope: LambdaScope::Any,
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
            lambda_scope: non_empty_env(LAMBDA_ARNS_ENV).map_or(LambdaScope::Any, |v| LambdaScope::parse(&v)),
            cache_ttl: env_number("AGORA_REGISTRY_CACHE_SECONDS").map(Duration::from_secs).unwrap_or(defaults.cache_ttl),
        }
    }

    /// Whether `mode: "lambda"` can run here.
    pub fn lambda_available(&self) -> bool {
        self.aws_region.is_some() || self.lambda_endpoint_url.is_some()
    }
}

/// The variable naming the functions `mode: "lambda"` hooks may invoke.
pub const LAMBDA_ARNS_ENV: &str = "AGORA_HOOK_LAMBDA_ARNS";

/// Which functions `mode: "lambda"` hooks (and Orcade's and Xchange's `arn:aws:lambda:` function
/// ids) may name: `AGORA_HOOK_LAMBDA_ARNS`. On AWS it repeats what the functions' role allows
/// (the template's `HookLambdaArns`), so that a hook IAM would refuse at every call is refused
/// once, when its spec is stored, with a 400 that says so.
///
/// A full ARN is matched against each pattern as IAM matches a `Resource` (`*` any run of
/// characters, `?` one, case-sensitive). A function named without its ARN (a name, `name:alias`,
/// or `ACCOUNT:function:name`) is the caller's account and region: its name part is matched
/// against the part of each pattern after `:function:`, and a pattern without one (`*`) takes
/// every name. The check never refuses a function the role allows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LambdaScope {
    /// Unset: any function (IAM, or the local endpoint, decides at each call).
    #[default]
    Any,
    /// `none`: no function; the mode is refused.
    None,
    /// These ARN patterns.
    Patterns(Vec<String>),
}

impl LambdaScope {
    /// `none` (any case), or comma-separated patterns (blanks ignored; none left: `None`).
    pub fn parse(text: &str) -> Self {
        if text.trim().eq_ignore_ascii_case("none") {
            return LambdaScope::None;
        }
        let patterns: Vec<String> = text.split(',').map(str::trim).filter(|p| !p.is_empty()).map(str::to_owned).collect();
        if patterns.is_empty() {
            LambdaScope::None
        } else {
            LambdaScope::Patterns(patterns)
        }
    }

    /// Ok when a hook may name `function`; else why not, naming the setting.
    pub fn check(&self, function: &str) -> Result<(), String> {
        match self {
            LambdaScope::Any => Ok(()),
            LambdaScope::None => Err(format!(
                "mode \"lambda\" is not available in this deployment: no Lambda function may be invoked by hooks \
                 ({LAMBDA_ARNS_ENV} is \"none\"; on AWS, the template's HookLambdaArns parameter is empty)"
            )),
            LambdaScope::Patterns(patterns) if patterns.iter().any(|p| may_name(p, function)) => Ok(()),
            LambdaScope::Patterns(patterns) => Err(format!(
                "lambda function {function:?} is not one this deployment's hooks may invoke: {LAMBDA_ARNS_ENV} allows {} \
                 (on AWS, the template's HookLambdaArns parameter)",
                patterns.join(", ")
            )),
        }
    }
}

/// Whether `pattern` covers the function `function` names (see [`LambdaScope`]).
fn may_name(pattern: &str, function: &str) -> bool {
    if function.starts_with("arn:") {
        return wildcard(pattern, function);
    }
    let name = function.rsplit_once("function:").map_or(function, |(_, name)| name);
    match pattern.split_once(":function:") {
        Some((_, pattern_name)) => wildcard(pattern_name, name),
        None => true,
    }
}

/// IAM's string match: `*` any run of characters (none included), `?` exactly one.
fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARN: &str = "arn:aws:lambda:eu-west-1:123456789012:function:agora-hook-pqt";

    #[test]
    fn wildcards_match_as_iam_does() {
        assert!(wildcard("*", ""));
        assert!(wildcard("a*c", "abbbc") && wildcard("a*c", "ac") && wildcard("a?c", "abc"));
        assert!(!wildcard("a?c", "ac") && !wildcard("a*c", "abcd") && !wildcard("A*", "abc"));
        assert!(wildcard("*:function:agora-*", ARN));
    }

    #[test]
    fn the_scope_reads_none_and_patterns() {
        assert_eq!(LambdaScope::parse("none"), LambdaScope::None);
        assert_eq!(LambdaScope::parse(" NONE "), LambdaScope::None);
        assert_eq!(LambdaScope::parse(" , "), LambdaScope::None);
        assert_eq!(LambdaScope::parse("a, b ,"), LambdaScope::Patterns(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn arns_and_names_are_checked_against_the_patterns() {
        assert!(LambdaScope::Any.check("anything").is_ok());
        let e = LambdaScope::None.check(ARN).unwrap_err();
        assert!(e.contains("AGORA_HOOK_LAMBDA_ARNS") && e.contains("HookLambdaArns"), "{e}");

        let scope = LambdaScope::parse("arn:aws:lambda:eu-west-1:123456789012:function:agora-hook-*");
        assert!(scope.check(ARN).is_ok());
        assert!(scope.check(&format!("{ARN}:live")).is_ok(), "a qualifier is inside the *");
        let e = scope.check("arn:aws:lambda:eu-west-1:999999999999:function:agora-hook-pqt").unwrap_err();
        assert!(e.contains("999999999999") && e.contains("agora-hook-*") && e.contains("HookLambdaArns"), "{e}");
        // Names: their name part against the patterns' function part.
        assert!(scope.check("agora-hook-pqt").is_ok());
        assert!(scope.check("123456789012:function:agora-hook-pqt").is_ok());
        assert!(scope.check("other-fn").is_err());
        // A pattern that does not spell the function part takes every name (IAM decides).
        assert!(LambdaScope::parse("*").check("other-fn").is_ok());
        assert!(LambdaScope::parse("arn:aws:lambda:eu-west-1:123456789012:*").check("other-fn").is_ok());
    }
}
