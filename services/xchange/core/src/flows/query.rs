//! The read routes (§3): documents answered as stored (JSON text), never decoded and encoded
//! again. The flow needs the store alone.

use crate::error::XchangeError;
use crate::repo::Repo;
use agora_filter::Filter;
use agora_store::{DocStream, Json, Page};
use agora_xchange_schema::{SUBJECTS, TASKS};
use serde_json::{json, Value};

/// A query body as a filter: `null` (an empty body) is every document.
fn filter_of(filter: &Value) -> Result<Filter, XchangeError> {
    Filter::of_query(filter).map_err(|e| XchangeError::InvalidFilter(e.to_string()))
}

/// The read flow.
#[derive(Clone)]
pub struct Queries {
    repo: Repo,
}

impl Queries {
    pub fn new(repo: Repo) -> Self {
        Self { repo }
    }

    /// `GET /tasks/{id}`.
    #[tracing::instrument(skip_all, fields(task_id = id))]
    pub async fn task(&self, id: &str) -> Result<Json, XchangeError> {
        self.repo.task_raw(id).await?.ok_or_else(|| XchangeError::UnknownTask(id.to_owned()))
    }

    /// `GET /tasks/{id}/output`: `{"task_assignment_status", "task_output"}`.
    #[tracing::instrument(skip_all, fields(task_id = id))]
    pub async fn output(&self, id: &str) -> Result<Value, XchangeError> {
        let task = self.repo.task(id).await?.ok_or_else(|| XchangeError::UnknownTask(id.to_owned()))?;
        Ok(json!({"task_assignment_status": task.task_assignment_status, "task_output": task.task_output}))
    }

    /// `GET /subjects/{id}`.
    #[tracing::instrument(skip_all, fields(subject_id = id))]
    pub async fn subject(&self, id: &str) -> Result<Json, XchangeError> {
        self.repo.subject_raw(id).await?.ok_or_else(|| XchangeError::UnknownSubject(id.to_owned()))
    }

    /// `POST /tasks/query?limit=&skip=`, streamed.
    pub async fn stream_tasks(&self, filter: &Value, page: Page) -> Result<DocStream, XchangeError> {
        self.repo.stream(TASKS, &filter_of(filter)?, page).await
    }

    /// `POST /subjects/query?limit=&skip=`, streamed.
    pub async fn stream_subjects(&self, filter: &Value, page: Page) -> Result<DocStream, XchangeError> {
        self.repo.stream(SUBJECTS, &filter_of(filter)?, page).await
    }
}
