//! Recovery from a restart on one machine. Work a `kill -9` interrupted (an evaluation, a
//! delivery, an assignment) is guarded by a leased claim its worker held
//! ([`agora_store::claims`]): left alone, it resumes only once that lease runs out (a minute by
//! default). But the local server knows what no Lambda function can: its previous run is gone.
//! So each run records itself (its claims' [`instance`]) in the server's own database
//! ([`RUNS`], beside the work queues), and at start-up, before the queues replay their work,
//! ends the live leases the previous runs held in each service's database
//! ([`Recovery::release_claims`]). The replayed work then takes its claims over at once, and a
//! task interrupted mid-evaluation completes within a second or two of the restart.
//!
//! Only claims that name a previous run and whose lease is live are touched: settled claims
//! (`expires_at: null`, or settled on a queue, which clears their instance) are not. The runs'
//! records go once every service's database has been through it ([`Recovery::finish`]); a start
//! that fails before keeps them, for the next start to do it again.
//!
//! Two servers running at once on the same data would end each other's leases at start-up: the
//! work is idempotent (a claim's writes are conditional on its own state), so that costs a
//! repeated hook or delegate call, not a wrong result; but a server's data is its own.
//!
//! ```json
//! {"run_id": "4c07…", "started_at": "2026-10-22T10:00:00.481203", "pid": 41233}
//! ```

use agora_filter::Filter;
use agora_schema::time::format_datetime;
use agora_store::claims::{instance, Claims};
use agora_store::{to_json, CollectionSpec, DocumentStore, StoreError};
use chrono::Utc;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The local server's runs that have not finished starting, or are the last one started.
pub const RUNS: &str = "agora_runs";

/// [`RUNS`], keyed by the run's claims' instance (a collection of [`crate::queue::WORK_DB`]).
pub const RUNS_COLLECTION: CollectionSpec = CollectionSpec { name: RUNS, key: "run_id", unique: &[], indexed: &[] };

/// This run's recovery from the previous ones.
pub struct Recovery {
    work: Arc<dyn DocumentStore>,
    /// The instances of the runs before this one.
    previous: Vec<String>,
    /// Whether ending a database's claims failed (the runs' records are then kept).
    failed: AtomicBool,
}

impl Recovery {
    /// Reads the runs recorded in `work` (the server's own database) before this one, then
    /// records this one.
    pub async fn begin(work: Arc<dyn DocumentStore>) -> Result<Recovery, StoreError> {
        let own = instance();
        let mut previous = Vec::new();
        for doc in work.find(RUNS, &Filter::all()).await? {
            match serde_json::from_str::<serde_json::Value>(doc.get()).ok().and_then(|run| run["run_id"].as_str().map(str::to_owned)) {
                // (This process started a server on this data before: its claims are not ended
                // by itself.)
                Some(run) if run != own => previous.push(run),
                Some(_) => {}
                None => tracing::warn!(doc = doc.get(), "unreadable run record skipped"),
            }
        }
        let run = json!({"run_id": own, "started_at": format_datetime(&Utc::now()), "pid": std::process::id()});
        match work.insert(vec![(RUNS, to_json(&run))]).await {
            Ok(()) | Err(StoreError::Duplicate { .. }) => {}
            Err(e) => return Err(e),
        }
        if !previous.is_empty() {
            tracing::info!(runs = ?previous, "ending the leases the previous run held");
        }
        Ok(Recovery { work, previous, failed: AtomicBool::new(false) })
    }

    /// The instances of the runs before this one.
    pub fn previous(&self) -> &[String] {
        &self.previous
    }

    /// Ends the live leases the previous runs held in `store` (the service database `database`),
    /// before its queues replay their work. A failure is logged: those claims keep their leases,
    /// and the work they guard waits for them as it would on AWS.
    pub async fn release_claims(&self, database: &str, store: Arc<dyn DocumentStore>) {
        if self.previous.is_empty() {
            return;
        }
        match Claims::new(store).run_out_instances(&self.previous, Utc::now()).await {
            Ok(ended) if ended.is_empty() => {}
            Ok(ended) => tracing::info!(database, claims = ?ended, "leases of the previous run ended"),
            Err(e) => {
                self.failed.store(true, Ordering::SeqCst);
                tracing::warn!(database, error = %e, "the previous run's leases could not be ended; the work they guard resumes when they run out");
            }
        }
    }

    /// Forgets the previous runs, once every service's database has been through
    /// [`Recovery::release_claims`] (unless one failed: the next start tries again).
    pub async fn finish(&self) {
        if self.failed.load(Ordering::SeqCst) {
            return;
        }
        for run in &self.previous {
            if let Err(e) = self.work.delete(RUNS, run, &Filter::all()).await {
                tracing::warn!(run, error = %e, "record of a previous run not removed; the next start looks at its claims again");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::WORK_DB;
    use agora_store::claims::{ClaimState, COLLECTION};
    use agora_store::memory::MemoryStore;
    use agora_store::DatabaseSpec;

    const SERVICE_DB: DatabaseSpec = DatabaseSpec::new("service", &[COLLECTION]);

    /// A claim held by the run `run`, live for a minute.
    async fn held_by(store: &dyn DocumentStore, key: &str, run: &str) {
        let now = Utc::now();
        let claim = json!({"claim_id": key, "claimed_at": format_datetime(&now), "expires_at": format_datetime(&(now + chrono::Duration::minutes(1))), "holder": "h", "instance": run});
        store.insert(vec![(COLLECTION.name, to_json(&claim))]).await.unwrap();
    }

    async fn runs(work: &dyn DocumentStore) -> Vec<String> {
        let docs = work.find(RUNS, &Filter::all()).await.unwrap();
        docs.iter().map(|d| serde_json::from_str::<serde_json::Value>(d.get()).unwrap()["run_id"].as_str().unwrap().to_owned()).collect()
    }

    #[tokio::test]
    async fn a_start_ends_the_leases_of_the_runs_before_it_and_then_forgets_them() {
        let work: Arc<dyn DocumentStore> = Arc::new(MemoryStore::new(WORK_DB).unwrap());
        let service: Arc<dyn DocumentStore> = Arc::new(MemoryStore::new(SERVICE_DB).unwrap());
        // The first run ever: nothing before it.
        let first = Recovery::begin(work.clone()).await.unwrap();
        assert!(first.previous().is_empty());
        assert_eq!(runs(work.as_ref()).await, [instance()]);
        // Two earlier runs that crashed (one of them while starting), and another server's claim.
        work.insert(vec![(RUNS, to_json(&json!({"run_id": "run-a"}))), (RUNS, to_json(&json!({"run_id": "run-b"})))]).await.unwrap();
        held_by(service.as_ref(), "evaluate:a", "run-a").await;
        held_by(service.as_ref(), "deliver:b", "run-b").await;
        held_by(service.as_ref(), "evaluate:c", "another-server").await;

        let recovery = Recovery::begin(work.clone()).await.unwrap();
        let mut previous = recovery.previous().to_vec();
        previous.sort();
        assert_eq!(previous, ["run-a", "run-b"], "not this process's own run");
        recovery.release_claims("service", service.clone()).await;
        let claims = Claims::new(service.clone());
        assert_eq!(claims.state("evaluate:a", Utc::now()).await.unwrap(), ClaimState::Expired);
        assert_eq!(claims.state("deliver:b", Utc::now()).await.unwrap(), ClaimState::Expired);
        assert_eq!(claims.state("evaluate:c", Utc::now()).await.unwrap(), ClaimState::Live);
        recovery.finish().await;
        assert_eq!(runs(work.as_ref()).await, [instance()], "only this run is left on record");
    }
}
