//! Where the store's table is: its name, an optional endpoint (a DynamoDB-compatible server such
//! as moto or DynamoDB Local) and the region; credentials come from the standard AWS chain.

use agora_store::StoreError;
use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};

/// Environment variable naming the table ([`DEFAULT_TABLE`] when unset).
pub const TABLE_ENV: &str = "AGORA_DYNAMODB_TABLE";
/// Environment variable holding the endpoint URL of a DynamoDB-compatible server.
pub const ENDPOINT_ENV: &str = "AGORA_DYNAMODB_ENDPOINT";
/// The table's name when [`TABLE_ENV`] is unset.
pub const DEFAULT_TABLE: &str = "agora";
/// The region used against a local endpoint when the environment names none.
const LOCAL_REGION: &str = "us-east-1";

/// How to reach the store's table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamoConfig {
    /// The table holding every collection of the database.
    pub table: String,
    /// An endpoint URL replacing AWS's (e.g. `http://127.0.0.1:5055` for moto); `None` for AWS.
    pub endpoint: Option<String>,
    /// The region; `None` takes it from the standard AWS environment (`AWS_REGION`, profile).
    /// With an `endpoint` and no region anywhere, `us-east-1`.
    pub region: Option<String>,
}

impl Default for DynamoConfig {
    fn default() -> Self {
        DynamoConfig { table: DEFAULT_TABLE.to_string(), endpoint: None, region: None }
    }
}

impl DynamoConfig {
    /// The configuration the environment describes: [`TABLE_ENV`], [`ENDPOINT_ENV`]; the region
    /// and credentials are left to the standard AWS chain.
    pub fn from_env() -> DynamoConfig {
        let non_empty = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        DynamoConfig {
            table: non_empty(TABLE_ENV).unwrap_or_else(|| DEFAULT_TABLE.to_string()),
            endpoint: non_empty(ENDPOINT_ENV),
            region: None,
        }
    }

    /// Builds a DynamoDB client: HTTPS through rustls (ring), region and credentials from the
    /// standard AWS chain. With an endpoint and no `AWS_ACCESS_KEY_ID` in the environment, fixed
    /// local credentials (local servers accept any).
    pub(crate) async fn client(&self) -> Result<aws_sdk_dynamodb::Client, StoreError> {
        use aws_smithy_http_client::tls;
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(tls::rustls_provider::CryptoMode::Ring))
            .build_https();
        let mut loader = aws_config::defaults(BehaviorVersion::latest()).http_client(http);
        if let Some(region) = &self.region {
            loader = loader.region(Region::new(region.clone()));
        }
        if let Some(url) = &self.endpoint {
            loader = loader.endpoint_url(url);
            if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() {
                loader = loader.credentials_provider(Credentials::new("local", "local", None, None, "agora-local-endpoint"));
            }
        }
        let shared = loader.load().await;
        let mut config = aws_sdk_dynamodb::config::Builder::from(&shared);
        if shared.region().is_none() {
            if self.endpoint.is_none() {
                return Err(StoreError::Backend("no AWS region configured for DynamoDB (set AWS_REGION)".to_string()));
            }
            config = config.region(Region::new(LOCAL_REGION));
        }
        Ok(aws_sdk_dynamodb::Client::from_conf(config.build()))
    }
}
