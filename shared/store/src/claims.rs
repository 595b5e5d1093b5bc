//! Leased once-only claims: "start once", "trigger once", "evaluate once", whatever the timing
//! and however many instances race, with a lease where a crash must not block the work forever.
//!
//! A claim is a document of the collection [`COLLECTION`] (`agora_claims`, keyed `claim_id`),
//! which every service's [`DatabaseSpec`](crate::DatabaseSpec) lists:
//!
//! ```json
//! {"claim_id": "evaluate:task_1", "claimed_at": "2026-10-22T10:00:00.481203", "expires_at": "2026-10-22T10:05:00.481203",
//!  "holder": "9b1f…", "instance": "4c07…"}
//! ```
//!
//! A holder that works longer than a lease keeps its claim alive ([`Claims::renew`], with the
//! [`Lease`] [`Claims::take`] gave it): a short lease then bounds how long a crashed holder
//! blocks the work. [`Claims::settle`] gives a claim a long lease once its work is handed on
//! (a queue holds it).
//!
//! Each claim taken names the process that took it (`instance`, [`instance`]) until it is
//! settled, when a queue holds its work and no process does. A server that knows a process of
//! its own is gone (the local server, restarted on the same data after a `kill -9`) ends the
//! leases that process held ([`Claims::run_out_instances`]), so that the work they guard resumes
//! at once instead of a lease later; where no one can know that (several Lambda instances on one
//! store), leases stay the rule.
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
use std::sync::{Arc, OnceLock};

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

/// A claim this caller holds: its key and the holder token that [`Claims::renew`] checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub key: String,
    holder: String,
}

/// What [`Claims::state`] found of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimState {
    /// Nobody holds it.
    Free,
    /// Held, and never expires.
    Settled,
    /// Held, with its lease running.
    Live,
    /// Held, with its lease run out: its holder is gone or late, and anyone may take it over.
    Expired,
}

/// This process's instance: a random id, the same for every claim the process takes (the
/// `instance` of its claim documents), so that a later run can tell which claims it held.
pub fn instance() -> &'static str {
    static INSTANCE: OnceLock<String> = OnceLock::new();
    INSTANCE.get_or_init(|| uuid::Uuid::new_v4().simple().to_string())
}

