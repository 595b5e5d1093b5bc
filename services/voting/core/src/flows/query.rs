//! The read routes (§3.4). Answers are built from the stored JSON text, so a report of a
//! million votes is passed through, not decoded and encoded again. The flow needs the store
//! alone (`voting-queries` builds nothing else).

use crate::error::VotingError;
use crate::repo::Repo;
use agora_filter::Filter;
use agora_store::{to_json, DocStream, Json, Page};
use agora_voting_schema::collections;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

fn no_task() -> VotingError {
    VotingError::UnknownTask
}

/// The few fields of a task document the queries read, without decoding the rest.
#[derive(Deserialize)]
struct TaskHead<'a> {
    #[serde(default)]
    status: Option<String>,
    #[serde(default, borrow)]
    report_json: Option<&'a RawValue>,
    #[serde(default)]
    enable_live_streaming: bool,
}

/// A task's full bundle (§3.4) in its parts, each as stored: the three documents, and every vote
/// in insertion order (the order `POST /generic-query/votes` pages through).
#[derive(Debug, Clone)]
pub struct BundleParts {
    pub task: Json,
    pub subject_spec: Option<Json>,
    pub evaluation_input: Option<Json>,
    pub votes: Vec<Json>,
}

impl BundleParts {
    /// `{"task": ..., "subject_spec": ..., "evaluation_input": ..., "votes": [...]}`.
    pub fn to_json(&self) -> Json {
        #[derive(Serialize)]
        struct Bundle<'a> {
            task: &'a RawValue,
            subject_spec: Option<&'a RawValue>,
            evaluation_input: Option<&'a RawValue>,
            votes: &'a [Json],
        }
        to_json(&Bundle {
            task: &self.task,
            subject_spec: self.subject_spec.as_deref(),
            evaluation_input: self.evaluation_input.as_deref(),
            votes: &self.votes,
        })
    }
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

    async fn task_doc(&self, id: &str) -> Result<Json, VotingError> {
        self.repo.task_raw(id).await?.ok_or_else(no_task)
    }

    /// `GET /get-report/{id}`: `report_json` as stored (`{}` before completion).
    #[tracing::instrument(skip_all, fields(social_task_id = id))]
    pub async fn get_report(&self, id: &str) -> Result<Json, VotingError> {
        let doc = self.task_doc(id).await?;
        let head: TaskHead = serde_json::from_str(doc.get())?;
        Ok(head.report_json.map_or_else(|| to_json(&serde_json::json!({})), ToOwned::to_owned))
    }

    /// `GET /get-status/{id}`.
    #[tracing::instrument(skip_all, fields(social_task_id = id))]
    pub async fn get_status(&self, id: &str) -> Result<Value, VotingError> {
        let doc = self.task_doc(id).await?;
        let head: TaskHead = serde_json::from_str(doc.get())?;
        Ok(serde_json::json!({ "status": head.status }))
    }

    /// `GET /is-live-streaming-enabled/{id}`.
    #[tracing::instrument(skip_all, fields(social_task_id = id))]
    pub async fn is_live_streaming_enabled(&self, id: &str) -> Result<bool, VotingError> {
        let doc = self.task_doc(id).await?;
        let head: TaskHead = serde_json::from_str(doc.get())?;
        Ok(head.enable_live_streaming)
    }

    /// `GET /get-full-task-bundle/{id}`: the three documents and every vote.
    #[tracing::instrument(skip_all, fields(social_task_id = id))]
    pub async fn get_full_task_bundle(&self, id: &str) -> Result<Json, VotingError> {
        Ok(self.bundle_parts(id).await?.to_json())
    }

    /// The parts of the task's full bundle, as stored.
    pub async fn bundle_parts(&self, id: &str) -> Result<BundleParts, VotingError> {
        let task = self.task_doc(id).await?;
        let subject_spec = self.repo.subject_spec_raw(id).await?;
        let evaluation_input = self.repo.evaluation_input_raw(id).await?;
        let votes = self.repo.all_votes_raw(id).await?;
        Ok(BundleParts { task, subject_spec, evaluation_input, votes })
    }

    /// `POST /generic-query/{collection}`: the `page` of the documents of one of the four
    /// collections that match a MongoDB-style filter (`null` or `{}`: all), in insertion order,
    /// as the store streams them.
    #[tracing::instrument(skip_all, fields(collection = collection))]
    pub async fn generic_query(&self, collection: &str, filter: &Value, page: Page) -> Result<DocStream, VotingError> {
        if !collections::ALL.contains(&collection) {
            return Err(VotingError::UnknownCollection(collection.to_owned()));
        }
        let filter = match filter {
            Value::Null => Filter::all(),
            v => Filter::parse(v).map_err(|e| VotingError::InvalidFilter(e.to_string()))?,
        };
        self.repo.stream(collection, &filter, page).await
    }
}
