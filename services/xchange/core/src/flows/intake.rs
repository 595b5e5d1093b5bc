//! Task intake (`POST /tasks`, §3): the body parsed, the task stored `pending` and its
//! assignment queued; the answer is the task as stored, before any assignment work.
//!
//! Function mode's selector runs here, inline (§4), with `{"task", "subjects"}` (every subject,
//! by `subject_id`), and the task's `parameters` as every selector gets them: a builtin as its
//! parameters, one that runs elsewhere (HTTP, Lambda, registry) as the input's `parameters` when
//! the task gives some, a registry function also as its job's `parameters`
//! ([`agora_xchange_schema::hook_io`]). The subject it names is kept in
//! `task_metadata.assigned_subject_id` and the delegate round trip still runs from the queue. A
//! selector that fails, or names no subject of the exchange, stores the task `failed` with
//! `task_output.error` saying why, and the answer is a 400 ([`XchangeError::SelectionFailed`]).
//!
//! `builtin:round-robin` takes the subject after the one it chose last, the last choice being
//! swapped in the store by a conditional write (retried when another task moved it first): so
//! concurrent tasks, on one process or many, go to consecutive subjects.

use crate::error::XchangeError;
use crate::hooks::{Hook, XchangeHooks, XchangeInput};
use crate::messages::Assignment;
use crate::ports::{Clock, WorkQueue};
use crate::repo::Repo;
use agora_schema::HookTarget;
use agora_store::{Change, StoreError};
use agora_xchange_rules::Selector;
use agora_xchange_schema::{
    new_id, parse_task_request, AssignmentType, ExchangeSubject, ExchangeTask, FunctionSpec, SelectorInput, SelectorOutput, TaskStatus,
};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Attempts at a fresh id when a generated one collides.
const ID_ATTEMPTS: usize = 4;
/// Attempts at swapping round-robin's last choice under contention.
const SWAP_ATTEMPTS: usize = 64;

/// Where a task's chosen subject is kept (every mode but bidding; bidding's winner is in its
/// `task_output`).
pub const ASSIGNED_SUBJECT: &str = "assigned_subject_id";

/// The intake flow: the store, the hooks (the selector), the assignment queue, the clock.
#[derive(Clone)]
pub struct TaskIntake {
    repo: Repo,
    hooks: XchangeHooks,
    assignments: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
}

impl TaskIntake {
    pub fn new(repo: Repo, hooks: XchangeHooks, assignments: Arc<dyn WorkQueue>, clock: Arc<dyn Clock>) -> Self {
        Self { repo, hooks, assignments, clock }
    }

