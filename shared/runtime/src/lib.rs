//! Builds the platform's adapters from configuration, in one place for every service's front
//! doors: the Lambda functions read it from their environment, the local server from its
//! options. With the `lambda` feature, [`lambda`] serves a function's events.
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `AGORA_STORE` | `embedded`, `mongodb` or `dynamodb` | per front door (`mongodb` for the functions) |
//! | `AGORA_EMBEDDED_DIR` | the embedded store's folder when the functions run it | `/tmp/agora` |
//! | `MONGODB_URI`, else `MONGO_URL` (the spec's name) | MongoDB connection string (an Atlas SRV URI works) | required for `mongodb` by the functions; the local server uses `mongodb://localhost:27017` |
//! | `AGORA_DYNAMODB_TABLE`, `AGORA_DYNAMODB_ENDPOINT` | DynamoDB table, endpoint override | `agora`, AWS |
//! | `AGORA_PUBLISHER` | `eventbridge`, `nats` or `log` | per front door |
//! | `NATS_URL` | NATS server for the `nats` publisher | `nats://127.0.0.1:4222` |
//! | `AGORA_EVENT_BUS`, `AGORA_EVENT_SOURCE` | EventBridge bus and source | `default`, the service's (`agora.voting`) |

#[cfg(feature = "lambda")]
pub mod dead_letters;
#[cfg(feature = "lambda")]
pub mod lambda;

use agora_aws::Warmup;
use agora_ports::{PublishError, Publisher};
use agora_store::{DatabaseSpec, DocumentStore};
use std::path::Path;
use std::sync::Arc;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

pub use agora_store_mongodb::DEFAULT_MONGO_URL;
pub use agora_support::env::var as env;

/// The store adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    Embedded,
    MongoDb,
    DynamoDb,
}

impl std::str::FromStr for StoreKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "embedded" => Ok(StoreKind::Embedded),
            "mongodb" => Ok(StoreKind::MongoDb),
            "dynamodb" => Ok(StoreKind::DynamoDb),
            other => Err(format!("unknown store {other:?} (expected embedded, mongodb or dynamodb)")),
        }
    }
}

/// Why a build without the `embedded` feature cannot open the embedded store.
#[cfg(not(feature = "embedded"))]
const NO_EMBEDDED: &str =
    "this build has no embedded store (agora-runtime's `embedded` feature is off, as in the Lambda functions): use mongodb or dynamodb";

/// The backend a process keeps its databases on, connected once: the embedded store's folder,
/// one MongoDB deployment (one client, checked once), or one DynamoDB client. A process holding
/// several databases (a function reading two services' data, the local server) opens them all on
/// one backend, so that the second costs no new connection.
#[derive(Clone, Debug)]
pub enum StoreBackend {
    /// The embedded store: each database in its own SQLite file in the folder
    /// (`<dir>/<database>.sqlite`).
    Embedded(std::path::PathBuf),
    /// A MongoDB deployment (`MONGODB_URI`).
    MongoDb(agora_store_mongodb::MongoDeployment),
    /// DynamoDB (the DynamoDB variables and the standard AWS environment): the table every
    /// database shares unless a namespace names another, and whether the endpoint is a local
    /// server (whose tables are created when missing).
    DynamoDb { client: aws_sdk_dynamodb::Client, table: String, local: bool },
}

