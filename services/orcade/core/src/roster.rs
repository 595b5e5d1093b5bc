//! Appends to open jobs' rosters, in groups: an open job keeps its accepted applicants in its own
//! document (`bid_job_subject_ids`, §2.1), so each append rewrites the whole document, and a job
//! with a long roster is costly to append to one subject at a time. Concurrent bids on one job
//! append together instead (a group commit): the first of them starts a writer for the job; the
//! others queue their subjects; each write appends every subject queued while the previous one
//! ran, in one conditional update. Each bid still waits for its own subject's write, so a bid is
//! answered once its applicant is on the roster, as before.
//!
//! One write appends subjects none of which is on the roster yet (`$nin`); if one is (the repair
//! sweep or the evaluation put it back), the group falls back to one conditional append each.

use crate::error::OrcadeError;
use crate::repo::Repo;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

type Reply = oneshot::Sender<Result<bool, String>>;
/// The subjects waiting for a job's next write, each with where its answer goes.
type Queued = Vec<(String, Reply)>;

/// Groups concurrent roster appends per job (see the module docs).
#[derive(Clone)]
pub struct RosterAppends {
    repo: Repo,
    /// Jobs with a writer running (a job has an entry while its writer runs), and what waits
    /// for its next write.
    jobs: Arc<Mutex<HashMap<String, Queued>>>,
}

impl RosterAppends {
    pub fn new(repo: Repo) -> Self {
        Self { repo, jobs: Arc::default() }
    }

    /// Appends `subject` to the open job's roster unless it is there already; returns whether
    /// this call appended it (false: on the roster already, or the job is gone).
    pub async fn append(&self, bid_job_id: &str, subject: &str) -> Result<bool, OrcadeError> {
        let (tx, rx) = oneshot::channel();
        let start_writer = {
            let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
            let start = !jobs.contains_key(bid_job_id);
            jobs.entry(bid_job_id.to_owned()).or_default().push((subject.to_owned(), tx));
            start
        };
        if start_writer {
            // Its own task: a writer outlives the bid that started it while others queue.
            tokio::spawn(self.clone().write_until_drained(bid_job_id.to_owned()));
        }
        match rx.await {
            Ok(result) => result.map_err(OrcadeError::internal),
            Err(_) => Err(OrcadeError::internal("the roster writer stopped before this append")),
        }
    }

    /// Writes the job's queued subjects, group by group, until none is left.
    async fn write_until_drained(self, bid_job_id: String) {
        loop {
            let group = {
                let mut jobs = self.jobs.lock().unwrap_or_else(|p| p.into_inner());
                let Some(waiting) = jobs.get_mut(&bid_job_id) else { return };
                if waiting.is_empty() {
                    jobs.remove(&bid_job_id);
                    return;
                }
                std::mem::take(waiting)
            };
            self.write(&bid_job_id, group).await;
        }
    }

    async fn write(&self, bid_job_id: &str, group: Queued) {
        let mut subjects: Vec<&str> = group.iter().map(|(s, _)| s.as_str()).collect();
        subjects.sort_unstable();
        subjects.dedup();
        match self.repo.append_subjects(bid_job_id, &subjects).await {
            Ok(true) => {
                for (_, reply) in group {
                    let _ = reply.send(Ok(true));
                }
            }
            // One of them is on the roster already (or the job is gone): one at a time.
            Ok(false) => {
                for (subject, reply) in group {
                    let _ = reply.send(self.repo.append_subject(bid_job_id, &subject).await.map_err(|e| e.to_string()));
                }
            }
            Err(e) => {
                let e = e.to_string();
                for (_, reply) in group {
                    let _ = reply.send(Err(e.clone()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_orcade_schema::storage::BID_JOBS;
    use agora_orcade_schema::ORCADE_DB;
    use agora_store::memory::MemoryStore;
    use agora_store::{to_json, DocumentStore};
    use serde_json::{json, Value};

    async fn roster(store: &MemoryStore) -> Vec<String> {
        let doc: Value = serde_json::from_str(store.get(BID_JOBS, "j").await.unwrap().unwrap().get()).unwrap();
        serde_json::from_value(doc["bid_job_subject_ids"].clone()).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_appends_land_once_each_and_a_subject_on_the_roster_is_not_appended_again() {
        let store = Arc::new(MemoryStore::new(ORCADE_DB).unwrap());
        store.insert(vec![(BID_JOBS, to_json(&json!({"bid_job_id": "j", "bid_job_subject_ids": ["s-00"]})))]).await.unwrap();
        let appends = RosterAppends::new(Repo::new(store.clone()));
        let calls = (0..64).map(|i| {
            let appends = appends.clone();
            tokio::spawn(async move { appends.append("j", &format!("s-{:02}", i % 48)).await.unwrap() })
        });
        let appended: Vec<bool> = futures::future::join_all(calls).await.into_iter().map(Result::unwrap).collect();
        // s-00 was there; s-01..s-47 are asked for once or twice each: appended once each.
        assert_eq!(appended.iter().filter(|a| **a).count(), 47, "{appended:?}");
        let mut on_roster = roster(&store).await;
        on_roster.sort();
        assert_eq!(on_roster, (0..48).map(|i| format!("s-{i:02}")).collect::<Vec<_>>());
        assert!(appends.jobs.lock().unwrap().is_empty(), "every writer ended");
        assert!(!appends.append("gone", "s-01").await.unwrap(), "no such job");
    }
}
