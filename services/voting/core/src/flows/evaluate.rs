//! Evaluation (§1.2 step 6, §2.6): choice evaluation, tie-breaker, post-award, the report and
//! `complete` in one conditional write, then one `voting_result` per winner. At most once to
//! completion: the evaluator holds a claim on the task while it works.

use crate::error::VotingError;
use crate::hooks::VotingHooks;
use crate::messages::voting_result;
use crate::ports::{ChangeListener, Clock, HookError, Publisher};
use crate::repo::Repo;
use crate::specs::SpecCache;
use agora_store::claims::Claims;
use agora_store::{DocumentStore, Json};
use agora_voting_schema::TaskStatus;
use agora_voting_schema::{Hook, HookInput, Report, Vote};
use futures::future::join_all;
use serde_json::{Map, Value};
use std::sync::Arc;

/// What became of one evaluation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvaluationOutcome {
    /// The report is stored and the task is `complete`.
    Completed { winners: Vec<String> },
    /// The task was already complete (a duplicate request).
    AlreadyComplete,
    /// Another evaluator holds the task right now.
    InProgress,
    /// No such task, or it is not `started`.
    NotStarted,
    /// A hook failed: no report, the task stays `started`. `retryable` says whether running the
    /// same request again may succeed (a timeout may; a malformed output will not).
    Failed { retryable: bool, reason: String },
}

impl EvaluationOutcome {
    /// The outcome as one snake_case word (the `outcome` label of the evaluations' metric): a
    /// retryable failure is `retry`, a failure for good `failed`.
    pub fn kind(&self) -> &'static str {
        match self {
            EvaluationOutcome::Completed { .. } => "completed",
            EvaluationOutcome::AlreadyComplete => "already_complete",
            EvaluationOutcome::InProgress => "in_progress",
            EvaluationOutcome::NotStarted => "not_started",
            EvaluationOutcome::Failed { retryable: true, .. } => "retry",
            EvaluationOutcome::Failed { retryable: false, .. } => "failed",
        }
    }
}

/// A hook failure inside an evaluation, with the hook that failed.
struct Failure {
    hook: Hook,
    error: HookError,
}

/// The evaluation flow: the store and its claims, the hooks, the publisher of the results, the
/// clock, the change listener, and the task specs.
#[derive(Clone)]
pub struct Evaluator {
    repo: Repo,
    claims: Claims,
    hooks: VotingHooks,
    publisher: Arc<dyn Publisher>,
    clock: Arc<dyn Clock>,
    changes: Arc<dyn ChangeListener>,
    specs: SpecCache,
    /// How long an evaluator may hold a task before another may take over.
    lease: chrono::Duration,
}

