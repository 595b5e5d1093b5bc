//! Starting tasks (§1.2 steps 2–3): the sweep finds due tasks; each is started once, by
//! whichever starter takes its claim, with its invitations sent before it turns `started`.

use crate::error::VotingError;
use crate::hooks::VotingHooks;
use crate::messages::{deadline_request, deadline_schedule_name, voting_invite};
use crate::ports::{ChangeListener, Clock, NoSchedules, OneShotSchedules, Publisher};
use crate::repo::Repo;
use agora_store::claims::{Claim, Claims};
use agora_store::DocumentStore;
use agora_voting_schema::TaskStatus;
use agora_voting_schema::{HookInput, SocialTaskCoreData};
use futures::future::join_all;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What became of one start attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartOutcome {
    /// Invitations sent, task now `started`.
    Started { invitations: usize },
    /// Another starter holds the task, or already started it.
    AlreadyHandled,
    /// No such task, not `scheduled`, or not yet due.
    NotDue,
    /// The invitation creator or a publish failed; the task stays `scheduled` for the next sweep.
    Failed(String),
}

/// The start flow: the store and its claims, the invitation creator, the publisher of the
/// invitations, the clock, and the change listener (a started task streams live).
#[derive(Clone)]
pub struct Starter {
    repo: Repo,
    claims: Claims,
    hooks: VotingHooks,
    publisher: Arc<dyn Publisher>,
    clock: Arc<dyn Clock>,
    changes: Arc<dyn ChangeListener>,
    /// How long a starter may hold a task before another may take over.
    lease: chrono::Duration,
    /// Where a started task's deadline timer goes; the repair sweep closes a task at
    /// its deadline anyway.
    deadlines: Arc<dyn OneShotSchedules>,
}

impl Starter {
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: VotingHooks,
        publisher: Arc<dyn Publisher>,
        clock: Arc<dyn Clock>,
        changes: Arc<dyn ChangeListener>,
        lease: chrono::Duration,
    ) -> Self {
        Self {
            repo: Repo::new(store.clone()),
            claims: Claims::new(store),
            hooks,
            publisher,
            clock,
            changes,
            lease,
            deadlines: Arc::new(NoSchedules),
        }
    }

    /// This starter, making each started task's deadline timer on `schedules`.
    pub fn with_deadlines(mut self, schedules: Arc<dyn OneShotSchedules>) -> Self {
        self.deadlines = schedules;
        self
    }

    /// Starts every task that is due now. Returns the outcome per task id.
    #[tracing::instrument(skip_all)]
    pub async fn start_due_tasks(&self) -> Result<Vec<(String, StartOutcome)>, VotingError> {
        let due = self.repo.due_tasks(self.clock.now()).await?;
        let attempts = due.iter().map(|t| async move {
            let outcome = self.start_task(&t.social_task_id).await.unwrap_or_else(|e| {
                tracing::error!(social_task_id = %t.social_task_id, error = %e, "start failed");
                StartOutcome::Failed(e.to_string())
            });
            (t.social_task_id.clone(), outcome)
        });
        Ok(join_all(attempts).await)
    }

    /// Starts one task if it is due: claim it, run the invitation creator, publish one
    /// invitation per option, then move it `scheduled` → `started` with a conditional write.
    #[tracing::instrument(skip_all, fields(social_task_id = social_task_id))]
    pub async fn start_task(&self, social_task_id: &str) -> Result<StartOutcome, VotingError> {
        let now = self.clock.now();
        if self.due_task(social_task_id, now).await?.is_none() {
            return Ok(StartOutcome::NotDue);
        }
        let claim_key = format!("start:{social_task_id}");
        if self.claims.claim(&claim_key, now, Some(self.lease)).await? == Claim::Held {
            return Ok(StartOutcome::AlreadyHandled);
        }
        // Holding the claim, look again: a starter whose lease expired may have finished.
        let Some(task) = self.due_task(social_task_id, now).await? else {
            return Ok(StartOutcome::AlreadyHandled);
        };
        match self.invite(social_task_id).await {
            Ok(invitations) => {
                let started_at = self.clock.now();
                if self.repo.start(social_task_id, &started_at).await? {
                    tracing::info!(invitations, "task started");
                    self.schedule_deadline(&task, started_at).await;
                    if task.enable_live_streaming {
                        self.changes.task_changed(social_task_id).await;
                    }
                    Ok(StartOutcome::Started { invitations })
                } else {
                    Ok(StartOutcome::AlreadyHandled)
                }
            }
            Err(reason) => {
                tracing::warn!(%reason, "task not started; it stays scheduled and the next sweep retries");
                self.claims.release(&claim_key).await?;
                Ok(StartOutcome::Failed(reason))
            }
        }
    }

    /// Makes the deadline timer of a task that has a deadline, now that it started. A timer not
    /// made is logged: the repair sweep closes the task at its deadline anyway.
    async fn schedule_deadline(&self, task: &SocialTaskCoreData, started_at: chrono::DateTime<chrono::Utc>) {
        let Some(at) = task.options().deadline_at(Some(started_at)) else { return };
        let id = &task.social_task_id;
        match self.deadlines.schedule(&deadline_schedule_name(id), at, &deadline_request(id)).await {
            Ok(()) => tracing::info!(deadline = %at, "deadline timer made"),
            Err(e) => tracing::warn!(deadline = %at, error = %e, "deadline timer not made; the sweep closes the task at its deadline"),
        }
    }

    /// The task, if it is scheduled and its time has come.
    async fn due_task(&self, social_task_id: &str, now: chrono::DateTime<chrono::Utc>) -> Result<Option<SocialTaskCoreData>, VotingError> {
        Ok(self
            .repo
            .task(social_task_id)
            .await?
            .filter(|t| t.status() == Some(&TaskStatus::Scheduled) && t.scheduled_time.is_some_and(|s| s <= now)))
    }

    /// Runs the invitation creator and publishes the invitations. Err: why it failed.
    async fn invite(&self, social_task_id: &str) -> Result<usize, String> {
        let task = self.repo.task(social_task_id).await.map_err(|e| e.to_string())?.ok_or("task vanished")?;
        let spec = self.repo.subject_spec(social_task_id).await.map_err(|e| e.to_string())?;
        let creator = &spec.voting_message_request_creator;
        let custom_data = if creator.is_empty() {
            Value::Object(Map::new())
        } else {
            let input = HookInput::invitation(&task, &spec);
            let out = self
                .hooks
                .run(agora_voting_schema::Hook::Invitation, creator, social_task_id, &input)
                .await
                .map_err(|e| format!("invitation creator failed: {e}"))?;
            if !out.is_object() {
                return Err(format!("invitation creator output is not an object: {out}"));
            }
            out
        };
        let message = voting_invite(&task, &spec, &custom_data);
        let sends = spec.voting_options_map.keys().map(|addr| self.publisher.publish(addr, &message));
        let failures: Vec<String> = join_all(sends).await.into_iter().filter_map(|r| r.err().map(|e| e.to_string())).collect();
        if failures.is_empty() {
            Ok(spec.voting_options_map.len())
        } else {
            Err(failures.join("; "))
        }
    }
}
