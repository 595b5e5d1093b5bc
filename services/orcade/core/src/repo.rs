//! Typed access to the `assets` database over the generic [`DocumentStore`]: the one place that
//! knows the collection names, the filters the flows use and how documents decode.
//!
//! Besides §2's three collections, two internal kinds of record live in the platform's claims
//! collection (never served by a route), each written once by a unique insert, each keyed by the
//! job's incarnation ([`JobKey`]):
//!
//! * `evaluation:<job key>`: the evaluation's decision ([`Decision`]), written before any of
//!   it is applied, so that an evaluator that dies half-way is followed by one that applies the
//!   same decision (a remote evaluator asked again might choose another winner).
//!   `orcade_evaluation` is `"decided"`, then `"applied"`.
//! * `delivered:<delivery_id>`: that a delivery's result is stored, inserted in the same atomic
//!   write as the result, so that a redelivered delivery stores nothing twice.

use crate::error::OrcadeError;
use crate::incarnation::JobKey;
use agora_filter::Filter;
use agora_orcade_schema::storage::{BIDS, BID_JOBS, BID_TASK_RESULTS, CLAIMS, PENDING_EVALUATIONS};
use agora_orcade_schema::time::format_utc_micros;
use agora_orcade_schema::{Bid, BidJob, BidJobStatus, BidTaskResult};
use agora_store::claims::Claims;
use agora_store::sharded::ShardCounted;
use agora_store::{to_json, Change, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// What an evaluation decided, as recorded before it is applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Decision {
    /// `status: "resolved"`: this subject's bid wins.
    Winner { winner_subject_id: String, bid_id: String, evaluator_output: Value },
    /// `status: "no_valid_bids"`: no bid wins.
    NoValidBids { evaluator_output: Value },
    /// The evaluator failed for good (malformed output, a winner with no accepted bid, a rule
    /// error): no bid wins, and this says why.
    Failed { error: String },
}

/// The stored evaluation record of a job.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EvaluationRecord {
    pub bid_job_id: String,
    pub decision: Decision,
    pub orcade_evaluation: String,
    pub decided_at: String,
}

impl EvaluationRecord {
    pub fn applied(&self) -> bool {
        self.orcade_evaluation == APPLIED
    }
}

const DECIDED: &str = "decided";
const APPLIED: &str = "applied";

fn evaluation_key(job: &JobKey) -> String {
    format!("evaluation:{job}")
}

pub(crate) fn delivered_key(delivery_id: &str) -> String {
    format!("delivered:{delivery_id}")
}

/// A record in the claims collection: a claim that never expires, with the record's fields.
fn record(key: &str, now: DateTime<Utc>, fields: Value) -> Json {
    agora_store::claims::record(key, "orcade", &format_utc_micros(&now), fields)
}

/// The condition that a job document is the one `job` was read from: a job created again under
/// its id has another `bid_job_created_time` (see [`crate::incarnation`]).
fn as_read(job: &BidJob) -> Filter {
    Filter::must(json!({"bid_job_created_time": format_utc_micros(&job.bid_job_created_time)}))
}

pub(crate) fn decode<T: DeserializeOwned>(doc: &Json) -> Result<T, OrcadeError> {
    Ok(serde_json::from_str(doc.get())?)
}

/// Decodes typed entities from stored documents.
pub fn decode_all<T: DeserializeOwned>(docs: &[Json]) -> Result<Vec<T>, OrcadeError> {
    docs.iter().map(decode).collect()
}

#[derive(Clone)]
pub struct Repo {
    store: Arc<dyn DocumentStore>,
}

impl Repo {
    pub fn new(store: Arc<dyn DocumentStore>) -> Self {
        Self { store }
    }

    /// The claims in this database's claims collection: the leases a flow holds while it works
    /// on a job or a delivery (and the record of a job's evaluation request, [`crate::closing`]).
    pub fn claims(&self) -> Claims {
        Claims::new(self.store.clone())
    }

    // Jobs.

    pub async fn insert_job(&self, job: &BidJob) -> Result<(), StoreError> {
        self.store.insert(vec![(BID_JOBS, to_json(job))]).await
    }

    pub async fn job_raw(&self, id: &str) -> Result<Option<Json>, OrcadeError> {
        Ok(self.store.get(BID_JOBS, id).await?)
    }

