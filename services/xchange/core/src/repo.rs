//! Typed access to one exchange's database (`exchange_{EXCHANGE_ID}`) over the generic
//! [`DocumentStore`]: the one place that knows the collections, the filters the flows use and
//! how documents decode.
//!
//! Besides §2's two collections, three kinds of internal record live in the platform's claims
//! collection (never served by a route):
//!
//! * `bidding:<task_id>` and `bid-job:<bid_job_id>`: a bidding task's bid job (its id, chosen
//!   once, before the job is created, so that a repeated attempt creates the same job) and its
//!   time limit; the second finds the task from Orcade's resolution event. Inserted together.
//!   The first also gets `closed_seen_at` when a look through Orcade §3's routes alone first
//!   finds the job closed with no winner (see [`crate::flows::bidding`]).
//! * `round-robin`: the subject `builtin:round-robin` chose last, swapped by a conditional
//!   write, so that concurrent tasks on any process go to consecutive subjects.

use crate::error::XchangeError;
use agora_filter::Filter;
use agora_store::claims::{Claims, COLLECTION as CLAIMS_COLLECTION};
use agora_store::{to_json, Change, DocStream, DocumentStore, Json, Page, StoreError};
use agora_xchange_schema::{ExchangeSubject, ExchangeTask, TaskStatus, SUBJECTS, TASKS};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

const CLAIMS: &str = CLAIMS_COLLECTION.name;
const ROUND_ROBIN: &str = "round-robin";

/// A bidding task's bid job and time limit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct BiddingRecord {
    pub task_id: String,
    pub bid_job_id: String,
    /// When the bidding time limit ends (naive UTC, six fraction digits).
    pub deadline: String,
    /// When a look first found the job closed with no winner through Orcade §3's routes alone
    /// ([`crate::BidOutcome::ClosedWithoutWinner`]); the grace periods count from it.
    #[serde(default)]
    pub closed_seen_at: Option<String>,
}

impl BiddingRecord {
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        agora_schema::time::parse_datetime_str(&self.deadline)
    }

    pub fn closed_seen_at(&self) -> Option<DateTime<Utc>> {
        self.closed_seen_at.as_deref().and_then(agora_schema::time::parse_datetime_str)
    }
}

/// A time as the records carry it: naive UTC, always six fraction digits (ordered as text).
pub fn micros(dt: &DateTime<Utc>) -> String {
    dt.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()
}

fn record(key: &str, now: DateTime<Utc>, fields: Value) -> Json {
    agora_store::claims::record(key, "xchange", &micros(&now), fields)
}

fn decode<T: DeserializeOwned>(doc: &Json) -> Result<T, XchangeError> {
    Ok(serde_json::from_str(doc.get())?)
}

/// The filter "the task's status is one of `statuses`".
fn status_in(statuses: &[TaskStatus]) -> Filter {
    let names: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
    Filter::must(json!({"task_assignment_status": {"$in": names}}))
}

#[derive(Clone)]
pub struct Repo {
    store: Arc<dyn DocumentStore>,
}

impl Repo {
    pub fn new(store: Arc<dyn DocumentStore>) -> Self {
        Self { store }
    }

    /// The claims in this database's claims collection: the lease a worker holds on a task
    /// while it assigns it.
    pub fn claims(&self) -> Claims {
        Claims::new(self.store.clone())
    }

    // Tasks.

    pub async fn insert_task(&self, task: &ExchangeTask) -> Result<(), StoreError> {
        self.store.insert(vec![(TASKS, to_json(task))]).await
    }

    pub async fn task_raw(&self, id: &str) -> Result<Option<Json>, XchangeError> {
        Ok(self.store.get(TASKS, id).await?)
    }

    pub async fn task(&self, id: &str) -> Result<Option<ExchangeTask>, XchangeError> {
        self.task_raw(id).await?.map(|d| decode(&d)).transpose()
    }

    /// Applies `change` to the task if its status is one of `from`; false when it is not (or
    /// the task is gone). Every move of the status machine is one such write.
    pub async fn move_task(&self, id: &str, from: &[TaskStatus], change: &Change) -> Result<bool, XchangeError> {
        Ok(self.store.update(TASKS, id, &status_in(from), change).await?)
    }

    // Subjects.

    pub async fn insert_subject(&self, subject: &ExchangeSubject) -> Result<(), StoreError> {
        self.store.insert(vec![(SUBJECTS, to_json(subject))]).await
    }

    pub async fn subject_raw(&self, id: &str) -> Result<Option<Json>, XchangeError> {
        Ok(self.store.get(SUBJECTS, id).await?)
    }

