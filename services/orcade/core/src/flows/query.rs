//! The read routes (§3): documents are answered as stored (JSON text), never decoded and
//! encoded again, but for an open-mode job still open, whose `bid_job_subject_ids` is filled
//! in from its accepted bids, in the order they were stored (its applicants are its bids until
//! the close writes them into it, see [`crate::closing`]). The flow needs the store alone.

use crate::error::OrcadeError;
use crate::repo::{decode, EvaluationRecord, Repo};
use agora_filter::Filter;
use agora_orcade_schema::storage::{BIDS, BID_JOBS, BID_TASK_RESULTS};
use agora_orcade_schema::{BidJob, BidJobMode, BidJobStatus};
use agora_store::{to_json, DocStream, Json, Page};
use futures::{StreamExt, TryStreamExt};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// How `GET /bid-jobs/by-tags` matches: every tag (`all`, the default) or any of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TagMatch {
    #[default]
    All,
    Any,
}

impl TagMatch {
    /// `all`, `any`, or absent (`all`).
    pub fn parse(s: Option<&str>) -> Result<TagMatch, OrcadeError> {
        match s {
            None | Some("all") => Ok(TagMatch::All),
            Some("any") => Ok(TagMatch::Any),
            Some(other) => Err(OrcadeError::InvalidMatch(other.to_owned())),
        }
    }
}

/// A query body as a filter: `null` (an empty body) is every document.
fn filter_of(filter: &Value) -> Result<Filter, OrcadeError> {
    Filter::of_query(filter).map_err(|e| OrcadeError::InvalidFilter(e.to_string()))
}

/// The read flow: its only dependency is the store.
#[derive(Clone)]
pub struct Queries {
    repo: Repo,
}

impl Queries {
    pub fn new(repo: Repo) -> Self {
        Self { repo }
    }

    /// `GET /bid-jobs/{id}`.
    #[tracing::instrument(skip_all, fields(bid_job_id = id))]
    pub async fn job(&self, id: &str) -> Result<Json, OrcadeError> {
        let doc = self.repo.job_raw(id).await?.ok_or_else(|| OrcadeError::UnknownJob(id.to_owned()))?;
        with_applicants(&self.repo, doc).await
    }

    /// `POST /bid-jobs/query`.
    pub async fn query_jobs(&self, filter: &Value) -> Result<Vec<Json>, OrcadeError> {
        self.with_applicants(self.query(BID_JOBS, filter).await?).await
    }

    async fn with_applicants(&self, docs: Vec<Json>) -> Result<Vec<Json>, OrcadeError> {
        let mut out = Vec::with_capacity(docs.len());
        for doc in docs {
            out.push(with_applicants(&self.repo, doc).await?);
        }
        Ok(out)
    }

    /// `POST /bids/query`.
    pub async fn query_bids(&self, filter: &Value) -> Result<Vec<Json>, OrcadeError> {
        self.query(BIDS, filter).await
    }

    /// `POST /bid-task-results/query`.
    pub async fn query_task_results(&self, filter: &Value) -> Result<Vec<Json>, OrcadeError> {
        self.query(BID_TASK_RESULTS, filter).await
    }

    /// `POST /bid-jobs/query?limit=&skip=`, streamed: the `page` of the matches as the store
    /// reads them, a batch at a time (the route writes them as they come).
    pub async fn stream_jobs(&self, filter: &Value, page: Page) -> Result<DocStream, OrcadeError> {
        let repo = self.repo.clone();
        let jobs = self.stream(BID_JOBS, filter, page).await?;
        Ok(jobs
            .and_then(move |doc| {
                let repo = repo.clone();
                async move {
                    with_applicants(&repo, doc)
                        .await
                        .map_err(|e| agora_store::StoreError::Backend(format!("an open job's applicants could not be read: {e}")))
                }
            })
            .boxed())
    }

    /// `POST /bids/query?limit=&skip=`, streamed.
    pub async fn stream_bids(&self, filter: &Value, page: Page) -> Result<DocStream, OrcadeError> {
        self.stream(BIDS, filter, page).await
    }

    /// `POST /bid-task-results/query?limit=&skip=`, streamed.
    pub async fn stream_task_results(&self, filter: &Value, page: Page) -> Result<DocStream, OrcadeError> {
        self.stream(BID_TASK_RESULTS, filter, page).await
    }