    pub async fn job(&self, id: &str) -> Result<Option<BidJob>, OrcadeError> {
        self.job_raw(id).await?.map(|d| decode(&d)).transpose()
    }

    /// Moves the job, as read, from `open` to `closed` with a conditional write, setting its
    /// final `roster` when given (an open-mode job's, see [`crate::closing`]); false when it was
    /// not open (or is gone, or was created again since it was read).
    pub async fn close_job(&self, job: &BidJob, roster: Option<&[String]>) -> Result<bool, OrcadeError> {
        let open = as_read(job).and(Filter::must(json!({"bid_job_status": BidJobStatus::Open})));
        let mut set = json!({"bid_job_status": BidJobStatus::Closed});
        if let Some(roster) = roster {
            set["bid_job_subject_ids"] = json!(roster);
        }
        Ok(self.store.update(BID_JOBS, &job.bid_job_id, &open, &Change::set(&set)).await?)
    }

    /// Open-mode jobs still open whose `bid_job_closes_at` is at or before `now`.
    pub async fn jobs_due(&self, now: DateTime<Utc>) -> Result<Vec<BidJob>, OrcadeError> {
        let filter = Filter::must(json!({
            "bid_job_mode": "open", "bid_job_status": "open",
            "bid_job_closes_at": {"$lte": format_utc_micros(&now)},
        }));
        decode_all(&self.store.find(BID_JOBS, &filter).await?)
    }

    /// Every job still open.
    pub async fn open_jobs(&self) -> Result<Vec<BidJob>, OrcadeError> {
        decode_all(&self.store.find(BID_JOBS, &Filter::must(json!({"bid_job_status": "open"}))).await?)
    }

    /// An open-mode job's applicants while it is open: the subjects of its accepted bids, in
    /// the order they were stored (see [`crate::closing`]).
    pub async fn open_roster(&self, job_id: &str) -> Result<Vec<String>, OrcadeError> {
        #[derive(Deserialize)]
        struct Applicant {
            bid_subject_id: String,
        }
        let filter = Filter::must(json!({"bid_job_id": job_id, "bid_data.bid_rejected": {"$ne": true}}));
        Ok(decode_all::<Applicant>(&self.store.find(BIDS, &filter).await?)?.into_iter().map(|a| a.bid_subject_id).collect())
    }

    /// Changes the job if it matches `filter`; false when it does not (or is gone).
    pub async fn update_job(&self, id: &str, filter: &Filter, change: &Change) -> Result<bool, OrcadeError> {
        Ok(self.store.update(BID_JOBS, id, filter, change).await?)
    }

    /// Deletes the job as read (not one created again under its id since).
    pub async fn delete_job(&self, job: &BidJob) -> Result<bool, OrcadeError> {
        Ok(self.store.delete(BID_JOBS, &job.bid_job_id, &as_read(job)).await?)
    }

    /// Removes what a deleted job leaves: its bids, its task results with their delivery marks,
    /// its evaluation record and claims, its pending mark. Its bid counter stays, fenced: it is
    /// what refuses a bid that read the job before the delete.
    pub async fn remove_job_records(&self, job: &BidJob) -> Result<(), OrcadeError> {
        let (id, key) = (job.bid_job_id.as_str(), JobKey::of(job));
        for bid in decode_all::<Bid>(&self.bids_raw(id).await?)? {
            self.delete_bid(&bid.bid_id).await?;
        }
        for result in decode_all::<BidTaskResult>(&self.results_raw(id).await?)? {
            let delivery_id = crate::messages::Delivery::id_of(result.task_type, &key, &result.bid_subject_id);
            self.store.delete(CLAIMS, &delivered_key(&delivery_id), &Filter::all()).await?;
            self.store.delete(BID_TASK_RESULTS, &result.bid_task_result_id, &Filter::all()).await?;
        }
        let records = [evaluation_key(&key), crate::closing::request_claim(&key), crate::closing::evaluate_claim(&key)];
        for record in records.iter().chain([&format!("repair:{key}")]) {
            self.store.delete(CLAIMS, record, &Filter::all()).await?;
        }
        self.clear_pending(id).await
    }

    // Bids.

