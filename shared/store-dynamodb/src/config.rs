//! Where the store's table is: its name, an optional endpoint (a DynamoDB-compatible server such
//! as moto or DynamoDB Local) and the region; credentials come from the standard AWS chain.

use agora_store::StoreError;

/// Environment variable naming the table ([`DEFAULT_TABLE`] when unset).
pub const TABLE_ENV: &str = "AGORA_DYNAMODB_TABLE";
/// Environment variable holding the endpoint URL of a DynamoDB-compatible server.
pub const ENDPOINT_ENV: &str = "AGORA_DYNAMODB_ENDPOINT";
/// The table's name when [`TABLE_ENV`] is unset.
pub const DEFAULT_TABLE: &str = "agora";

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
        let non_empty = agora_support::env::var;
        DynamoConfig {
            table: non_empty(TABLE_ENV).unwrap_or_else(|| DEFAULT_TABLE.to_string()),
            endpoint: non_empty(ENDPOINT_ENV),
            region: None,
        }
    }

    /// Builds a DynamoDB client from [`agora_aws_config::load`]: HTTPS through rustls (ring),
    /// region and credentials from the standard AWS chain; with an endpoint, fixed local
    /// credentials when the environment has none (local servers accept any).
    pub async fn client(&self) -> Result<aws_sdk_dynamodb::Client, StoreError> {
        let shared = agora_aws_config::load(self.endpoint.as_deref(), self.region.as_deref()).await;
        if shared.region().is_none() {
            return Err(StoreError::Backend("no AWS region configured for DynamoDB (set AWS_REGION)".to_string()));
        }
        Ok(aws_sdk_dynamodb::Client::new(&shared))
    }
}
