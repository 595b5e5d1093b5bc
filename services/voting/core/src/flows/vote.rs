//! Vote intake (§3.3, §1.2 steps 4–5): the checks in order, the PQT, the vote stored with its
//! count in one atomic write (one vote per subject and at most `duration` qualified votes of a
//! public task enforced by the store; the count is sharded, [`trigger::qualified_counter`]),
//! idempotent retries, then the trigger, counted with this vote when its write filled a shard.

use super::truthy;
use crate::error::VotingError;
use crate::hooks::VotingHooks;
use crate::ports::{ChangeListener, Clock, WorkQueue};
use crate::repo::Repo;
use crate::specs::SpecCache;
use crate::tasks::StartedTasks;
use crate::trigger::{self, TriggerLeases};
use agora_store::claims::{Claim, Claims};
use agora_store::sharded::ShardCounted;
use agora_store::{DocumentStore, StoreError};
use agora_voting_schema::options::valid_weight;
use agora_voting_schema::{parse_vote_request, Hook, HookInput, HookTarget, SocialTaskCoreData, TaskStatus, Vote, VotingOptions, Weights};
use serde_json::Value;
use std::sync::Arc;

/// The answer to an accepted vote: `{"status": "accepted", "qualified": ...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoteAccepted {
    pub qualified: bool,
}

/// The vote flow: the store and its claims, the PQT, the evaluation queue, the clock, the
/// change listener, and the tasks and specs it keeps.
#[derive(Clone)]
pub struct VoteIntake {
    repo: Repo,
    claims: Claims,
    hooks: VotingHooks,
    evaluations: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
    changes: Arc<dyn ChangeListener>,
    tasks: StartedTasks,
    specs: SpecCache,
    /// The leases of the trigger's claim ([`crate::trigger`]).
    leases: TriggerLeases,
}

