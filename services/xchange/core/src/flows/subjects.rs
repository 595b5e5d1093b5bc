//! Subjects (§3): create, read, PATCH, delete. A `task_evaluation_function` is checked against
//! this deployment when it is set, so that open mode never meets a function it cannot run.
//!
//! PATCH is the spec's raw `$set` ([`agora_xchange_schema::patch`]): any field or dotted path,
//! fields the subject does not define included, checked against the document as stored (read
//! first, so that a path through a value that is not an object is a 400 naming it). The answer,
//! like `GET /subjects/{id}`, is the document as stored after it, extra fields included. A
//! change the store refuses all the same (a concurrent PATCH made a path unwalkable in
//! between; a value MongoDB cannot hold, such as an integer beyond 64 bits) is a 400 with the
//! store's reason, which names the path.

use crate::error::XchangeError;
use crate::hooks::{Hook, XchangeHooks};
use crate::repo::Repo;
use agora_store::{Change, Json, StoreError};
use agora_xchange_schema::{new_id, parse_subject_patch, parse_subject_request, ExchangeSubject, ValidationErrors};
use serde_json::{Map, Value};

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

    /// `POST /subjects`. Its span names the subject once the request parses.
    #[tracing::instrument(skip_all, fields(subject_id = tracing::field::Empty))]
    pub async fn create(&self, body: &Value) -> Result<ExchangeSubject, XchangeError> {
        let chosen = body.get("subject_id").is_some_and(|v| !v.is_null());
        for _ in 0..ID_ATTEMPTS {
            let subject = parse_subject_request(body, &new_id()).map_err(XchangeError::InvalidSubject)?;
            tracing::Span::current().record("subject_id", subject.subject_id.as_str());
            self.check_acceptance(&subject.task_evaluation_function)?;
            match self.repo.insert_subject(&subject).await {
                Ok(()) => {
                    tracing::info!("subject registered");
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
    #[tracing::instrument(skip_all, fields(subject_id = id))]
    pub async fn patch(&self, id: &str, body: &Value) -> Result<Json, XchangeError> {
        let unknown = || XchangeError::UnknownSubject(id.to_owned());
        let stored = self.repo.subject_raw(id).await?.ok_or_else(unknown)?;
        let current: Map<String, Value> = serde_json::from_str(stored.get())?;
        let set = parse_subject_patch(body, &current).map_err(XchangeError::InvalidPatch)?;
        if let Some(function_id) = set.get("task_evaluation_function").and_then(Value::as_str) {
            self.check_acceptance(function_id)?;
        }
        match self.repo.update_subject(id, &Change::set(&set)).await {
            Ok(true) => {}
            Ok(false) => return Err(unknown()),
            Err(StoreError::InvalidDocument { reason, .. }) => {
                return Err(XchangeError::InvalidPatch(ValidationErrors::single("", format!("The store refused the change: {reason}"))))
            }
            Err(e) => return Err(e.into()),
        }
        tracing::info!(fields = set.len(), "subject patched");
        self.repo.subject_raw(id).await?.ok_or_else(unknown)
    }

    /// `DELETE /subjects/{id}`.
    #[tracing::instrument(skip_all, fields(subject_id = id))]
    pub async fn delete(&self, id: &str) -> Result<(), XchangeError> {
        if !self.repo.delete_subject(id).await? {
            return Err(XchangeError::UnknownSubject(id.to_owned()));
        }
        tracing::info!("subject deleted");
        Ok(())
    }
}
