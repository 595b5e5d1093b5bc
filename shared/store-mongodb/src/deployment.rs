//! [`MongoDeployment`]: one client (one connection pool) on a deployment checked to run
//! transactions, on which any number of databases open.

use crate::error::backend;
use crate::store::{check_transactions, uri_from_env, MongoStore, MONGODB_URI_ENV, MONGO_URL_ENV};
use agora_store::{DatabaseSpec, StoreError};
use mongodb::options::ClientOptions;
use mongodb::Client;

/// A MongoDB deployment, connected and checked once: opening a database on it
/// ([`MongoDeployment::open`]) costs no new connection and no second check. A process that
/// holds several databases (a Lambda function reading two services' data, the local server)
/// opens them all on one deployment. Cheap to clone.
#[derive(Clone)]
pub struct MongoDeployment {
    client: Client,
}

impl std::fmt::Debug for MongoDeployment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MongoDeployment").finish_non_exhaustive()
    }
}

impl MongoDeployment {
    /// Connects to the deployment at `uri` (`mongodb://` or `mongodb+srv://`, any driver option
    /// in the query string). Fails when the server cannot be reached and when the deployment
    /// cannot run transactions (a standalone `mongod`), which multi-document inserts need.
    pub async fn connect(uri: &str) -> Result<MongoDeployment, StoreError> {
        let mut options = ClientOptions::parse(uri).await.map_err(|e| backend("connection string", &e))?;
        if options.app_name.is_none() {
            options.app_name = Some("agora".to_string());
        }
        let client = Client::with_options(options).map_err(|e| backend("client", &e))?;
        MongoDeployment::with_client(client).await
    }

    /// [`MongoDeployment::connect`] to the connection string in `MONGODB_URI` (else `MONGO_URL`).
    pub async fn connect_from_env() -> Result<MongoDeployment, StoreError> {
        match uri_from_env() {
            Some(uri) => MongoDeployment::connect(&uri).await,
            None => Err(StoreError::Backend(format!(
                "{MONGODB_URI_ENV} (or {MONGO_URL_ENV}) is not set: it must hold the MongoDB connection string"
            ))),
        }
    }

    /// The deployment behind a client the caller made, checked as [`MongoDeployment::connect`]
    /// checks it.
    pub async fn with_client(client: Client) -> Result<MongoDeployment, StoreError> {
        check_transactions(&client).await?;
        Ok(MongoDeployment { client })
    }

    /// The driver's client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Opens the database named `db.name` with `db`'s collections, their indexes ensured (see
    /// the crate documentation: one read when the database's index record matches). Fails when
    /// the name is not a valid database name ([`DatabaseSpec::check`]) or a collection name is
    /// the store's own, and when the indexes cannot be created.
    pub async fn open(&self, db: DatabaseSpec) -> Result<MongoStore, StoreError> {
        MongoStore::open_on(self.client.clone(), db).await
    }
}