impl VoteIntake {
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: VotingHooks,
        evaluations: Arc<dyn WorkQueue>,
        clock: Arc<dyn Clock>,
        changes: Arc<dyn ChangeListener>,
        leases: TriggerLeases,
    ) -> Self {
        let repo = Repo::new(store.clone());
        Self {
            specs: SpecCache::new(repo.clone()),
            tasks: StartedTasks::new(repo.clone()),
            repo,
            claims: Claims::new(store),
            hooks,
            evaluations,
            clock,
            changes,
            leases,
        }
    }

    /// The started tasks this intake keeps (a canceller of the same process makes them forget
    /// the task it cancels).
    pub fn started_tasks(&self) -> &StartedTasks {
        &self.tasks
    }

    /// Takes one vote request body through §3.3.
    ///
    /// The store keeps the order of things: a qualified vote and its task's count are one atomic
    /// write, refused once a public task's `duration` places are taken; one vote per subject and
    /// per `vote_id` is a unique constraint. A retried request is answered from the vote on file.
    ///
    /// Its span carries the vote's ids once the request parses; the answer is counted
    /// (accepted by verdict, refused by kind).
    #[tracing::instrument(skip_all, fields(social_task_id = tracing::field::Empty, vote_id = tracing::field::Empty))]
    pub async fn submit_vote(&self, body: &Value) -> Result<VoteAccepted, VotingError> {
        let answer = self.take_vote(body).await;
        crate::telemetry::vote_answered(&answer);
        answer
    }

    async fn take_vote(&self, body: &Value) -> Result<VoteAccepted, VotingError> {
        let mut vote = parse_vote_request(body).map_err(VotingError::InvalidVote)?;
        let span = tracing::Span::current();
        span.record("social_task_id", vote.social_task_id.as_str());
        span.record("vote_id", vote.vote_id.as_str());
        let task_id = vote.social_task_id.clone();
        let task = self.tasks.get(&task_id).await?.ok_or(VotingError::UnknownTask)?;
        check_status(&task)?;
        // The task's options, read once for this vote.
        let options = task.options();
        let deadline = options.deadline_at(task.start_time);
        check_deadline(deadline, self.clock.now())?;
        if task.is_private() && !task.org_ids.contains(&vote.submitter_subject_id) {
            return Err(self.refusal(&vote, VotingError::NotAMember).await);
        }

        // A remote PQT is not asked about a vote that is then refused for what the store
        // already says (§3.3's order: duplicate, task, status, membership, then the PQT): a
        // retried vote is answered from the file, a duplicate refused, a full public task
        // refused. A builtin PQT (or none) costs nothing: the write refuses those at once.
        if self.remote_pqt(&task_id).await? {
            if let Some(answer) = self.answered_before_pqt(&task, &vote).await {
                return answer;
            }
        }
        vote.qualified = self.pre_qualify(&task, &vote).await?;
        vote.weight = self.weigh(&task, &options, &vote).await?;
        vote.submission_time = self.clock.now();
        // The PQT may have run past the deadline: a vote stored is received before it.
        check_deadline(deadline, vote.submission_time)?;
        // The task's count as this vote's write left it, when the write filled its shard (only
        // then can it have reached the threshold).
        let counted = if vote.qualified {
            match self.repo.insert_counted_vote(&task, &vote).await {
                Ok(ShardCounted::Stored { total, .. }) => total.map(|n| u64::try_from(n).unwrap_or(0)),
                // Every place is taken: the trigger holds, the evaluation reads these votes.
                Ok(ShardCounted::Full) => return self.retried_or(&task, &vote, VotingError::VotingClosed).await,
                Err(StoreError::Duplicate { .. }) => return self.retried_or(&task, &vote, VotingError::AlreadyVoted).await,
                Err(e) => return Err(e.into()),
            }
        } else {
            // A disqualified vote takes no place: it is refused once the trigger has held. (A
            // private task closes by itself: by then every member has voted, and votes once.)
            if task.is_public() && self.claims.held(&trigger::trigger_claim(&task_id)).await? {
                return self.retried_or(&task, &vote, VotingError::VotingClosed).await;
            }
            match self.repo.insert_vote(&vote).await {
                Ok(()) => None,
                Err(StoreError::Duplicate { .. }) => return self.retried_or(&task, &vote, VotingError::AlreadyVoted).await,
                Err(e) => return Err(e.into()),
            }
        };
        tracing::info!(submitter = %vote.submitter_subject_id, qualified = vote.qualified, "vote stored");
        if task.enable_live_streaming {
            self.changes.task_changed(&task_id).await;
        }
        if let Some(n) = counted {
            self.trigger_if_ready(&task, Some(n)).await?;
        }
        Ok(VoteAccepted { qualified: vote.qualified })
    }

    /// The answer to a vote the store did not take: the stored verdict when it is this very
    /// vote, retried (and a qualified one requests its task's evaluation again if that request
    /// was lost); else `refusal`, or the reason the task as stored now gives.
    async fn retried_or(&self, task: &SocialTaskCoreData, vote: &Vote, refusal: VotingError) -> Result<VoteAccepted, VotingError> {
        match self.already_stored(vote).await {
            Ok(Some(answer)) => {
                if answer.qualified {
                    self.trigger_if_ready(task, None).await?;
                }
                Ok(answer)
            }
            Ok(None) => Err(self.refusal(vote, refusal).await),
            Err(e) => Err(self.refusal(vote, e).await),
        }
    }

    /// `refusal`, unless the task as stored now refuses the vote for its status (it completed
    /// since it was remembered started).
    async fn refusal(&self, vote: &Vote, refusal: VotingError) -> VotingError {
        match self.tasks.fresh(&vote.social_task_id).await {
            Ok(Some(task)) => check_status(&task).err().unwrap_or(refusal),
            Ok(None) => VotingError::UnknownTask,
            Err(e) => e,
        }
    }

    /// A vote already on file for this request: the same vote retried (answered with its stored
    /// verdict), another vote under this `vote_id`, or an earlier vote by this subject.
    async fn already_stored(&self, vote: &Vote) -> Result<Option<VoteAccepted>, VotingError> {
        if let Some(stored) = self.repo.vote(&vote.vote_id).await? {
            let same = stored.social_task_id == vote.social_task_id
                && stored.submitter_subject_id == vote.submitter_subject_id
                && stored.vote_data == vote.vote_data;
            return if same {
                Ok(Some(VoteAccepted { qualified: stored.qualified }))
            } else {
                Err(VotingError::VoteIdTaken(vote.vote_id.clone()))
            };
        }
        if self.repo.vote_by_subject(&vote.social_task_id, &vote.submitter_subject_id).await?.is_some() {
            return Err(VotingError::AlreadyVoted);
        }
        Ok(None)
    }

    /// Whether the task's PQT is called over the network (http, function, dsl, lambda).
    async fn remote_pqt(&self, task_id: &str) -> Result<bool, VotingError> {
        let spec = &self.specs.get(task_id).await?.1.voting_pqt;
        Ok(!spec.is_empty() && !matches!(spec.target(), Ok(Some(HookTarget::Builtin { .. }))))
    }

    /// The answer to a vote that the store already decides: this very vote retried, another
    /// vote under its `vote_id` or by its subject, or a public task whose places are all taken.
    /// `None`: the vote goes on to the PQT.
    async fn answered_before_pqt(&self, task: &SocialTaskCoreData, vote: &Vote) -> Option<Result<VoteAccepted, VotingError>> {
        match self.already_stored(vote).await {
            Ok(Some(answer)) => {
                if answer.qualified {
                    if let Err(e) = self.trigger_if_ready(task, None).await {
                        return Some(Err(e));
                    }
                }
                return Some(Ok(answer));
            }
            Ok(None) => {}
            Err(e) => return Some(Err(self.refusal(vote, e).await)),
        }
        if !task.is_public() {
            return None;
        }
        match self.claims.held(&trigger::trigger_claim(&task.social_task_id)).await {
            Ok(true) => Some(Err(self.refusal(vote, VotingError::VotingClosed).await)),
            Ok(false) => None,
            Err(e) => Some(Err(e.into())),
        }
    }

    /// The vote's weight in a weighted task: its voter's entry in the `weights` map
    /// (1 when not named), or what the `weights` function answers (`{"weight": w}`, a positive
    /// finite number; a hook failure or another answer weighs 1, logged). `None` for an
    /// unweighted task: its votes are stored as the spec has them.
    async fn weigh(&self, task: &SocialTaskCoreData, options: &VotingOptions, vote: &Vote) -> Result<Option<f64>, VotingError> {
        match &options.weights {
            None => Ok(None),
            Some(Weights::Voters(_)) => Ok(options.mapped_weight(&vote.submitter_subject_id)),
            Some(Weights::Function(spec)) => {
                let id = &task.social_task_id;
                let specs = self.specs.get(id).await?;
                let input = HookInput::pqt(task, &specs.0, &specs.1, &vote.vote_data, &vote.submitter_subject_id);
                // Run under the invitation creator's contract (an object, no builtin catalogue):
                // the PQT's would demand `qualified`. A hook kind of its own needs an arm in the
                // rules crate's exhaustive hook names.
                let weight = match self.hooks.run(Hook::Invitation, spec, id, &input).await {
                    Ok(out) => out.get("weight").and_then(Value::as_f64).filter(|w| valid_weight(*w)).unwrap_or_else(|| {
                        tracing::warn!(output = %out, "weights function gave no positive weight; the vote weighs 1");
                        1.0
                    }),
                    Err(e) => {
                        tracing::warn!(hook = "weights", error = %e, "weights function failed; the vote weighs 1");
                        1.0
                    }
                };
                Ok(Some(weight))
            }
        }
    }

    /// The PQT verdict: `bool(output["qualified"])`; any hook error disqualifies (§3.3).
    async fn pre_qualify(&self, task: &SocialTaskCoreData, vote: &Vote) -> Result<bool, VotingError> {
        let id = &task.social_task_id;
        let specs = self.specs.get(id).await?;
        let (subject_spec, evaluation) = (&specs.0, &specs.1);
        let input = HookInput::pqt(task, subject_spec, evaluation, &vote.vote_data, &vote.submitter_subject_id);
        let spec = &evaluation.voting_pqt;
        let result =
            if spec.is_empty() { Err(crate::ports::HookError::NotConfigured) } else { self.hooks.run(Hook::Pqt, spec, id, &input).await };
        Ok(match result {
            Ok(out) => {
                let qualified = out.get("qualified").is_some_and(truthy);
                if !qualified {
                    let reason = out.get("reason").cloned().unwrap_or(Value::Null);
                    tracing::info!(%reason, "vote disqualified by the PQT");
                }
                qualified
            }
            Err(e) => {
                tracing::warn!(hook = "voting_pqt", error = %e, "PQT failed; vote disqualified");
                false
            }
        })
    }

    /// §1.3: when the trigger holds (counting the vote just stored), queue one evaluation.
    ///
    /// `counted` is the task's count of qualified votes as read by this vote's write, which
    /// filled a shard. Counts are exact, and at least one vote's write sees the threshold
    /// reached (the last shard-filling write; two filling two shards at once may both see it,
    /// see [`crate::trigger`]): each such vote queues the evaluation, then records the request
    /// (the trigger claim, which the second finds held) for the repair sweep, which requests it
    /// again if the process dies before the queue has it. A duplicate request is harmless: the
    /// evaluator completes a task once, under its claim and a conditional write.
    ///
    /// `None` (a retried vote) reads the count and requests the evaluation unless the trigger's
    /// claim says it was requested; its claim is leased until the queue has the request.
    async fn trigger_if_ready(&self, task: &SocialTaskCoreData, counted: Option<u64>) -> Result<(), VotingError> {
        let id = &task.social_task_id;
        let Some(needed) = trigger::threshold(task) else { return Ok(()) };
        let claim_key = trigger::trigger_claim(id);
        let now = self.clock.now();
        match counted {
            Some(n) if n < needed => return Ok(()),
            Some(_) => {
                queue_evaluation(self.evaluations.as_ref(), id).await?;
                if let Err(e) = self.claims.claim(&claim_key, now, Some(self.leases.request)).await {
                    // The request is queued; unrecorded, the sweep only requests it once more.
                    tracing::warn!(error = %e, "evaluation request not recorded");
                }
            }
            None => {
                if u64::try_from(self.repo.qualified_count(task).await?).unwrap_or(0) < needed
                    || self.claims.live(&claim_key, now).await?
                    || self.claims.claim(&claim_key, now, Some(self.leases.claim)).await? == Claim::Held
                {
                    return Ok(());
                }
                request_evaluation(&self.claims, self.evaluations.as_ref(), id, now, self.leases.request).await?;
            }
        }
        tracing::info!("trigger holds; evaluation requested");
        Ok(())
    }
}