impl Evaluator {
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: VotingHooks,
        publisher: Arc<dyn Publisher>,
        clock: Arc<dyn Clock>,
        changes: Arc<dyn ChangeListener>,
        lease: chrono::Duration,
    ) -> Self {
        let repo = Repo::new(store.clone());
        Self { specs: SpecCache::new(repo.clone()), repo, claims: Claims::new(store), hooks, publisher, clock, changes, lease }
    }

    /// Evaluates a task whose trigger held. Safe to call twice, or twice at once. Counted by
    /// outcome, with the seconds it took.
    #[tracing::instrument(skip_all, fields(social_task_id = social_task_id))]
    pub async fn evaluate_task(&self, social_task_id: &str) -> Result<EvaluationOutcome, VotingError> {
        let started = std::time::Instant::now();
        let outcome = self.evaluate(social_task_id).await;
        crate::telemetry::evaluation_finished(&outcome, started.elapsed());
        outcome
    }

    async fn evaluate(&self, social_task_id: &str) -> Result<EvaluationOutcome, VotingError> {
        match self.repo.task(social_task_id).await?.as_ref().and_then(|t| t.status.clone()) {
            Some(TaskStatus::Started) => {}
            Some(TaskStatus::Complete) => return Ok(EvaluationOutcome::AlreadyComplete),
            _ => return Ok(EvaluationOutcome::NotStarted),
        }
        let claim_key = crate::trigger::evaluate_claim(social_task_id);
        let Some(held) = self.claims.take(&claim_key, self.clock.now(), Some(self.lease)).await? else {
            // Another evaluator works on it. If it dies, its lease runs out unrenewed and the
            // repair sweep requests the evaluation again.
            return Ok(EvaluationOutcome::InProgress);
        };
        // Its lease renewed while it works: a crashed evaluator blocks the task for one lease.
        let outcome = self.claims.while_held(&held, self.lease, || self.clock.now(), self.evaluate_claimed(social_task_id)).await;
        if !matches!(outcome, Ok(EvaluationOutcome::Completed { .. }) | Ok(EvaluationOutcome::AlreadyComplete)) {
            // Leave the task to a later attempt.
            self.claims.release(&claim_key).await?;
        }
        outcome
    }

    async fn evaluate_claimed(&self, id: &str) -> Result<EvaluationOutcome, VotingError> {
        // Read again under the claim: an evaluator whose lease expired may have finished.
        let Some(task) = self.repo.task(id).await? else { return Ok(EvaluationOutcome::NotStarted) };
        match task.status() {
            Some(TaskStatus::Started) => {}
            Some(TaskStatus::Complete) => return Ok(EvaluationOutcome::AlreadyComplete),
            _ => return Ok(EvaluationOutcome::NotStarted),
        }
        let specs = self.specs.get(id).await?;
        let (subject_spec, evaluation) = (&specs.0, &specs.1);
        let clock = std::time::Instant::now();
        let raw_votes = self.repo.qualified_votes_raw(id).await?;
        let read_ms = clock.elapsed().as_millis();
        let votes = decode_votes(&raw_votes).await?;
        let decode_ms = clock.elapsed().as_millis() - read_ms;
        let votes_len = votes.len();
        let input = HookInput::evaluation(&task, subject_spec, evaluation, &votes, None);

        let mut dsl_outputs = Map::new();
        let outcome = Outcome::of(&task, votes_len);
        let decided = match outcome {
            Some(Outcome::NoQuorum) => self.award(&input, evaluation, Vec::new(), &mut dsl_outputs).await,
            _ => self.decide(&input, evaluation, &mut dsl_outputs).await,
        };
        let decide_ms = clock.elapsed().as_millis() - read_ms - decode_ms;
        let (winners, payload) = match decided {
            Ok(done) => done,
            Err(Failure { hook, error }) => {
                tracing::error!(hook = hook.output_key(), error = %error, "evaluation failed; task stays started with no report");
                return Ok(EvaluationOutcome::Failed {
                    retryable: error.is_transient(),
                    reason: format!("{}: {error}", hook.output_key()),
                });
            }
        };

        let evaluated_at = self.clock.now();
        let report = Report {
            task: &task,
            subject_spec,
            evaluation_spec: evaluation,
            votes: &raw_votes,
            winners: &winners,
            post_award_payload: &payload,
            dsl_outputs: &dsl_outputs,
            evaluated_at,
        };
        let completed = match outcome {
            Some(outcome) => self.repo.complete(id, &WithOutcome { report, outcome: outcome.as_str() }, &evaluated_at).await,
            None => self.repo.complete(id, &report, &evaluated_at).await,
        };
        let store_ms = clock.elapsed().as_millis() - read_ms - decode_ms - decide_ms;
        drop(input);
        release_votes(votes, raw_votes);
        if !completed? {
            return Ok(EvaluationOutcome::AlreadyComplete);
        }
        tracing::info!(
            ?winners,
            outcome = outcome.map(Outcome::as_str),
            votes = votes_len,
            read_ms,
            decode_ms,
            decide_ms,
            store_ms,
            "task complete"
        );
        if task.enable_live_streaming {
            self.changes.task_changed(id).await;
        }

        let message = voting_result(id, &winners, &payload);
        let sends = winners.iter().map(|w| self.publisher.publish(w, &message));
        for failure in join_all(sends).await.into_iter().filter_map(Result::err) {
            tracing::error!(error = %failure, "voting_result not delivered");
        }
        Ok(EvaluationOutcome::Completed { winners })
    }

    /// Runs choice evaluation, the tie-breaker when needed, and post-award. Returns the final
    /// winners and the post-award payload; fills `dsl_outputs` with each hook's raw output.
    async fn decide(
        &self,
        input: &HookInput<'_>,
        evaluation: &agora_voting_schema::SocialChoiceEvaluationInput,
        dsl_outputs: &mut Map<String, Value>,
    ) -> Result<(Vec<String>, Value), Failure> {
        let out = self.run_required(Hook::ChoiceEvaluation, &evaluation.choice_evaluation, input).await?;
        let mut winners = read_winners(&out).map_err(|error| Failure { hook: Hook::ChoiceEvaluation, error })?;
        dsl_outputs.insert(Hook::ChoiceEvaluation.output_key().into(), out);

        if winners.len() > 1 && !evaluation.tie_breaker.is_empty() {
            let tied = input.with_winners(&winners);
            let out = self.run_required(Hook::TieBreaker, &evaluation.tie_breaker, &tied).await?;
            let broken = read_winners(&out).map_err(|error| Failure { hook: Hook::TieBreaker, error })?;
            dsl_outputs.insert(Hook::TieBreaker.output_key().into(), out);
            winners = broken;
        }

        self.award(input, evaluation, winners, dsl_outputs).await
    }

    /// Runs post-award on the final `winners` (§4.6: even when there are none). Returns them and
    /// the post-award payload.
    async fn award(
        &self,
        input: &HookInput<'_>,
        evaluation: &agora_voting_schema::SocialChoiceEvaluationInput,
        winners: Vec<String>,
        dsl_outputs: &mut Map<String, Value>,
    ) -> Result<(Vec<String>, Value), Failure> {
        let final_input = input.with_winners(&winners);
        let payload = self.run_required(Hook::PostAward, &evaluation.post_awarding, &final_input).await?;
        if !payload.is_object() {
            return Err(Failure {
                hook: Hook::PostAward,
                error: HookError::Malformed(format!("output must be a JSON object, got {payload}")),
            });
        }
        dsl_outputs.insert(Hook::PostAward.output_key().into(), payload.clone());
        Ok((winners, payload))
    }

    async fn run_required(&self, hook: Hook, spec: &agora_voting_schema::FunctionSpec, input: &HookInput<'_>) -> Result<Value, Failure> {
        if spec.is_empty() {
            return Err(Failure { hook, error: HookError::NotConfigured });
        }
        self.hooks.run(hook, spec, &input.user_input.task.social_task_id, input).await.map_err(|error| Failure { hook, error })
    }
}

