//! Evaluation (§1 lifecycle, §4): the evaluator runs on the accepted bids of a closed job,
//! exactly one bid is marked `is_winner` (none on `no_valid_bids`), and the winner's
//! `bid_winner` delivery is queued with the evaluator's output. Once to completion, whatever
//! the duplicate requests and crashes:
//!
//! * the evaluator holds the claim `evaluate:<id>` on a short lease, renewed every third of it
//!   while it works (a dead evaluator's lease runs out, and the repair sweep requests again);
//! * the decision is recorded once, before any of it is applied ([`crate::repo::Decision`]); a
//!   later evaluator applies the recorded decision instead of asking the evaluator again;
//! * applying is idempotent (`is_winner = true`, the delivery keyed by its id), then the record
//!   is marked applied, after which every request is answered [`EvaluationOutcome::AlreadyEvaluated`].
//!
//! A transient hook failure (timeout, unreachable, 5xx) records nothing and asks for a retry; a
//! malformed output, a rule error, or a winner with no accepted bid is recorded as
//! [`Decision::Failed`]: no winner, the error logged and kept in the record.

use crate::closing::{evaluate_claim, Closing};
use crate::error::OrcadeError;
use crate::hooks::{output_of, OrcadeHooks, OrcadeInput};
use crate::incarnation::JobKey;
use crate::messages::Delivery;
use crate::ports::{Clock, WorkQueue};
use crate::repo::{Decision, Repo};
use agora_orcade_schema::{BidJob, BidJobStatus, Evaluation, EvaluatorInput, Hook};
use agora_store::claims::Claims;
use std::sync::Arc;

/// What became of one evaluation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvaluationOutcome {
    /// A winner was marked and its `bid_winner` queued.
    Resolved { winner_subject_id: String, bid_id: String },
    /// The evaluator found no valid bid: no winner.
    NoValidBids,
    /// The evaluator failed for good; recorded, not retried.
    Failed { error: String },
    /// Evaluated already (a duplicate request).
    AlreadyEvaluated,
    /// Another evaluator holds the job right now.
    InProgress,
    /// No such job.
    UnknownJob,
    /// The job is open: nothing to evaluate yet (requests follow a close).
    NotClosed,
    /// A transient failure: run the request again later.
    Retry(String),
}

impl EvaluationOutcome {
    /// The outcome as one snake_case word (the `outcome` label of the evaluations' metric).
    pub fn kind(&self) -> &'static str {
        match self {
            EvaluationOutcome::Resolved { .. } => "resolved",
            EvaluationOutcome::NoValidBids => "no_valid_bids",
            EvaluationOutcome::Failed { .. } => "failed",
            EvaluationOutcome::AlreadyEvaluated => "already_evaluated",
            EvaluationOutcome::InProgress => "in_progress",
            EvaluationOutcome::UnknownJob => "unknown_job",
            EvaluationOutcome::NotClosed => "not_closed",
            EvaluationOutcome::Retry(_) => "retry",
        }
    }
}

/// The evaluation flow: the store and its claims, the evaluator hook, the delivery queue, the
/// clock, the closing (to close a job evaluated by repair), and the lease.
#[derive(Clone)]
pub struct Evaluator {
    repo: Repo,
    claims: Claims,
    hooks: OrcadeHooks,
    deliveries: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
    closing: Closing,
    lease: chrono::Duration,
    resolutions: Arc<dyn WorkQueue>,
}

impl Evaluator {
    pub fn new(
        repo: Repo,
        hooks: OrcadeHooks,
        deliveries: Arc<dyn WorkQueue>,
        clock: Arc<dyn Clock>,
        closing: Closing,
        lease: chrono::Duration,
    ) -> Self {
        Self { claims: repo.claims(), repo, hooks, deliveries, clock, closing, lease, resolutions: Arc::new(crate::ports::NoListener) }
    }

    /// Sends a resolution event for each job evaluated with no winner (a winner's is sent once
    /// its `bid_winner` is stored, by the [`crate::Deliverer`]); only for a job that carries the
    /// listener's mark ([`crate::messages::RESOLUTION_MARK`]).
    pub fn with_resolutions(mut self, resolutions: Arc<dyn WorkQueue>) -> Self {
        self.resolutions = resolutions;
        self
    }

    /// Evaluates a closed job. Safe to call twice, or twice at once. Counted by outcome, with
    /// the seconds it took.
    #[tracing::instrument(skip_all, fields(bid_job_id = bid_job_id))]
    pub async fn evaluate_job(&self, bid_job_id: &str) -> Result<EvaluationOutcome, OrcadeError> {
        let started = std::time::Instant::now();
        let outcome = self.evaluate(bid_job_id).await;
        crate::telemetry::evaluation_finished(&outcome, started.elapsed());
        outcome
    }

