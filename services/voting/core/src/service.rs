//! The voting service: its ports and settings, and [`Voting`], every flow wired from them. Each
//! flow is a struct of its own in [`crate::flows`] whose fields are the ports it uses.

use crate::error::VotingError;
use crate::flows::cancel::Canceller;
use crate::flows::create::TaskCreator;
use crate::flows::evaluate::{EvaluationOutcome, Evaluator};
use crate::flows::parse::TaskParser;
use crate::flows::query::Queries;
use crate::flows::repair::{Repairer, Stall};
use crate::flows::start::{StartOutcome, Starter};
use crate::flows::vote::{VoteAccepted, VoteIntake};
use crate::hooks::VotingHooks;
use crate::ports::{ChangeListener, Clock, NoChangeListener, NoSchedules, OneShotSchedules, Publisher, SystemClock, WorkQueue};
use crate::repo::Repo;
use crate::trigger::TriggerLeases;
use agora_store::DocumentStore;
use std::sync::Arc;

/// Everything the flows talk to.
#[derive(Clone)]
pub struct Ports {
    pub store: Arc<dyn DocumentStore>,
    pub hooks: VotingHooks,
    pub publisher: Arc<dyn Publisher>,
    /// Where evaluation requests go ([`crate::work`]).
    pub queue: Arc<dyn WorkQueue>,
    pub clock: Arc<dyn Clock>,
    pub changes: Arc<dyn ChangeListener>,
    /// One-shot starts at `scheduled_time` ([`crate::work`]); the sweep starts due tasks anyway.
    pub scheduler: Arc<dyn OneShotSchedules>,
}

impl Ports {
    /// Ports with the system clock, no change listener and no one-shot schedules.
    pub fn new(store: Arc<dyn DocumentStore>, hooks: VotingHooks, publisher: Arc<dyn Publisher>, queue: Arc<dyn WorkQueue>) -> Self {
        Self {
            store,
            hooks,
            publisher,
            queue,
            clock: Arc::new(SystemClock),
            changes: Arc::new(NoChangeListener),
            scheduler: Arc::new(NoSchedules),
        }
    }
}

/// Leases on claims: how long a starter or an evaluator may hold its task before another may
/// take over (a crashed worker must not block a task forever), and how long an evaluation
/// request may stay claimed and not yet queued before it is taken for lost.
///
/// The evaluator renews its lease every third of it while it works, so the lease bounds how long
/// a crashed evaluator blocks its task, not how long an evaluation may take.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub start_lease: chrono::Duration,
    pub evaluation_lease: chrono::Duration,
    /// How long an evaluation request claimed by a retry or the repair sweep may stay unqueued.
    pub trigger_lease: chrono::Duration,
    /// How long a queued evaluation request is trusted to the queue before the repair sweep
    /// requests it again (a day: far past the queue's own retries).
    pub request_lease: chrono::Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            start_lease: chrono::Duration::minutes(5),
            evaluation_lease: chrono::Duration::seconds(60),
            trigger_lease: chrono::Duration::seconds(60),
            request_lease: chrono::Duration::hours(24),
        }
    }
}

impl Settings {
    /// Every short lease set to `lease` (the local server's `--claim-lease-ms`).
    pub fn with_leases(lease: chrono::Duration) -> Self {
        Self { start_lease: lease, evaluation_lease: lease, trigger_lease: lease, ..Self::default() }
    }

    /// The leases of the trigger's claim.
    pub fn trigger_leases(&self) -> TriggerLeases {
        TriggerLeases { claim: self.trigger_lease, request: self.request_lease }
    }
}

/// The voting service: every flow, wired from one set of ports (the local server, tests). A
/// Lambda function builds only the flow it serves.
#[derive(Clone)]
pub struct Voting {
    pub(crate) ports: Ports,
    pub(crate) repo: Repo,
    parser: TaskParser,
    creator: TaskCreator,
    starter: Starter,
    intake: VoteIntake,
    canceller: Canceller,
    repairer: Repairer,
    evaluator: Evaluator,
    pub(crate) queries: Queries,
}

