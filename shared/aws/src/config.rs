//! The adapters' settings from the environment, and their SDK configuration: that of
//! [`agora_aws_config`] (the standard AWS environment, rustls with ring), with
//! `AGORA_AWS_ENDPOINT` (e.g. a moto server in tests) as the endpoint of every service when set.
//!
//! Build an [`SdkConfig`] once with [`load`] and make every client from it:
//! `aws_sdk_sqs::Client::new(&sdk)`, `aws_sdk_eventbridge::Client::new(&sdk)`, ...

use aws_config::SdkConfig;

/// Environment variable: an endpoint URL used for every AWS service instead of the real one.
pub const ENDPOINT_ENV: &str = "AGORA_AWS_ENDPOINT";

/// A setting the adapters need is missing or unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A required environment variable is unset or empty.
    #[error("environment variable {0} is required")]
    Missing(&'static str),
}

/// The value of an environment variable, `None` when unset, empty or not UTF-8.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// The value of a required environment variable.
pub fn required_env(name: &'static str) -> Result<String, ConfigError> {
    env_var(name).ok_or(ConfigError::Missing(name))
}

/// SDK configuration from the standard AWS environment, with `AGORA_AWS_ENDPOINT` as the
/// endpoint of every service when set.
pub async fn load() -> SdkConfig {
    load_with_endpoint(env_var(ENDPOINT_ENV).as_deref()).await
}

/// SDK configuration from the standard AWS environment, with `endpoint` (when given) as the
/// endpoint of every service (see [`agora_aws_config::load`]).
pub async fn load_with_endpoint(endpoint: Option<&str>) -> SdkConfig {
    agora_aws_config::load(endpoint, None).await
}

/// Cuts `text` to at most `max` bytes (on a character boundary) for error messages.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