    /// Stores a bid and raises one shard of its job's bid counter ([`crate::closing::bid_counter`])
    /// in one atomic write, unless every shard the bid may take is full (or fenced). The count of
    /// bids is reported when this write filled its shard, and on every write of a job counted
    /// in one shard under the fence.
    pub async fn insert_counted_bid(&self, bid: &Bid, job: &BidJob) -> Result<ShardCounted, StoreError> {
        crate::closing::bid_counter(job).insert(self.store.as_ref(), &bid.bid_subject_id, vec![(BIDS, to_json(bid))]).await
    }

    /// Deletes a bid and lowers its job's bid counter (the shard its subject hashes to, see
    /// [`crate::closing`]) in one atomic write, unless the job is fenced (closed or deleted).
    pub async fn withdraw_bid(&self, bid: &Bid, job: &BidJob) -> Result<Uncounted, OrcadeError> {
        let counter = crate::closing::bid_counter(job);
        let shard = counter.shard_for(&bid.bid_subject_id);
        Ok(counter.delete(self.store.as_ref(), BIDS, &bid.bid_id, shard, Some(crate::closing::FENCED_AT)).await?)
    }

    /// Raises every shard of the job's bid counter by [`crate::closing::FENCE`], without reading
    /// it: from then on no bid of the job is stored or withdrawn (see [`crate::closing`]).
    pub async fn fence_bids(&self, job: &BidJob) -> Result<(), OrcadeError> {
        crate::closing::bid_counter(job).increment_all(self.store.as_ref(), crate::closing::FENCE).await?;
        Ok(())
    }

    /// Raises each shard of the job's bid counter that is not fenced yet by
    /// [`crate::closing::FENCE`], leaving a fenced shard as it is (a closer that died half-way
    /// through the shards left the others unfenced).
    pub async fn fence_unfenced_bids(&self, job: &BidJob) -> Result<(), OrcadeError> {
        let (counter, store) = (crate::closing::bid_counter(job), self.store.as_ref());
        let values = counter.values(store).await?;
        let unfenced = values.iter().enumerate().filter(|(_, v)| !crate::closing::on_file(**v).1);
        futures::future::try_join_all(unfenced.map(|(i, _)| {
            let shard = counter.shard_name(i);
            async move { store.increment(&shard, crate::closing::FENCE).await }
        }))
        .await?;
        Ok(())
    }

    /// How many bids of the job are on file, and whether its counter is fenced: the sum of the
    /// counter's shards ([`crate::closing::on_file`]).
    pub async fn bids_on_file(&self, job: &BidJob) -> Result<(i64, bool), OrcadeError> {
        Ok(crate::closing::on_file(crate::closing::bid_counter(job).total(self.store.as_ref()).await?))
    }

    pub async fn bid_raw(&self, id: &str) -> Result<Option<Json>, OrcadeError> {
        Ok(self.store.get(BIDS, id).await?)
    }

    pub async fn bid(&self, id: &str) -> Result<Option<Bid>, OrcadeError> {
        self.bid_raw(id).await?.map(|d| decode(&d)).transpose()
    }

    pub async fn bid_by_subject(&self, job_id: &str, subject: &str) -> Result<Option<Bid>, OrcadeError> {
        let docs = self.store.find(BIDS, &Filter::must(json!({"bid_job_id": job_id, "bid_subject_id": subject}))).await?;
        docs.first().map(decode).transpose()
    }

    /// Every bid of a job, as stored, oldest first.
    pub async fn bids_raw(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        Ok(self.store.find(BIDS, &Filter::must(json!({"bid_job_id": job_id}))).await?)
    }

    /// The bids of a job the PQT accepted (every bid but those kept with `bid_rejected`).
    pub async fn accepted_bids(&self, job_id: &str) -> Result<Vec<Bid>, OrcadeError> {
        let filter = Filter::must(json!({"bid_job_id": job_id, "bid_data.bid_rejected": {"$ne": true}}));
        decode_all(&self.store.find(BIDS, &filter).await?)
    }

    /// The job's winning bids (at most one, once evaluated).
    pub async fn winners(&self, job_id: &str) -> Result<Vec<Bid>, OrcadeError> {
        decode_all(&self.store.find(BIDS, &Filter::must(json!({"bid_job_id": job_id, "is_winner": true}))).await?)
    }

    pub async fn mark_winner(&self, bid_id: &str) -> Result<bool, OrcadeError> {
        Ok(self.store.update(BIDS, bid_id, &Filter::all(), &Change::set(&json!({"is_winner": true}))).await?)
    }

