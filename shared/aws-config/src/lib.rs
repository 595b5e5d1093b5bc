//! The one way an AWS SDK client of Agora is configured (the DynamoDB store, the Lambda hooks,
//! the messaging, queue, scheduling and live-stream adapters): HTTPS through rustls with ring
//! (the TLS stack reqwest already builds, instead of aws-lc), region and credentials from the
//! standard AWS environment (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, profiles, the Lambda or ECS
//! role, ...), and an optional endpoint that replaces AWS's for every service (a moto server,
//! DynamoDB Local).
//!
//! ```ignore
//! let sdk = agora_aws_config::load(Some("http://127.0.0.1:5055"), None).await;
//! let sqs = aws_sdk_sqs::Client::new(&sdk);
//! ```

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_smithy_http_client::tls;

/// The region used with an endpoint override when neither the caller nor the environment
/// names one (local servers ignore it, but the SDK needs one to sign requests).
pub const FALLBACK_REGION: &str = "us-east-1";

/// SDK configuration: `region` when given, else the environment's; `endpoint` (when given) for
/// every service. With an endpoint:
/// - and no region anywhere in the environment (`AWS_REGION`, `AWS_DEFAULT_REGION`), the region
///   is [`FALLBACK_REGION`] (the default region chain would end in an instance-metadata lookup,
///   which cannot answer next to a local endpoint);
/// - and no `AWS_ACCESS_KEY_ID`, fixed local credentials (local servers accept any).
pub async fn load(endpoint: Option<&str>, region: Option<&str>) -> SdkConfig {
    let http =
        aws_smithy_http_client::Builder::new().tls_provider(tls::Provider::Rustls(tls::rustls_provider::CryptoMode::Ring)).build_https();
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(http);
    if let Some(region) = region {
        loader = loader.region(Region::new(region.to_owned()));
    }
    if let Some(url) = endpoint {
        tracing::debug!(endpoint = url, "AWS endpoint override");
        loader = loader.endpoint_url(url);
        if region.is_none() && env_is_unset("AWS_REGION") && env_is_unset("AWS_DEFAULT_REGION") {
            loader = loader.region(Region::from_static(FALLBACK_REGION));
        }
        if env_is_unset("AWS_ACCESS_KEY_ID") {
            loader =
                loader.credentials_provider(aws_credential_types::Credentials::new("local", "local", None, None, "agora-local-endpoint"));
        }
    }
    loader.load().await
}

fn env_is_unset(name: &str) -> bool {
    agora_support::env::var(name).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_explicit_region_wins_and_an_endpoint_is_kept() {
        let sdk = load(Some("http://127.0.0.1:9"), Some("eu-west-3")).await;
        assert_eq!(sdk.region().map(|r| r.as_ref()), Some("eu-west-3"));
        assert_eq!(sdk.endpoint_url(), Some("http://127.0.0.1:9"));
        assert!(sdk.credentials_provider().is_some());
    }
}
