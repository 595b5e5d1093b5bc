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
    Missing(String),
}

pub use agora_support::env::var as env_var;

/// The value of a required environment variable.
pub fn required_env(name: &str) -> Result<String, ConfigError> {
    env_var(name).ok_or_else(|| ConfigError::Missing(name.to_owned()))
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

pub(crate) use agora_support::truncate;
