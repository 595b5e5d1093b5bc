//! Assignment (§4), from the assignment queue: a `pending` task goes to its subject and ends
//! `completed`, `failed` or `rejected` (bidding mode hands over to [`crate::flows::bidding`]).
//!
//! * direct: to `task_metadata.task_assignment.subject_id`;
//! * function: to the subject the selector chose at intake (`task_metadata.assigned_subject_id`);
//! * open: each subject with a `task_evaluation_function`, by `subject_id`, is asked in turn
//!   with `{"task", "subject"}`; the first to accept gets the task. A function that fails
//!   counts as a refusal (logged). None accepts: `rejected`, `task_output.error`
//!   `"no subject accepted the task"`, with `asked`: the subjects asked.
//!
//! The chosen subject is written to `task_metadata.assigned_subject_id` with the status
//! `assigned`, then the delegate round trip runs (`task_id` the task's, a new `session_id`
//! recorded in the task's claim before the call, the `task_data` as it is) under the delegate's
//! time limit: its reply, the whole body, becomes `task_output` and the task `completed`; a
//! failure, `task_output.error`, and `failed`.
//!
//! Once to completion under redelivery and racing workers: a worker holds the claim
//! `assign:<task_id>` (its lease renewed while it works, so a dead worker blocks the task one
//! lease), every status move is conditional on the status before it, and a final task is left
//! alone. A worker killed during the round trip leaves the task `assigned` and its claim with the
//! call's `session_id`; the queue delivers the work again and, once the lease has run out, the
//! round trip is made again: to the same subject, with the same `task_id` and `session_id`,
//! marked a retry (`Agora-Retry: true`), which the delegate system can use to know it. So is a
//! round trip whose answer could not be stored (the claim, with its `session_id`, is then kept,
//! its lease run out at once).

use crate::error::XchangeError;
use crate::flows::bidding::Bidder;
use crate::flows::intake::ASSIGNED_SUBJECT;
use crate::hooks::{Hook, XchangeHooks, XchangeInput};
use crate::ports::{Clock, Delegate, DelegateError, DelegateRequest};
use crate::repo::Repo;
use agora_store::claims::{Claims, Lease};
use agora_store::Change;
use agora_xchange_schema::{new_id, AssignmentType, ExchangeTask, FunctionSpec, OpenAnswer, OpenInput, TaskStatus};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// What became of one assignment request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssignOutcome {
    /// The subject answered; the task is `completed`.
    Completed { subject_id: String },
    /// The task is `failed`; why.
    Failed { error: String },
    /// Open mode: no subject accepted.
    Rejected,
    /// Bidding mode: the bid job is open.
    Bidding { bid_job_id: String },
    /// Nothing to do: the task is final or bidding already.
    AlreadyDone,
    /// Another worker holds the task right now.
    InProgress,
    /// No such task.
    UnknownTask,
    /// A transient failure: ask again later.
    Retry(String),
}

/// The field of the claim `assign:<task_id>` that records the `session_id` of the task's round
/// trip before the call, for a repeat to reuse.
const SESSION_FIELD: &str = "session_id";

/// The error open mode stores when no subject accepts (§4).
pub const NOBODY_ACCEPTED: &str = "no subject accepted the task";

/// The words of a failed delegate call, naming the time limit when that is what ended it.
pub fn delegate_failure(e: &DelegateError, limit: Duration) -> String {
    match e {
        DelegateError::Timeout(_) => format!(
            "the delegate time limit passed: no reply from the delegate system within {} ms (AGORA_DELEGATE_TIMEOUT_MS)",
            limit.as_millis()
        ),
        other => other.to_string(),
    }
}

/// The assignment flow.
#[derive(Clone)]
pub struct Assigner {
    repo: Repo,
    claims: Claims,
    hooks: XchangeHooks,
    delegate: Arc<dyn Delegate>,
    bidder: Bidder,
    clock: Arc<dyn Clock>,
    lease: chrono::Duration,
    delegate_timeout: Duration,
}

