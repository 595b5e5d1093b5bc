//! The one place AWS SDK clients get their configuration: region and credentials from the
//! standard AWS environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles, the Lambda or ECS
//! role, ...), HTTPS through rustls with ring, and an optional endpoint override
//! (`AGORA_AWS_ENDPOINT`, e.g. a moto server in tests) applied to every service.
//!
//! Build an [`SdkConfig`] once with [`load`] and make every client from it:
//! `aws_sdk_sqs::Client::new(&sdk)`, `aws_sdk_eventbridge::Client::new(&sdk)`, ...

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_smithy_http_client::tls;

/// Environment variable: an endpoint URL used for every AWS service instead of the real one.
pub const ENDPOINT_ENV: &str = "AGORA_AWS_ENDPOINT";

/// Region used with an endpoint override when the environment names none (moto ignores it,
/// but the SDK needs one to sign requests).
pub const FALLBACK_REGION: &str = "us-east-1";

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
/// endpoint of every service. With an endpoint and neither `AWS_REGION` nor
/// `AWS_DEFAULT_REGION` set, the region is [`FALLBACK_REGION`]. Credentials always come from
/// the standard chain (moto accepts any).
pub async fn load_with_endpoint(endpoint: Option<&str>) -> SdkConfig {
    let http =
        aws_smithy_http_client::Builder::new().tls_provider(tls::Provider::Rustls(tls::rustls_provider::CryptoMode::Ring)).build_https();
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(http);
    if let Some(url) = endpoint {
        tracing::debug!(endpoint = url, "AWS endpoint override");
        loader = loader.endpoint_url(url);
        // Only the environment is looked at here: the default region chain would end in an
        // instance-metadata lookup, which cannot answer next to a local endpoint.
        if env_var("AWS_REGION").is_none() && env_var("AWS_DEFAULT_REGION").is_none() {
            loader = loader.region(Region::from_static(FALLBACK_REGION));
        }
    }
    loader.load().await
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