/// Votes are taken only while the task is `started` (§1.2 step 7).
fn check_status(task: &SocialTaskCoreData) -> Result<(), VotingError> {
    match task.status() {
        Some(TaskStatus::Started) => Ok(()),
        Some(TaskStatus::Complete) => Err(VotingError::TaskComplete),
        Some(TaskStatus::Cancelled) => Err(VotingError::TaskCancelled),
        _ => Err(VotingError::TaskNotActive),
    }
}

/// Votes are taken only before the task's `deadline`, if it has one: at and after it,
/// the task is evaluated with the votes on file.
fn check_deadline(deadline: Option<chrono::DateTime<chrono::Utc>>, now: chrono::DateTime<chrono::Utc>) -> Result<(), VotingError> {
    match deadline {
        Some(deadline) if deadline <= now => Err(VotingError::DeadlinePassed(agora_voting_schema::time::format_datetime(&deadline))),
        _ => Ok(()),
    }
}

/// Queues the evaluation of a task whose trigger claim the caller holds, then settles the claim
/// to the long `request` lease (the queue has the request now). When the queue refuses it, the
/// claim is given back so that the next qualified vote, or the repair sweep, tries again. Logs
/// in its caller's span, which names the task.
pub(crate) async fn request_evaluation(
    claims: &Claims,
    queue: &dyn WorkQueue,
    id: &str,
    now: chrono::DateTime<chrono::Utc>,
    request: chrono::Duration,
) -> Result<(), VotingError> {
    let claim_key = trigger::trigger_claim(id);
    if let Err(e) = queue_evaluation(queue, id).await {
        claims.release(&claim_key).await?;
        return Err(e);
    }
    if let Err(e) = claims.settle(&claim_key, now, request).await {
        // The request is queued; an unsettled claim only lets the sweep request it once more.
        tracing::warn!(error = %e, "trigger claim not settled");
    }
    Ok(())
}

/// Sends the evaluation request of a task (a failure logged in the caller's span).
async fn queue_evaluation(queue: &dyn WorkQueue, id: &str) -> Result<(), VotingError> {
    queue.send(id, &crate::messages::evaluation_request(id), std::time::Duration::ZERO).await.map_err(|e| {
        tracing::error!(error = %e, "evaluation request not queued; a retried vote or the repair sweep requests it");
        VotingError::internal_caused("the evaluation request could not be queued", e)
    })
}