    async fn evaluate(&self, bid_job_id: &str) -> Result<EvaluationOutcome, OrcadeError> {
        // Closed, its bids fenced (and an open-mode job's final roster written, in the close).
        let job = match self.repo.job(bid_job_id).await? {
            None => return Ok(EvaluationOutcome::UnknownJob),
            Some(job) if job.bid_job_status == BidJobStatus::Open => return Ok(EvaluationOutcome::NotClosed),
            Some(job) => job,
        };
        if self.repo.evaluation(&job).await?.is_some_and(|r| r.applied()) {
            return Ok(EvaluationOutcome::AlreadyEvaluated);
        }
        let key = evaluate_claim(&JobKey::of(&job));
        let Some(held) = self.claims.take(&key, self.clock.now(), Some(self.lease)).await? else {
            return Ok(EvaluationOutcome::InProgress);
        };
        // Its lease renewed while it works: a crashed evaluator blocks the job for one lease.
        let outcome = self.claims.while_held(&held, self.lease, || self.clock.now(), self.evaluate_claimed(&job)).await;
        if !matches!(
            outcome,
            Ok(EvaluationOutcome::Resolved { .. }
                | EvaluationOutcome::NoValidBids
                | EvaluationOutcome::Failed { .. }
                | EvaluationOutcome::AlreadyEvaluated)
        ) {
            // Leave the job to a later attempt. (Once applied, the claim runs out by itself, and
            // the record answers every later request.)
            self.claims.release(&key).await?;
        }
        outcome
    }

    async fn evaluate_claimed(&self, job: &BidJob) -> Result<EvaluationOutcome, OrcadeError> {
        // Read again under the claim: an evaluator whose lease ran out may have finished.
        let record = match self.repo.evaluation(job).await? {
            Some(r) if r.applied() => return Ok(EvaluationOutcome::AlreadyEvaluated),
            Some(r) => r,
            None => {
                let decision = match self.decide(job).await? {
                    Ok(decision) => decision,
                    Err(retry) => return Ok(EvaluationOutcome::Retry(retry)),
                };
                self.repo.record_decision(job, &decision, self.clock.now()).await?
            }
        };
        self.apply(job, &record.decision).await
    }

    /// Runs the evaluator on the accepted bids. `Err(reason)`: a transient failure, retry.
    async fn decide(&self, job: &BidJob) -> Result<Result<Decision, String>, OrcadeError> {
        let bids = self.repo.accepted_bids(&job.bid_job_id).await?;
        let input = OrcadeInput::Evaluator(EvaluatorInput { bid_job: job, bids: &bids });
        let out = match self.hooks.run(Hook::Evaluator, &job.evaluator(), &job.bid_job_id, &input).await {
            Ok(out) => output_of(Hook::Evaluator, &out).clone(),
            Err(e) if e.is_transient() => return Ok(Err(format!("the evaluator failed: {e}"))),
            Err(e) => return Ok(Ok(Decision::Failed { error: format!("the evaluator failed: {e}") })),
        };
        Ok(Ok(match Evaluation::from_output(&out) {
            Ok(Evaluation::Resolved { winner_subject_id, .. }) => match bids.iter().find(|b| b.bid_subject_id == winner_subject_id) {
                Some(bid) => Decision::Winner { bid_id: bid.bid_id.clone(), winner_subject_id, evaluator_output: out },
                None => Decision::Failed {
                    error: format!("the evaluator's winner_subject_id {winner_subject_id:?} names no accepted bid of this job"),
                },
            },
            Ok(Evaluation::NoValidBids { .. }) => Decision::NoValidBids { evaluator_output: out },
            Err(e) => Decision::Failed { error: e.to_string() },
        }))
    }

    /// Applies a recorded decision, idempotently, then marks it applied.
    async fn apply(&self, job: &BidJob, decision: &Decision) -> Result<EvaluationOutcome, OrcadeError> {
        let id = job.bid_job_id.as_str();
        // Every closer fenced before the close; this only makes sure of it.
        self.closing.fence(job).await?;
        let outcome = match decision {
            Decision::Winner { winner_subject_id, bid_id, evaluator_output } => {
                self.repo.mark_winner(bid_id).await?;
                let d = Delivery::bid_winner(job, winner_subject_id, evaluator_output.clone());
                self.deliveries
                    .send(&d.delivery_id, &d.body(), std::time::Duration::ZERO)
                    .await
                    .map_err(|e| OrcadeError::internal_caused("the bid_winner delivery could not be queued", e))?;
                tracing::info!(winner = %winner_subject_id, bid_id = %bid_id, "bid job evaluated: winner marked");
                EvaluationOutcome::Resolved { winner_subject_id: winner_subject_id.clone(), bid_id: bid_id.clone() }
            }
            Decision::NoValidBids { .. } => {
                tracing::info!("bid job evaluated: no valid bids");
                EvaluationOutcome::NoValidBids
            }
            Decision::Failed { error } => {
                tracing::error!(%error, "bid job evaluation failed for good; no winner");
                EvaluationOutcome::Failed { error: error.clone() }
            }
        };
        if !matches!(decision, Decision::Winner { .. }) {
            crate::messages::announce_resolution(self.resolutions.as_ref(), job).await;
        }
        self.repo.mark_applied(job).await?;
        if let Err(e) = self.repo.clear_pending(id).await {
            // The repair sweep finds the evaluation applied and clears the mark.
            tracing::warn!(error = %e, "pending mark of an evaluated job not cleared");
        }
        Ok(outcome)
    }
}