impl Voting {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        let p = &ports;
        let repo = Repo::new(p.store.clone());
        let parser = TaskParser::new(p.hooks.clone());
        let creator = TaskCreator::new(parser.clone(), repo.clone(), p.scheduler.clone());
        let starter =
            Starter::new(p.store.clone(), p.hooks.clone(), p.publisher.clone(), p.clock.clone(), p.changes.clone(), settings.start_lease)
                .with_deadlines(p.scheduler.clone());
        let intake = VoteIntake::new(
            p.store.clone(),
            p.hooks.clone(),
            p.queue.clone(),
            p.clock.clone(),
            p.changes.clone(),
            settings.trigger_leases(),
        );
        let canceller = Canceller::new(p.store.clone(), p.clock.clone(), p.changes.clone(), settings.evaluation_lease)
            .with_started_tasks(intake.started_tasks().clone());
        let repairer = Repairer::new(p.store.clone(), p.queue.clone(), p.clock.clone(), settings.trigger_leases());
        let evaluator = Evaluator::new(
            p.store.clone(),
            p.hooks.clone(),
            p.publisher.clone(),
            p.clock.clone(),
            p.changes.clone(),
            settings.evaluation_lease,
        );
        let queries = Queries::new(repo.clone());
        Self { ports, repo, parser, creator, starter, intake, canceller, repairer, evaluator, queries }
    }

    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// The parse flow (§3.2).
    pub fn parser(&self) -> &TaskParser {
        &self.parser
    }

    /// The create flow (§3.1).
    pub fn creator(&self) -> &TaskCreator {
        &self.creator
    }

    /// The start flow (§1.2 steps 2–3).
    pub fn starter(&self) -> &Starter {
        &self.starter
    }

    /// The vote flow (§3.3).
    pub fn intake(&self) -> &VoteIntake {
        &self.intake
    }

    /// The cancel flow ([`crate::flows::cancel`]).
    pub fn canceller(&self) -> &Canceller {
        &self.canceller
    }

    /// [`Canceller::cancel_task`].
    pub async fn cancel_task(&self, social_task_id: &str) -> Result<(), VotingError> {
        self.canceller.cancel_task(social_task_id).await
    }

    /// The repair sweep ([`crate::flows::repair`]).
    pub fn repairer(&self) -> &Repairer {
        &self.repairer
    }

    /// [`Repairer::close_at_deadline`].
    pub async fn close_at_deadline(&self, social_task_id: &str) -> Result<Option<Stall>, VotingError> {
        self.repairer.close_at_deadline(social_task_id).await
    }

    /// [`Repairer::repair_stalled_tasks`].
    pub async fn repair_stalled_tasks(&self) -> Result<Vec<(String, Stall)>, VotingError> {
        self.repairer.repair_stalled_tasks().await
    }

    /// The evaluation flow (§1.2 step 6).
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// The read flow (§3.4).
    pub fn queries(&self) -> &Queries {
        &self.queries
    }

    /// [`TaskCreator::create_task`].
    pub async fn create_task(&self, body: &serde_json::Value) -> Result<String, VotingError> {
        self.creator.create_task(body).await
    }

    /// [`Starter::start_due_tasks`].
    pub async fn start_due_tasks(&self) -> Result<Vec<(String, StartOutcome)>, VotingError> {
        self.starter.start_due_tasks().await
    }

    /// [`Starter::start_task`].
    pub async fn start_task(&self, social_task_id: &str) -> Result<StartOutcome, VotingError> {
        self.starter.start_task(social_task_id).await
    }

    /// [`VoteIntake::submit_vote`].
    pub async fn submit_vote(&self, body: &serde_json::Value) -> Result<VoteAccepted, VotingError> {
        self.intake.submit_vote(body).await
    }

    /// [`Evaluator::evaluate_task`].
    pub async fn evaluate_task(&self, social_task_id: &str) -> Result<EvaluationOutcome, VotingError> {
        self.evaluator.evaluate_task(social_task_id).await
    }
}
