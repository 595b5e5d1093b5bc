//! The read routes (§3): documents are answered as stored (JSON text), never decoded and
//! encoded again. The flow needs the store alone.

use crate::error::OrcadeError;
use crate::repo::{EvaluationRecord, Repo};
use agora_filter::Filter;
use agora_orcade_schema::storage::{BIDS, BID_JOBS, BID_TASK_RESULTS};
use agora_store::{DocStream, Json, Page};
use serde_json::{json, Value};

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
    pub async fn job(&self, id: &str) -> Result<Json, OrcadeError> {
        self.repo.job_raw(id).await?.ok_or_else(|| OrcadeError::UnknownJob(id.to_owned()))
    }

    /// `POST /bid-jobs/query`.
    pub async fn query_jobs(&self, filter: &Value) -> Result<Vec<Json>, OrcadeError> {
        self.query(BID_JOBS, filter).await
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
        self.stream(BID_JOBS, filter, page).await
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
        Ok(self.repo.store().find_stream(collection, &filter_of(filter)?, page).await?)
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
        self.repo.find(BID_JOBS, &filter).await
    }

    /// `GET /bid-jobs/{id}/bids`.
    pub async fn bids_of(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        self.job(job_id).await?;
        self.repo.bids_raw(job_id).await
    }

    /// `GET /bids/{id}`.
    pub async fn bid(&self, id: &str) -> Result<Json, OrcadeError> {
        self.repo.bid_raw(id).await?.ok_or_else(|| OrcadeError::UnknownBid(id.to_owned()))
    }

    /// `GET /bid-jobs/{id}/task-results`.
    pub async fn task_results_of(&self, job_id: &str) -> Result<Vec<Json>, OrcadeError> {
        self.job(job_id).await?;
        self.repo.results_raw(job_id).await
    }

    /// The job's evaluation record, once decided (`None` before): the decision, including a
    /// failed evaluation's error, which no §2 entity holds.
    pub async fn evaluation(&self, job_id: &str) -> Result<Option<EvaluationRecord>, OrcadeError> {
        self.job(job_id).await?;
        self.repo.evaluation(job_id).await
    }
}