    /// Validates and stores a task, and queues its assignment; returns it as stored. Its span
    /// names the task once the request parses.
    #[tracing::instrument(skip_all, fields(task_id = tracing::field::Empty))]
    pub async fn submit_task(&self, body: &Value) -> Result<ExchangeTask, XchangeError> {
        let chosen = body.get("task_id").is_some_and(|v| !v.is_null());
        for _ in 0..ID_ATTEMPTS {
            let mut task = parse_task_request(body, &new_id(), self.clock.now()).map_err(XchangeError::InvalidTask)?;
            tracing::Span::current().record("task_id", task.task_id.as_str());
            let mut failure = None;
            if task.task_assignment_type == AssignmentType::Function {
                let function_id = task.assignment_str("function_id").unwrap_or_default().to_owned();
                super::check_function(&self.hooks, Hook::Selector, &function_id)?;
                match self.select(&task, &function_id).await? {
                    Ok(subject) => {
                        task.task_metadata.insert(ASSIGNED_SUBJECT.into(), Value::String(subject));
                    }
                    Err(error) => {
                        task.task_assignment_status = TaskStatus::Failed;
                        task.task_output = json!({"error": error}).as_object().cloned().unwrap_or_default();
                        failure = Some(error);
                    }
                }
            }
            match self.repo.insert_task(&task).await {
                Ok(()) => {}
                Err(StoreError::Duplicate { .. }) if chosen => return Err(XchangeError::TaskIdTaken(task.task_id)),
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
            if let Some(error) = failure {
                crate::telemetry::task_terminal(&task, TaskStatus::Failed, self.clock.now());
                tracing::info!(%error, "function-mode task failed at selection");
                return Err(XchangeError::SelectionFailed { task_id: task.task_id, error });
            }
            self.queue(&task).await?;
            tracing::info!(mode = task.task_assignment_type.as_str(), "task submitted");
            return Ok(task);
        }
        Err(XchangeError::internal("could not generate an unused task_id"))
    }

    /// Queues the task's assignment. If the queue refuses it, the task is failed (nothing
    /// would assign it) and the error is answered.
    async fn queue(&self, task: &ExchangeTask) -> Result<(), XchangeError> {
        let work = Assignment::Assign { task_id: task.task_id.clone() };
        let Err(e) = self.assignments.send(&task.task_id, &work.body(), std::time::Duration::ZERO).await else { return Ok(()) };
        let error = format!("the task's assignment could not be queued: {}", e.reason);
        let change = Change::set(&json!({"task_assignment_status": TaskStatus::Failed, "task_output": {"error": error}}));
        if self.repo.move_task(&task.task_id, &[TaskStatus::Pending], &change).await? {
            crate::telemetry::task_terminal(task, TaskStatus::Failed, self.clock.now());
        }
        Err(XchangeError::internal_caused("the task's assignment could not be queued", e))
    }

    /// Runs the selector: `Ok(Ok(subject))`, or `Ok(Err(why))` when it failed or chose none.
    async fn select(&self, task: &ExchangeTask, function_id: &str) -> Result<Result<String, String>, XchangeError> {
        let subjects = self.repo.subjects().await?;
        let empty = Map::new();
        let parameters = task.assignment().get("parameters").and_then(Value::as_object).unwrap_or(&empty);
        let spec = FunctionSpec::from_id(function_id);
        let builtin = match spec.target() {
            Ok(Some(HookTarget::Builtin { name, .. })) => Selector::find(name),
            _ => None,
        };
        let out = match builtin {
            Some(Selector::RoundRobin) => match self.round_robin(&subjects, parameters).await? {
                Ok(out) => out,
                Err(why) => return Ok(Err(why)),
            },
            Some(selector) => match selector.select(&subjects, parameters, None) {
                Ok(out) => out,
                Err(why) => return Ok(Err(format!("{function_id}: {why}"))),
            },
            None => {
                // The parameters travel in the input, whatever the mode; a registry function also
                // gets them where the registry takes a job's parameters.
                let input = SelectorInput::new(task, &subjects);
                let mut spec = spec;
                if let (Some(given), true) = (input.parameters, matches!(spec.target(), Ok(Some(HookTarget::Function { .. })))) {
                    spec.0.insert("parameters".into(), Value::Object(given.clone()));
                }
                let input = XchangeInput::Selector(input);
                match self.hooks.run(Hook::Selector, &spec, &task.task_id, &input).await {
                    Ok(out) => out,
                    Err(e) => return Ok(Err(format!("the selector {function_id} failed: {e}"))),
                }
            }
        };
        Ok(chosen_subject(&out, &subjects, function_id))
    }

    /// `builtin:round-robin`: the subject after the last choice, swapped in the store.
    async fn round_robin(
        &self,
        subjects: &[ExchangeSubject],
        parameters: &Map<String, Value>,
    ) -> Result<Result<Value, String>, XchangeError> {
        for _ in 0..SWAP_ATTEMPTS {
            let last = self.repo.round_robin_last().await?;
            let out = match Selector::RoundRobin.select(subjects, parameters, last.as_deref()) {
                Ok(out) => out,
                Err(why) => return Ok(Err(why)),
            };
            let Some(next) = out.get("selected_subject_id").and_then(Value::as_str) else { return Ok(Ok(out)) };
            if self.repo.swap_round_robin(last.as_deref(), next, self.clock.now()).await? {
                return Ok(Ok(out));
            }
        }
        Err(XchangeError::internal("builtin:round-robin could not record its choice: too many concurrent tasks"))
    }
}

/// The subject a selector's output names, if it is one of `subjects`; else why not (the
/// selector's own `reason` when it chose none).
fn chosen_subject(out: &Value, subjects: &[ExchangeSubject], function_id: &str) -> Result<String, String> {
    match SelectorOutput::from_output(out) {
        Ok(SelectorOutput { selected_subject_id: id }) if subjects.iter().any(|s| s.subject_id == id) => Ok(id),
        Ok(SelectorOutput { selected_subject_id: id }) => {
            Err(format!("the selector {function_id} chose {id:?}, which is not a subject of this exchange"))
        }
        Err(why) => match out.get("reason").and_then(Value::as_str) {
            Some(reason) => Err(format!("the selector {function_id} named no subject: {reason}")),
            None => Err(format!("the selector {function_id} failed: {why}")),
        },
    }
}