impl StoreBackend {
    /// Connects to the backend of `kind`: reads `MONGODB_URI` (else `MONGO_URL`, else
    /// `mongo_default` when given), or the DynamoDB variables and the standard AWS environment;
    /// the embedded store keeps its files in `embedded_dir`.
    pub async fn connect(kind: StoreKind, embedded_dir: &Path, mongo_default: Option<&str>) -> Result<StoreBackend, BoxError> {
        Ok(match kind {
            #[cfg(feature = "embedded")]
            StoreKind::Embedded => StoreBackend::Embedded(embedded_dir.to_owned()),
            #[cfg(not(feature = "embedded"))]
            StoreKind::Embedded => {
                let _ = embedded_dir;
                return Err(NO_EMBEDDED.into());
            }
            StoreKind::MongoDb => {
                let uri = agora_store_mongodb::uri_from_env()
                    .or_else(|| mongo_default.map(str::to_owned))
                    .ok_or("MONGODB_URI (or MONGO_URL) is not set (the mongodb store needs a connection string)")?;
                StoreBackend::MongoDb(agora_store_mongodb::MongoDeployment::connect(&uri).await?)
            }
            StoreKind::DynamoDb => {
                let config = agora_store_dynamodb::DynamoConfig::from_env();
                StoreBackend::DynamoDb { client: config.client().await?, local: config.endpoint.is_some(), table: config.table }
            }
        })
    }

    /// A Lambda function's backend: `AGORA_STORE` (`mongodb` unless set; `AGORA_EMBEDDED_DIR`,
    /// default `/tmp/agora`, for the embedded one).
    pub async fn from_env() -> Result<StoreBackend, BoxError> {
        let kind: StoreKind = env("AGORA_STORE").as_deref().unwrap_or("mongodb").parse()?;
        let embedded = std::path::PathBuf::from(env("AGORA_EMBEDDED_DIR").unwrap_or_else(|| "/tmp/agora".into()));
        StoreBackend::connect(kind, &embedded, None).await
    }

    /// Opens the database `db`. `namespace` replaces the MongoDB database name (the spec's, e.g.
    /// `voting_db`) or the DynamoDB table name, so that several servers can share one database
    /// server (tests).
    pub async fn open(&self, db: DatabaseSpec, namespace: Option<&str>) -> Result<Arc<dyn DocumentStore>, BoxError> {
        Ok(match self {
            #[cfg(feature = "embedded")]
            StoreBackend::Embedded(dir) => Arc::new(agora_store_embedded::EmbeddedStore::open_in(dir, db)?),
            #[cfg(not(feature = "embedded"))]
            StoreBackend::Embedded(_) => return Err(NO_EMBEDDED.into()),
            StoreBackend::MongoDb(deployment) => {
                let db = match namespace {
                    Some(name) => db.named(name.to_owned()),
                    None => db,
                };
                Arc::new(deployment.open(db).await?)
            }
            StoreBackend::DynamoDb { client, table, local } => {
                let store = agora_store_dynamodb::DynamoStore::with_client(client.clone(), namespace.unwrap_or(table), db)?;
                if *local {
                    store.ensure_table().await?;
                }
                Arc::new(store)
            }
        })
    }
}

/// Opens the database `db` on a backend of `kind` connected for it alone
/// ([`StoreBackend::connect`], [`StoreBackend::open`]).
pub async fn open_store(
    kind: StoreKind,
    embedded_dir: &Path,
    db: DatabaseSpec,
    namespace: Option<&str>,
) -> Result<Arc<dyn DocumentStore>, BoxError> {
    StoreBackend::connect(kind, embedded_dir, None).await?.open(db, namespace).await
}

/// A Lambda function's store: the database `db` on [`StoreBackend::from_env`]. A function
/// holding two databases opens both on one backend instead.
pub async fn store_from_env(db: DatabaseSpec) -> Result<Arc<dyn DocumentStore>, BoxError> {
    StoreBackend::from_env().await?.open(db, None).await
}

/// A Lambda function's store, the database `db` on [`StoreBackend::from_env`], added to
/// `warmup` ([`StoreBackend::warm`]).
pub async fn warm_store_from_env(db: DatabaseSpec, warmup: &mut Warmup) -> Result<Arc<dyn DocumentStore>, BoxError> {
    let backend = StoreBackend::from_env().await?;
    let store = backend.open(db, None).await?;
    warmup.add(backend.warm(&store));
    Ok(store)
}