/// A record kept in the claims collection: a claim that never expires, written by `holder` at
/// `claimed_at`, with `fields` beside the claim's own. For what a service writes once and reads
/// by key (an evaluation's decision, a delivery's mark), which no route serves.
pub fn record(key: &str, holder: &str, claimed_at: &str, fields: serde_json::Value) -> crate::Json {
    let mut doc = json!({"claim_id": key, "claimed_at": claimed_at, "expires_at": null, "holder": holder});
    if let (serde_json::Value::Object(doc), serde_json::Value::Object(fields)) = (&mut doc, fields) {
        doc.extend(fields);
    }
    crate::to_json(&doc)
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
        Ok(if self.take(key, now, lease).await?.is_some() { Claim::Won } else { Claim::Held })
    }

    /// [`Claims::claim`], returning the [`Lease`] to renew it with when won.
    pub async fn take(&self, key: &str, now: DateTime<Utc>, lease: Option<chrono::Duration>) -> Result<Option<Lease>, StoreError> {
        let holder = uuid::Uuid::new_v4().simple().to_string();
        let expires_at = lease.map(|l| format_datetime(&(now + l)));
        let doc = json!({"claim_id": key, "claimed_at": format_datetime(&now), "expires_at": expires_at, "holder": holder, "instance": instance()});
        let won = match self.store.insert(vec![(COLLECTION.name, crate::to_json(&doc))]).await {
            Ok(()) => true,
            Err(StoreError::Duplicate { .. }) => {
                // Expired leases can be taken over; a claim without a lease (null) never expires.
                let expired = Filter::must(json!({"expires_at": {"$lt": format_datetime(&now)}}));
                self.store.update(COLLECTION.name, key, &expired, &Change::set(&doc)).await?
            }
            Err(e) => return Err(e),
        };
        Ok(won.then(|| Lease { key: key.to_owned(), holder }))
    }

    /// Extends a claim this caller still holds to `now + lease`. Returns false when it was
    /// taken over (its lease ran out first) or released: the caller no longer holds it.
    pub async fn renew(&self, held: &Lease, now: DateTime<Utc>, lease: chrono::Duration) -> Result<bool, StoreError> {
        let ours = Filter::must(json!({"holder": held.holder}));
        let change = Change::set(&json!({"expires_at": format_datetime(&(now + lease))}));
        self.store.update(COLLECTION.name, &held.key, &ours, &change).await
    }

    /// Runs `work` while holding `held`, renewing its lease to `now() + lease` every third of
    /// it, so that a short lease bounds how long a crashed holder blocks the work, not how long
    /// the work may take. A renewal that fails (the claim was taken over after its lease ran
    /// out, or the store failed) is logged and `work` goes on: what it writes must be
    /// conditional on its own state, as a claim no longer guards it.
    pub async fn while_held<F: std::future::Future>(
        &self,
        held: &Lease,
        lease: chrono::Duration,
        now: impl Fn() -> DateTime<Utc>,
        work: F,
    ) -> F::Output {
        let every = (lease / 3).to_std().unwrap_or(std::time::Duration::from_secs(1)).max(std::time::Duration::from_millis(10));
        let renewals = async {
            loop {
                tokio::time::sleep(every).await;
                match self.renew(held, now(), lease).await {
                    Ok(true) => {}
                    Ok(false) => tracing::warn!(claim = %held.key, "claim lost: its lease ran out and another holder took it"),
                    Err(e) => tracing::warn!(claim = %held.key, error = %e, "claim not renewed"),
                }
            }
        };
        tokio::select! {
            output = work => output,
            _ = renewals => unreachable!("the renewals never end"),
        }
    }

    /// Gives the claim `key` the lease `now + lease`, whoever holds it: its work has been handed
    /// on (a queue holds it now) and is trusted there that long. No process holds it any more
    /// (its `instance` is cleared): the end of the process that settled it does not end it.
    /// Returns whether it was held.
    pub async fn settle(&self, key: &str, now: DateTime<Utc>, lease: chrono::Duration) -> Result<bool, StoreError> {
        let change = Change::set(&json!({"expires_at": format_datetime(&(now + lease)), "instance": null}));
        self.store.update(COLLECTION.name, key, &Filter::all(), &change).await
    }

    /// The value an earlier holder of `held`'s claim noted under `field`, with `true`; else
    /// `fresh()`, noted there now (while this caller still holds the claim), with `false`. For
    /// work that must be repeated the same way by whoever takes the claim over after its holder
    /// died (a delegate call's ids, noted before the call): a takeover keeps the noted fields.
    /// `None`: the claim was taken over meanwhile, and is no longer this caller's.
    pub async fn noted_or(&self, held: &Lease, field: &str, fresh: impl FnOnce() -> String) -> Result<Option<(String, bool)>, StoreError> {
        let Some(doc) = self.store.get(COLLECTION.name, &held.key).await? else { return Ok(None) };
        let record: serde_json::Value = serde_json::from_str(doc.get()).unwrap_or_default();
        if record.get("holder").and_then(serde_json::Value::as_str) != Some(held.holder.as_str()) {
            return Ok(None);
        }
        if let Some(noted) = record.get(field).and_then(serde_json::Value::as_str) {
            return Ok(Some((noted.to_owned(), true)));
        }
        let value = fresh();
        let ours = Filter::must(json!({"holder": held.holder}));
        let noted = self.store.update(COLLECTION.name, &held.key, &ours, &Change::set(&json!({ field: value }))).await?;
        Ok(noted.then_some((value, false)))
    }

    /// Ends the claim's lease at `now`, keeping what it notes: the next attempt takes it over at
    /// once (see [`Claims::noted_or`]).
    pub async fn run_out(&self, key: &str, now: DateTime<Utc>) -> Result<bool, StoreError> {
        self.settle(key, now - chrono::Duration::milliseconds(1), chrono::Duration::zero()).await
    }

    /// Ends at `now` the lease of every claim taken by one of `instances` (processes known to be
    /// gone) whose lease is live: the next attempt at its work takes it over at once, finding
    /// what it notes ([`Claims::noted_or`]). A claim without a lease (`expires_at: null`) is
    /// settled and stays so, as does one settled or taken over since (each write is conditional
    /// on the claim still being the gone instance's and live). Reads every claim of those
    /// instances (the collection has no index on `instance`): for a server's start-up, not for
    /// a request. Returns the keys of the claims it ended.
    pub async fn run_out_instances(&self, instances: &[String], now: DateTime<Utc>) -> Result<Vec<String>, StoreError> {
        if instances.is_empty() {
            return Ok(Vec::new());
        }
        let live = Filter::must(json!({"instance": {"$in": instances}, "expires_at": {"$gte": format_datetime(&now)}}));
        let change = Change::set(&json!({"expires_at": format_datetime(&(now - chrono::Duration::milliseconds(1)))}));
        let mut ended = Vec::new();
        for doc in self.store.find(COLLECTION.name, &live).await? {
            #[derive(serde::Deserialize)]
            struct Key {
                claim_id: String,
            }
            let Key { claim_id } = serde_json::from_str(doc.get()).map_err(|e| StoreError::InvalidDocument {
                collection: COLLECTION.name.into(),
                reason: format!("a claim without its key: {e}"),
            })?;
            if self.store.update(COLLECTION.name, &claim_id, &live, &change).await? {
                ended.push(claim_id);
            }
        }
        Ok(ended)
    }

    /// Whether the claim `key` is free, settled, live or expired at `now`.
    pub async fn state(&self, key: &str, now: DateTime<Utc>) -> Result<ClaimState, StoreError> {
        let Some(doc) = self.store.get(COLLECTION.name, key).await? else { return Ok(ClaimState::Free) };
        #[derive(serde::Deserialize)]
        struct Expiry {
            #[serde(default)]
            expires_at: Option<String>,
        }
        let expiry: Expiry = serde_json::from_str(doc.get())
            .map_err(|e| StoreError::InvalidDocument { collection: COLLECTION.name.into(), reason: format!("claim {key}: {e}") })?;
        Ok(match expiry.expires_at {
            None => ClaimState::Settled,
            Some(at) if at.as_str() >= format_datetime(&now).as_str() => ClaimState::Live,
            Some(_) => ClaimState::Expired,
        })
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
        Ok(matches!(self.state(key, now).await?, ClaimState::Settled | ClaimState::Live))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryStore;
    use crate::DatabaseSpec;

    #[tokio::test]
    async fn a_noted_value_is_kept_for_whoever_takes_the_claim_over() {
        const DB: DatabaseSpec = DatabaseSpec::new("claims_test", &[COLLECTION]);
        let claims = Claims::new(Arc::new(MemoryStore::new(DB).expect("store")));
        let (now, lease) = (Utc::now(), chrono::Duration::seconds(60));
        let first = claims.take("deliver:d", now, Some(lease)).await.unwrap().expect("won");
        assert_eq!(claims.noted_or(&first, "call_id", || "c1".into()).await.unwrap(), Some(("c1".into(), false)));
        assert_eq!(claims.noted_or(&first, "call_id", || "c2".into()).await.unwrap(), Some(("c1".into(), true)), "noted once");
        // The holder dies; its lease runs out at once; the next holder finds the note.
        assert!(claims.run_out("deliver:d", now).await.unwrap());
        let second = claims.take("deliver:d", now, Some(lease)).await.unwrap().expect("taken over");
        assert_eq!(claims.noted_or(&second, "call_id", || "c3".into()).await.unwrap(), Some(("c1".into(), true)));
        assert_eq!(claims.noted_or(&first, "call_id", || "c4".into()).await.unwrap(), None, "no longer the first's");
    }

    #[tokio::test]
    async fn the_live_leases_of_a_gone_instance_run_out_and_nothing_else() {
        const DB: DatabaseSpec = DatabaseSpec::new("claims_test", &[COLLECTION]);
        let store: Arc<dyn DocumentStore> = Arc::new(MemoryStore::new(DB).expect("store"));
        let claims = Claims::new(store.clone());
        let (now, lease) = (Utc::now(), chrono::Duration::seconds(60));
        // This process plays the gone instance: a live lease, a settled claim, a claim without
        // a lease, and a lease run out already.
        let held = claims.take("evaluate:live", now, Some(lease)).await.unwrap().expect("won");
        claims.take("trigger:settled", now, Some(lease)).await.unwrap().expect("won");
        assert!(claims.settle("trigger:settled", now, chrono::Duration::days(1)).await.unwrap());
        claims.take("start:forever", now, None).await.unwrap().expect("won");
        claims.take("deliver:expired", now - lease * 2, Some(lease)).await.unwrap().expect("won");
        // Another process's live lease.
        let other = json!({"claim_id": "evaluate:other", "claimed_at": format_datetime(&now), "expires_at": format_datetime(&(now + lease)), "holder": "h", "instance": "someone-else"});
        store.insert(vec![(COLLECTION.name, crate::to_json(&other))]).await.unwrap();
        let stored = |key: &'static str| {
            let store = store.clone();
            async move { serde_json::from_str::<serde_json::Value>(store.get(COLLECTION.name, key).await.unwrap().unwrap().get()).unwrap() }
        };
        assert_eq!(stored("evaluate:live").await["instance"], instance());
        assert_eq!(stored("trigger:settled").await["instance"], serde_json::Value::Null, "a settled claim is no process's");

        assert_eq!(claims.run_out_instances(&[], now).await.unwrap(), Vec::<String>::new());
        assert_eq!(claims.run_out_instances(&["gone".into(), instance().to_owned()], now).await.unwrap(), ["evaluate:live"]);
        assert_eq!(claims.state("evaluate:live", now).await.unwrap(), ClaimState::Expired);
        assert_eq!(claims.state("trigger:settled", now).await.unwrap(), ClaimState::Live);
        assert_eq!(claims.state("start:forever", now).await.unwrap(), ClaimState::Settled);
        assert_eq!(claims.state("evaluate:other", now).await.unwrap(), ClaimState::Live);
        // What the gone holder noted is kept for the next one, who takes the claim over at once.
        assert_eq!(stored("evaluate:live").await["holder"], held.holder);
        assert!(claims.take("evaluate:live", now, Some(lease)).await.unwrap().is_some(), "taken over at once");
        assert_eq!(claims.run_out_instances(&["gone".into()], now).await.unwrap(), Vec::<String>::new());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_claim_held_while_its_work_runs_outlives_its_lease_then_runs_out() {
        const DB: DatabaseSpec = DatabaseSpec::new("claims_test", &[COLLECTION]);
        let claims = Claims::new(Arc::new(MemoryStore::new(DB).expect("store")));
        let lease = chrono::Duration::milliseconds(300);
        let held = claims.take("evaluate:task_w", Utc::now(), Some(lease)).await.unwrap().expect("won");
        let other = claims.clone();
        let work = async move {
            // Three leases long: renewed meanwhile, nobody else can take it.
            for _ in 0..6 {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                assert_eq!(other.take("evaluate:task_w", Utc::now(), Some(lease)).await.unwrap(), None, "held while working");
            }
            "done"
        };
        assert_eq!(claims.while_held(&held, lease, Utc::now, work).await, "done");
        // No longer renewed: it runs out within a lease.
        tokio::time::sleep(std::time::Duration::from_millis(450)).await;
        assert_eq!(claims.state("evaluate:task_w", Utc::now()).await.unwrap(), ClaimState::Expired);
        assert!(claims.take("evaluate:task_w", Utc::now(), Some(lease)).await.unwrap().is_some());
    }
}