    pub async fn subject(&self, id: &str) -> Result<Option<ExchangeSubject>, XchangeError> {
        self.subject_raw(id).await?.map(|d| decode(&d)).transpose()
    }

    /// Every subject of the exchange, sorted by `subject_id` (§4).
    pub async fn subjects(&self) -> Result<Vec<ExchangeSubject>, XchangeError> {
        let mut subjects: Vec<ExchangeSubject> =
            self.store.find(SUBJECTS, &Filter::all()).await?.iter().map(decode).collect::<Result<_, _>>()?;
        subjects.sort_by(|a, b| a.subject_id.cmp(&b.subject_id));
        Ok(subjects)
    }

    /// Applies `change` to the subject; false when it is gone. The store's own refusal
    /// (`InvalidDocument`) is the caller's to word.
    pub async fn update_subject(&self, id: &str, change: &Change) -> Result<bool, StoreError> {
        self.store.update(SUBJECTS, id, &Filter::all(), change).await
    }

    pub async fn delete_subject(&self, id: &str) -> Result<bool, XchangeError> {
        Ok(self.store.delete(SUBJECTS, id, &Filter::all()).await?)
    }

    /// The `page` of a filter's matches in `collection`, streamed.
    pub async fn stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, XchangeError> {
        Ok(self.store.find_stream(collection, filter, page).await?)
    }

    // Bidding records.

    /// The task's bidding record; inserts one with `bid_job_id` and `deadline` if it has none.
    pub async fn bidding_record(
        &self,
        task_id: &str,
        bid_job_id: &str,
        deadline: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<BiddingRecord, XchangeError> {
        let fields = json!({"task_id": task_id, "bid_job_id": bid_job_id, "deadline": micros(&deadline)});
        let docs = vec![
            (CLAIMS, record(&format!("bidding:{task_id}"), now, fields.clone())),
            (CLAIMS, record(&format!("bid-job:{bid_job_id}"), now, fields)),
        ];
        match self.store.insert(docs).await {
            Ok(()) | Err(StoreError::Duplicate { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        self.bidding_of_task(task_id).await?.ok_or_else(|| XchangeError::internal(format!("the bidding record of {task_id} vanished")))
    }

    pub async fn bidding_of_task(&self, task_id: &str) -> Result<Option<BiddingRecord>, XchangeError> {
        self.store.get(CLAIMS, &format!("bidding:{task_id}")).await?.map(|d| decode(&d)).transpose()
    }

    /// When the task's job was first seen closed with no winner: `now` on the first call (a
    /// write conditional on no earlier sighting, so racing looks keep the first), the time
    /// recorded then on every later one.
    pub async fn closed_seen(&self, task_id: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, XchangeError> {
        let key = format!("bidding:{task_id}");
        let unseen = Filter::must(json!({"closed_seen_at": {"$exists": false}}));
        self.store.update(CLAIMS, &key, &unseen, &Change::set(&json!({"closed_seen_at": micros(&now)}))).await?;
        let record = self.bidding_of_task(task_id).await?;
        Ok(record.and_then(|r| r.closed_seen_at()).unwrap_or(now))
    }

    pub async fn bidding_of_job(&self, bid_job_id: &str) -> Result<Option<BiddingRecord>, XchangeError> {
        self.store.get(CLAIMS, &format!("bid-job:{bid_job_id}")).await?.map(|d| decode(&d)).transpose()
    }

    // Round-robin.

    /// The subject `builtin:round-robin` chose last.
    pub async fn round_robin_last(&self) -> Result<Option<String>, XchangeError> {
        #[derive(Deserialize)]
        struct Last {
            last: String,
        }
        Ok(self.store.get(CLAIMS, ROUND_ROBIN).await?.map(|d| decode::<Last>(&d)).transpose()?.map(|l| l.last))
    }

    /// Records `next` as the last choice if `last` still is; false when another process moved
    /// it first.
    pub async fn swap_round_robin(&self, last: Option<&str>, next: &str, now: DateTime<Utc>) -> Result<bool, XchangeError> {
        match last {
            None => match self.store.insert(vec![(CLAIMS, record(ROUND_ROBIN, now, json!({"last": next})))]).await {
                Ok(()) => Ok(true),
                Err(StoreError::Duplicate { .. }) => Ok(false),
                Err(e) => Err(e.into()),
            },
            Some(last) => {
                let unchanged = Filter::must(json!({"last": last}));
                Ok(self.store.update(CLAIMS, ROUND_ROBIN, &unchanged, &Change::set(&json!({"last": next}))).await?)
            }
        }
    }
}