    /// A MongoDB-style filter over one collection (`null` or `{}`: all).
    async fn query(&self, collection: &str, filter: &Value) -> Result<Vec<Json>, OrcadeError> {
        self.repo.find(collection, &filter_of(filter)?).await
    }

    /// The `page` of a filter's matches over one collection, streamed (the filter is checked
    /// before the stream starts, so an unsupported operator is a 400, not a broken body).
    async fn stream(&self, collection: &str, filter: &Value, page: Page) -> Result<DocStream, OrcadeError> {
        self.repo.stream(collection, &filter_of(filter)?, page).await
    }

    /// `GET /bid-jobs/by-tags?tags=a,b&match=all|any`: exact, case-sensitive matching. Tags are
    /// trimmed and empty ones dropped (`tags=a,,b` is `a`, `b`); none left is [`OrcadeError::NoTags`].
    pub async fn jobs_by_tags(&self, tags: &[String], how: TagMatch) -> Result<Vec<Json>, OrcadeError> {
        let tags: Vec<&str> = tags.iter().map(|t| t.trim()).filter(|t| !t.is_empty()).collect();
        if tags.is_empty() {
            return Err(OrcadeError::NoTags);
        }
        let filter = match how {
            TagMatch::Any => Filter::must(json!({"bid_job_tags": {"$in": tags}})),
            TagMatch::All => tags.iter().fold(Filter::all(), |f, t| f.and(Filter::must(json!({"bid_job_tags": t})))),
        };
        self.with_applicants(self.repo.find(BID_JOBS, &filter).await?).await
    }

    /// `GET /bid-jobs/{id}/bids`.
    #[tracing::instrument(skip_all, fields(bid_job_id = job_id))]
    pub async fn bids_of(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        self.known(job_id).await?;
        self.repo.bids_raw(job_id).await
    }

    /// 404 unless the job exists.
    async fn known(&self, job_id: &str) -> Result<(), OrcadeError> {
        self.repo.job_raw(job_id).await?.map(|_| ()).ok_or_else(|| OrcadeError::UnknownJob(job_id.to_owned()))
    }

    /// `GET /bids/{id}`.
    #[tracing::instrument(skip_all, fields(bid_id = id))]
    pub async fn bid(&self, id: &str) -> Result<Json, OrcadeError> {
        self.repo.bid_raw(id).await?.ok_or_else(|| OrcadeError::UnknownBid(id.to_owned()))
    }

    /// `GET /bid-jobs/{id}/task-results`.
    #[tracing::instrument(skip_all, fields(bid_job_id = job_id))]
    pub async fn task_results_of(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        self.known(job_id).await?;
        self.repo.results_raw(job_id).await
    }

    /// The job's evaluation record, once decided (`None` before): the decision, including a
    /// failed evaluation's error, which no §2 entity holds.
    #[tracing::instrument(skip_all, fields(bid_job_id = job_id))]
    pub async fn evaluation(&self, job_id: &str) -> Result<Option<EvaluationRecord>, OrcadeError> {
        let job: BidJob = self.repo.job(job_id).await?.ok_or_else(|| OrcadeError::UnknownJob(job_id.to_owned()))?;
        self.repo.evaluation(&job).await
    }
}

/// A job document as its readers see it: an open-mode job still open with its applicants in
/// `bid_job_subject_ids` (see the module docs); any other document as stored.
async fn with_applicants(repo: &Repo, doc: Json) -> Result<Json, OrcadeError> {
    #[derive(Deserialize)]
    struct Shape {
        bid_job_id: String,
        #[serde(default)]
        bid_job_mode: Option<BidJobMode>,
        #[serde(default)]
        bid_job_status: Option<BidJobStatus>,
    }
    let Ok(shape) = serde_json::from_str::<Shape>(doc.get()) else { return Ok(doc) };
    if shape.bid_job_mode != Some(BidJobMode::Open) || shape.bid_job_status != Some(BidJobStatus::Open) {
        return Ok(doc);
    }
    let mut fields: Map<String, Value> = decode(&doc)?;
    fields.insert("bid_job_subject_ids".into(), json!(repo.open_roster(&shape.bid_job_id).await?));
    Ok(to_json(&fields))
}