    pub async fn update_bid(&self, id: &str, change: &Change) -> Result<bool, OrcadeError> {
        Ok(self.store.update(BIDS, id, &Filter::all(), change).await?)
    }

    pub async fn delete_bid(&self, id: &str) -> Result<bool, OrcadeError> {
        Ok(self.store.delete(BIDS, id, &Filter::all()).await?)
    }

    // Task results.

    /// Stores a delivery's result and the mark that it is delivered, all or none. A
    /// [`StoreError::Duplicate`] means the delivery was stored already.
    pub async fn insert_result_once(&self, delivery_id: &str, result: &BidTaskResult, now: DateTime<Utc>) -> Result<(), StoreError> {
        let mark = record(&delivered_key(delivery_id), now, json!({"bid_task_result_id": result.bid_task_result_id}));
        self.store.insert(vec![(BID_TASK_RESULTS, to_json(result)), (CLAIMS, mark)]).await
    }

    /// Whether the delivery's result is stored.
    pub async fn delivered(&self, delivery_id: &str) -> Result<bool, OrcadeError> {
        Ok(self.store.get(CLAIMS, &delivered_key(delivery_id)).await?.is_some())
    }

    pub async fn results_raw(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        Ok(self.store.find(BID_TASK_RESULTS, &Filter::must(json!({"bid_job_id": job_id}))).await?)
    }

    // Evaluation records.

    pub async fn evaluation(&self, job: &BidJob) -> Result<Option<EvaluationRecord>, OrcadeError> {
        self.store.get(CLAIMS, &evaluation_key(&JobKey::of(job))).await?.map(|d| decode(&d)).transpose()
    }

    /// Records a decision, unless one is recorded already; returns the one that stands.
    pub async fn record_decision(&self, job: &BidJob, decision: &Decision, now: DateTime<Utc>) -> Result<EvaluationRecord, OrcadeError> {
        let id = &job.bid_job_id;
        let fields = json!({"bid_job_id": id, "decision": decision, "orcade_evaluation": DECIDED, "decided_at": format_utc_micros(&now)});
        match self.store.insert(vec![(CLAIMS, record(&evaluation_key(&JobKey::of(job)), now, fields))]).await {
            Ok(()) | Err(StoreError::Duplicate { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        self.evaluation(job).await?.ok_or_else(|| OrcadeError::internal(format!("the evaluation record of {id} vanished")))
    }

    pub async fn mark_applied(&self, job: &BidJob) -> Result<(), OrcadeError> {
        let key = evaluation_key(&JobKey::of(job));
        self.store.update(CLAIMS, &key, &Filter::all(), &Change::set(&json!({"orcade_evaluation": APPLIED}))).await?;
        Ok(())
    }

    /// Marks the job's evaluation pending. Written before the job is closed, so that every
    /// closed job not yet evaluated has its mark (a crash between the two leaves a mark on an
    /// open job, which the sweep passes over); marked already is success.
    pub async fn mark_pending(&self, job_id: &str, now: DateTime<Utc>) -> Result<(), OrcadeError> {
        let doc = to_json(&json!({"bid_job_id": job_id, "since": format_utc_micros(&now)}));
        match self.store.insert(vec![(PENDING_EVALUATIONS, doc)]).await {
            Ok(()) | Err(StoreError::Duplicate { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the job's pending mark (its evaluation is applied, or the job is gone).
    pub async fn clear_pending(&self, job_id: &str) -> Result<(), OrcadeError> {
        self.store.delete(PENDING_EVALUATIONS, job_id, &Filter::all()).await?;
        Ok(())
    }

    /// The jobs whose evaluation is pending.
    pub async fn pending_job_ids(&self) -> Result<Vec<String>, OrcadeError> {
        #[derive(Deserialize)]
        struct Pending {
            bid_job_id: String,
        }
        let docs = self.store.find(PENDING_EVALUATIONS, &Filter::all()).await?;
        Ok(decode_all::<Pending>(&docs)?.into_iter().map(|p| p.bid_job_id).collect())
    }

    /// Documents of `collection` matching `filter`.
    pub async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, OrcadeError> {
        Ok(self.store.find(collection, filter).await?)
    }

    /// The `page` of the documents of `collection` matching `filter`, streamed.
    pub async fn stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, OrcadeError> {
        Ok(self.store.find_stream(collection, filter, page).await?)
    }
}