impl StoreBackend {
    /// `store` (a database on this backend) as a client to warm during init: as many counter
    /// reads at once as one call of the store may make at once, so that the first request
    /// finds each connection it needs open. DynamoDB reads every shard of an index at once
    /// ([`agora_store_dynamodb::GSI_SHARDS`] `Query` calls, each on a connection of its own);
    /// MongoDB's check at connect has opened the pool's connection already, and the read
    /// reuses it; the embedded store has no connection.
    pub fn warm(&self, store: &Arc<dyn DocumentStore>) -> StoreWarm {
        let width = match self {
            StoreBackend::DynamoDb { .. } => agora_store_dynamodb::GSI_SHARDS as usize,
            StoreBackend::MongoDb(_) | StoreBackend::Embedded(_) => 1,
        };
        StoreWarm { store: store.clone(), width }
    }
}

/// A store as a client to warm during init ([`StoreBackend::warm`]): `width` counter reads at
/// once, which leave as many connections in the store's pool.
#[derive(Clone)]
pub struct StoreWarm {
    store: Arc<dyn DocumentStore>,
    width: usize,
}

/// The counter [`StoreWarm`] reads: never raised, so the read finds nothing.
pub const WARM_COUNTER: &str = "agora-warm-up";

#[async_trait::async_trait]
impl agora_aws::Warm for StoreWarm {
    fn target(&self) -> String {
        format!("store ({} connections)", self.width)
    }

    async fn warm(&self) -> Result<(), String> {
        let reads = (0..self.width.max(1)).map(|_| self.store.counter(WARM_COUNTER));
        futures::future::try_join_all(reads).await.map(drop).map_err(|e| e.to_string())
    }
}

/// The publishers of §5.1 that are not the local inbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublisherKind {
    EventBridge,
    Nats,
    Log,
}

impl std::str::FromStr for PublisherKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "eventbridge" => Ok(PublisherKind::EventBridge),
            "nats" => Ok(PublisherKind::Nats),
            "log" => Ok(PublisherKind::Log),
            other => Err(format!("unknown publisher {other:?} (expected eventbridge, nats or log)")),
        }
    }
}

/// Builds the publisher of `kind` from the environment; `event_source` is the service's
/// EventBridge `source` unless `AGORA_EVENT_SOURCE` says otherwise.
pub async fn open_publisher(kind: PublisherKind, event_source: &str) -> Result<Arc<dyn Publisher>, BoxError> {
    open_publisher_on(kind, event_source, &agora_aws::config::load().await, &mut Warmup::new()).await
}

/// [`open_publisher`] for a function: the EventBridge publisher's client built from the
/// function's `sdk` (one connection pool for all its clients), and added to `warmup`.
pub async fn open_publisher_on(
    kind: PublisherKind,
    event_source: &str,
    sdk: &aws_config::SdkConfig,
    warmup: &mut Warmup,
) -> Result<Arc<dyn Publisher>, BoxError> {
    Ok(match kind {
        PublisherKind::EventBridge => {
            let publisher = agora_aws::EventBridgePublisher::from_env(sdk, event_source);
            warmup.add(publisher.clone());
            Arc::new(publisher)
        }
        PublisherKind::Nats => {
            let url = env("NATS_URL").unwrap_or_else(|| "nats://127.0.0.1:4222".into());
            Arc::new(agora_nats::NatsPublisher::connect(&url).await?)
        }
        PublisherKind::Log => Arc::new(LogPublisher),
    })
}

/// Messages to the log only.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogPublisher;

#[async_trait::async_trait]
impl Publisher for LogPublisher {
    async fn publish(&self, address: &str, message: &serde_json::Value) -> Result<(), PublishError> {
        let event_type = message.get("event_type").and_then(serde_json::Value::as_str).unwrap_or("message");
        tracing::info!(recipient = address, event_type, payload = %message, "message published");
        Ok(())
    }
}