impl Assigner {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        repo: Repo,
        hooks: XchangeHooks,
        delegate: Arc<dyn Delegate>,
        bidder: Bidder,
        clock: Arc<dyn Clock>,
        lease: chrono::Duration,
        delegate_timeout: Duration,
    ) -> Self {
        Self { claims: repo.claims(), repo, hooks, delegate, bidder, clock, lease, delegate_timeout }
    }

    /// How soon to look again at a task another worker holds: a tenth of the lease, between
    /// 100 ms and 5 s.
    pub fn busy_retry(&self) -> Duration {
        (self.lease / 10).to_std().unwrap_or_default().clamp(Duration::from_millis(100), Duration::from_secs(5))
    }

    /// Assigns a pending task. Safe to call twice, or twice at once.
    #[tracing::instrument(skip_all, fields(task_id = task_id))]
    pub async fn assign(&self, task_id: &str) -> Result<AssignOutcome, XchangeError> {
        match self.repo.task(task_id).await? {
            None => return Ok(AssignOutcome::UnknownTask),
            Some(t) if t.task_assignment_status.is_final() || t.task_assignment_status == TaskStatus::Bidding => {
                return Ok(AssignOutcome::AlreadyDone)
            }
            Some(_) => {}
        }
        let key = format!("assign:{task_id}");
        let Some(held) = self.claims.take(&key, self.clock.now(), Some(self.lease)).await? else {
            return Ok(AssignOutcome::InProgress);
        };
        let outcome = self.claims.while_held(&held, self.lease, || self.clock.now(), self.assign_claimed(task_id, &held)).await;
        match &outcome {
            // Another worker took the claim over meanwhile: it is theirs to give back.
            Ok(AssignOutcome::InProgress) => {}
            // The task's status guards every later attempt; the claim only kept two apart.
            Ok(_) => {
                if let Err(e) = self.claims.release(&key).await {
                    tracing::warn!(error = %e, "assignment claim not released; its lease runs out");
                }
            }
            // The round trip may have been made and its answer not stored: the claim stays, with
            // the session it records, its lease run out now, so that the queue's retry takes it
            // at once and repeats that same round trip (marked a retry).
            Err(_) => {
                if let Err(e) = self.claims.run_out(&key, self.clock.now()).await {
                    tracing::warn!(error = %e, "assignment claim not given back; its lease runs out");
                }
            }
        }
        outcome
    }

    async fn assign_claimed(&self, task_id: &str, held: &Lease) -> Result<AssignOutcome, XchangeError> {
        // Read again under the claim: a worker whose lease ran out may have finished.
        let Some(task) = self.repo.task(task_id).await? else { return Ok(AssignOutcome::UnknownTask) };
        if task.task_assignment_status.is_final() || task.task_assignment_status == TaskStatus::Bidding {
            return Ok(AssignOutcome::AlreadyDone);
        }
        // A task left `assigned` by an earlier attempt goes to the subject that attempt chose (open
        // mode does not ask again): its round trip is repeated, not made to someone else.
        let chosen = match task.task_assignment_status {
            TaskStatus::Assigned => task.task_metadata.get(ASSIGNED_SUBJECT).and_then(Value::as_str).map(str::to_owned),
            _ => None,
        };
        let subject = match task.task_assignment_type {
            AssignmentType::Direct | AssignmentType::Function | AssignmentType::Open if chosen.is_some() => chosen,
            AssignmentType::Direct => task.assignment_str("subject_id").map(str::to_owned),
            AssignmentType::Function => task.task_metadata.get(ASSIGNED_SUBJECT).and_then(Value::as_str).map(str::to_owned),
            AssignmentType::Open => match self.ask_in_turn(&task).await? {
                Ok(subject) => Some(subject),
                Err(asked) => {
                    self.finish(&task, TaskStatus::Rejected, json!({"error": NOBODY_ACCEPTED, "asked": asked})).await?;
                    tracing::info!("open task rejected: no subject accepted it");
                    return Ok(AssignOutcome::Rejected);
                }
            },
            AssignmentType::Bidding => return self.bidder.start(&task).await,
        };
        let Some(subject) = subject else {
            let error = "the task names no subject to assign it to".to_owned();
            self.finish(&task, TaskStatus::Failed, json!({"error": error})).await?;
            return Ok(AssignOutcome::Failed { error });
        };
        self.deliver(&task, &subject, held).await
    }

    /// Open mode: the first subject whose acceptance function accepts, or `Err(asked)`.
    async fn ask_in_turn(&self, task: &ExchangeTask) -> Result<Result<String, Vec<String>>, XchangeError> {
        let mut asked = Vec::new();
        for subject in self.repo.subjects().await?.iter().filter(|s| !s.task_evaluation_function.trim().is_empty()) {
            asked.push(subject.subject_id.clone());
            let spec = FunctionSpec::from_id(&subject.task_evaluation_function);
            let input = XchangeInput::Acceptance(OpenInput { task, subject });
            match self.hooks.run(Hook::Acceptance, &spec, &task.task_id, &input).await {
                Ok(out) if OpenAnswer::from_output(&out).accepted => return Ok(Ok(subject.subject_id.clone())),
                Ok(_) => tracing::debug!(subject = %subject.subject_id, "subject declined the task"),
                // Logged by the hook runner; a subject that cannot answer does not take the task.
                Err(_) => {}
            }
        }
        Ok(Err(asked))
    }

    /// Marks the task `assigned` to `subject` and makes the delegate round trip.
    async fn deliver(&self, task: &ExchangeTask, subject: &str, held: &Lease) -> Result<AssignOutcome, XchangeError> {
        let id = &task.task_id;
        let assigned = Change::set(&json!({"task_assignment_status": TaskStatus::Assigned, "task_metadata.assigned_subject_id": subject}));
        if !self.repo.move_task(id, &[TaskStatus::Pending, TaskStatus::Assigned], &assigned).await? {
            return Ok(AssignOutcome::AlreadyDone);
        }
        // The round trip's session, noted in the claim before the call (a repeat reuses it).
        let Some((session, recorded)) = self.claims.noted_or(held, SESSION_FIELD, new_id).await? else {
            // Taken over meanwhile (this worker's lease ran out): the new holder hands it over.
            return Ok(AssignOutcome::InProgress);
        };
        // A repeat: an earlier attempt recorded its session, or at least got the task `assigned`
        // (it stopped between that and the call, or its claim was lost).
        let retry = recorded || task.task_assignment_status == TaskStatus::Assigned;
        if retry {
            tracing::info!(subject, session_id = %session, "repeating a hand-over an earlier attempt began");
        }
        let request = DelegateRequest { subject_id: subject, session_id: &session, task_id: id, task_data: &task.task_data, retry };
        let (status, output, error) = match self.delegate.submit_and_wait(&request).await {
            Ok(Value::Object(reply)) => (TaskStatus::Completed, Value::Object(reply), None),
            Ok(other) => {
                let error = format!("the delegate system's reply is not a JSON object: {}", agora_hooks::truncate(&other.to_string()));
                (TaskStatus::Failed, json!({"error": error}), Some(error))
            }
            Err(e) => {
                let error = delegate_failure(&e, self.delegate_timeout);
                (TaskStatus::Failed, json!({"error": error}), Some(error))
            }
        };
        if !self.finish(task, status, output).await? {
            return Ok(AssignOutcome::AlreadyDone);
        }
        Ok(match error {
            None => {
                tracing::info!(subject, "task completed");
                AssignOutcome::Completed { subject_id: subject.to_owned() }
            }
            Some(error) => {
                tracing::warn!(subject, %error, "delegate round trip failed; the task is failed");
                AssignOutcome::Failed { error }
            }
        })
    }

    /// Moves a task not yet final to `status` with `output`; false when it was final already.
    async fn finish(&self, task: &ExchangeTask, status: TaskStatus, output: Value) -> Result<bool, XchangeError> {
        finish(&self.repo, task, &[TaskStatus::Pending, TaskStatus::Assigned], status, output, self.clock.now()).await
    }
}

/// Moves a task whose status is one of `from` to the final `status` with `task_output` =
/// `output`; false when it was not in one of `from`. A move made is counted, with the time from
/// the task's creation to `now` ([`crate::telemetry::task_terminal`]).
pub(crate) async fn finish(
    repo: &Repo,
    task: &ExchangeTask,
    from: &[TaskStatus],
    status: TaskStatus,
    output: Value,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<bool, XchangeError> {
    let output = match output {
        Value::Object(m) => m,
        other => Map::from_iter([("output".to_owned(), other)]),
    };
    let change = Change::set(&json!({"task_assignment_status": status, "task_output": output}));
    let moved = repo.move_task(&task.task_id, from, &change).await?;
    if moved {
        crate::telemetry::task_terminal(task, status, now);
    }
    Ok(moved)
}