/// How a task with a quorum was decided, written as the report's `outcome`; a task
/// without one has no `outcome`, its report is the spec's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// The quorum was met: the rule decided.
    Decided,
    /// Fewer qualified votes than the quorum: no winner, post-award runs with none.
    NoQuorum,
}

impl Outcome {
    fn of(task: &agora_voting_schema::SocialTaskCoreData, qualified_votes: usize) -> Option<Self> {
        let quorum = task.options().quorum?;
        Some(if (qualified_votes as i64) < quorum { Outcome::NoQuorum } else { Outcome::Decided })
    }

    fn as_str(self) -> &'static str {
        match self {
            Outcome::Decided => "decided",
            Outcome::NoQuorum => "no_quorum",
        }
    }
}

/// The report (§2.6) with the `outcome` of a task that has a quorum.
#[derive(serde::Serialize)]
struct WithOutcome<R> {
    #[serde(flatten)]
    report: R,
    outcome: &'static str,
}

/// §4.4: `winner` (checked first) or `winners`; anything else is malformed.
fn read_winners(out: &Value) -> Result<Vec<String>, HookError> {
    let as_id = |v: &Value| v.as_str().map(str::to_owned);
    if let Some(w) = out.get("winner") {
        return as_id(w).map(|w| vec![w]).ok_or_else(|| HookError::Malformed(format!("winner must be a string, got {w}")));
    }
    match out.get("winners") {
        Some(Value::Array(items)) => items
            .iter()
            .map(as_id)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| HookError::Malformed("winners must be an array of strings".into())),
        Some(other) => Err(HookError::Malformed(format!("winners must be an array of strings, got {other}"))),
        None => Err(HookError::Malformed("output has neither winner nor winners".into())),
    }
}

/// Frees the votes of an evaluation: a million of them take a few hundred milliseconds to free,
/// done on a thread of their own beside the write of the report rather than before it.
fn release_votes(votes: Vec<Vote>, raw: Vec<Json>) {
    const ASIDE_FROM: usize = 20_000;
    if votes.len() < ASIDE_FROM {
        return;
    }
    let freed = std::thread::Builder::new().name("agora-free-votes".into()).spawn(move || drop((votes, raw)));
    if let Err(e) = freed {
        tracing::debug!(error = %e, "no thread to free the votes on; freed in place");
    }
}

/// Decodes stored votes into typed votes, on every core for large tasks.
async fn decode_votes(raw: &[Json]) -> Result<Vec<Vote>, VotingError> {
    const PARALLEL_FROM: usize = 20_000;
    if raw.len() < PARALLEL_FROM {
        return crate::repo::decode_all(raw);
    }
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = raw.len().div_ceil(threads);
    let decode = || {
        std::thread::scope(|s| {
            let parts: Vec<_> = raw.chunks(chunk).map(|c| s.spawn(move || crate::repo::decode_all::<Vote>(c))).collect();
            let mut votes = Vec::with_capacity(raw.len());
            for p in parts {
                votes.extend(p.join().map_err(|_| VotingError::internal("vote decoding panicked"))??);
            }
            Ok(votes)
        })
    };
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(decode),
        _ => decode(),
    }
}
