//! Subjects (§3): create, read, PATCH with dotted paths (the answer is the subject as stored
//! after it), delete. A `task_evaluation_function` is checked against this deployment when it
//! is set, so that open mode never meets a function it cannot run.

use crate::error::XchangeError;
use crate::hooks::{Hook, XchangeHooks};
use crate::repo::Repo;
use agora_store::{Change, Json, StoreError};
use agora_xchange_schema::{new_id, parse_subject_patch, parse_subject_request, ExchangeSubject};
use serde_json::Value;

const ID_ATTEMPTS: usize = 4;

/// The subjects flow: the store, and the hooks (to check an acceptance function's mode).
#[derive(Clone)]
pub struct Subjects {
    repo: Repo,
    hooks: XchangeHooks,
}

impl Subjects {
    pub fn new(repo: Repo, hooks: XchangeHooks) -> Self {
        Self { repo, hooks }
    }

    /// `POST /subjects`.
    pub async fn create(&self, body: &Value) -> Result<ExchangeSubject, XchangeError> {
        let chosen = body.get("subject_id").is_some_and(|v| !v.is_null());
        for _ in 0..ID_ATTEMPTS {
            let subject = parse_subject_request(body, &new_id()).map_err(XchangeError::InvalidSubject)?;
            self.check_acceptance(&subject.task_evaluation_function)?;
            match self.repo.insert_subject(&subject).await {
                Ok(()) => {
                    tracing::info!(subject_id = %subject.subject_id, "subject registered");
                    return Ok(subject);
                }
                Err(StoreError::Duplicate { .. }) if chosen => return Err(XchangeError::SubjectIdTaken(subject.subject_id)),
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(XchangeError::internal("could not generate an unused subject_id"))
    }

    fn check_acceptance(&self, function_id: &str) -> Result<(), XchangeError> {
        if function_id.trim().is_empty() {
            return Ok(());
        }
        super::check_function(&self.hooks, Hook::Acceptance, function_id)
    }

    /// `PATCH /subjects/{id}`.
    pub async fn patch(&self, id: &str, body: &Value) -> Result<Json, XchangeError> {
        let unknown = || XchangeError::UnknownSubject(id.to_owned());
        let current = self.repo.subject(id).await?.ok_or_else(unknown)?;
        let set = parse_subject_patch(body, &current).map_err(XchangeError::InvalidPatch)?;
        if let Some(function_id) = set.get("task_evaluation_function").and_then(Value::as_str) {
            self.check_acceptance(function_id)?;
        }
        if !self.repo.update_subject(id, &Change::set(&set)).await? {
            return Err(unknown());
        }
        self.repo.subject_raw(id).await?.ok_or_else(unknown)
    }

    /// `DELETE /subjects/{id}`.
    pub async fn delete(&self, id: &str) -> Result<(), XchangeError> {
        if !self.repo.delete_subject(id).await? {
            return Err(XchangeError::UnknownSubject(id.to_owned()));
        }
        tracing::info!(subject_id = id, "subject deleted");
        Ok(())
    }
}
