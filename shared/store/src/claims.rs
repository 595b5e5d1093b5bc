//! Leased once-only claims: "start once", "trigger once", "evaluate once", whatever the timing
//! and however many instances race, with a lease where a crash must not block the work forever.
//!
//! A claim is a document of the collection [`COLLECTION`] (`agora_claims`, keyed `claim_id`),
//! which every service's [`DatabaseSpec`](crate::DatabaseSpec) lists:
//!
//! ```json
//! {"claim_id": "evaluate:task_1", "claimed_at": "2026-10-22T10:00:00.481203", "expires_at": "2026-10-22T10:05:00.481203"}
//! ```
//!
//! Taking one inserts that document; when it exists already, the claim is taken over only if
//! its lease has run out (`expires_at < now`, in one conditional write, so that one taker wins);
//! `expires_at: null` never expires. Datetimes are written as every stored datetime
//! ([`agora_schema::time::format_datetime`]: naive UTC, microseconds when non-zero), which orders
//! them as text. Claims belong to their
//! database: two databases' claims of the same key are independent.

use crate::{Change, CollectionSpec, DocumentStore, StoreError};
use agora_filter::Filter;
use agora_schema::time::format_datetime;
use chrono::{DateTime, Utc};
use serde_json::json;
use std::sync::Arc;

/// The claims' collection: one document per claimed piece of work, keyed `claim_id`.
pub const COLLECTION: CollectionSpec = CollectionSpec { name: "agora_claims", key: "claim_id", unique: &[], indexed: &[] };

/// What a claim attempt found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// This caller holds the claim now.
    Won,
    /// Someone else holds it.
    Held,
}

/// The claims of one database. Cheap to clone.
#[derive(Clone)]
pub struct Claims {
    store: Arc<dyn DocumentStore>,
}

impl std::fmt::Debug for Claims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Claims").finish_non_exhaustive()
    }
}

impl Claims {
    /// The claims of the database `store` holds (its spec must list [`COLLECTION`]).
    pub fn new(store: Arc<dyn DocumentStore>) -> Claims {
        Claims { store }
    }

    /// Takes the claim `key` at `now`: inserts it, or takes it over when its lease (if any) has
    /// expired. `lease = None` makes a claim that never expires.
    pub async fn claim(&self, key: &str, now: DateTime<Utc>, lease: Option<chrono::Duration>) -> Result<Claim, StoreError> {
        let expires_at = lease.map(|l| format_datetime(&(now + l)));
        let doc = json!({"claim_id": key, "claimed_at": format_datetime(&now), "expires_at": expires_at});
        match self.store.insert(vec![(COLLECTION.name, crate::to_json(&doc))]).await {
            Ok(()) => Ok(Claim::Won),
            Err(StoreError::Duplicate { .. }) => {
                // Expired leases can be taken over; a claim without a lease (null) never expires.
                let expired = Filter::must(json!({"expires_at": {"$lt": format_datetime(&now)}}));
                let taken = self.store.update(COLLECTION.name, key, &expired, &Change::set(&doc)).await?;
                Ok(if taken { Claim::Won } else { Claim::Held })
            }
            Err(e) => Err(e),
        }
    }

    /// Gives the claim `key` back so that a later attempt can take it. Returns whether it was
    /// held.
    pub async fn release(&self, key: &str) -> Result<bool, StoreError> {
        self.store.delete(COLLECTION.name, key, &Filter::all()).await
    }

    /// Whether the claim `key` is held (expired or not).
    pub async fn held(&self, key: &str) -> Result<bool, StoreError> {
        Ok(self.store.get(COLLECTION.name, key).await?.is_some())
    }

    /// Whether the claim `key` is held at `now` with its lease not run out: exactly when
    /// [`Claims::claim`] at `now` would find it [`Claim::Held`].
    pub async fn live(&self, key: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        let Some(doc) = self.store.get(COLLECTION.name, key).await? else { return Ok(false) };
        #[derive(serde::Deserialize)]
        struct Lease {
            #[serde(default)]
            expires_at: Option<String>,
        }
        let lease: Lease = serde_json::from_str(doc.get())
            .map_err(|e| StoreError::InvalidDocument { collection: COLLECTION.name.into(), reason: format!("claim {key}: {e}") })?;
        Ok(lease.expires_at.is_none_or(|at| at.as_str() >= format_datetime(&now).as_str()))
    }
}
