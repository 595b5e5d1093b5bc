//! Vote intake (§3.3, §1.2 steps 4–5): the checks in order, idempotent retries, the PQT,
//! one vote per subject enforced by the store, then the trigger, counted with this vote.

use super::truthy;
use crate::error::VotingError;
use crate::hooks::VotingHooks;
use crate::ports::{ChangeListener, Clock, WorkQueue};
use crate::repo::Repo;
use crate::specs::SpecCache;
use agora_store::claims::{Claim, Claims};
use agora_store::{DocumentStore, StoreError};
use agora_voting_schema::{parse_vote_request, Hook, HookInput, SocialTaskCoreData, TaskStatus, Vote};
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The answer to an accepted vote: `{"status": "accepted", "qualified": ...}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VoteAccepted {
    pub qualified: bool,
}

/// The vote flow: the store and its claims, the PQT, the evaluation queue, the clock, the
/// change listener, and the task specs it keeps.
#[derive(Clone)]
pub struct VoteIntake {
    repo: Repo,
    claims: Claims,
    hooks: VotingHooks,
    evaluations: Arc<dyn WorkQueue>,
    clock: Arc<dyn Clock>,
    changes: Arc<dyn ChangeListener>,
    specs: SpecCache,
    /// How long the trigger's claim holds before a retried vote may request the evaluation again.
    trigger_lease: chrono::Duration,
}

impl VoteIntake {
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: VotingHooks,
        evaluations: Arc<dyn WorkQueue>,
        clock: Arc<dyn Clock>,
        changes: Arc<dyn ChangeListener>,
        trigger_lease: chrono::Duration,
    ) -> Self {
        let repo = Repo::new(store.clone());
        Self { specs: SpecCache::new(repo.clone()), repo, claims: Claims::new(store), hooks, evaluations, clock, changes, trigger_lease }
    }

    /// Takes one vote request body through §3.3.
    pub async fn submit_vote(&self, body: &Value) -> Result<VoteAccepted, VotingError> {
        let mut vote = parse_vote_request(body).map_err(VotingError::InvalidVote)?;
        let task_id = vote.social_task_id.clone();
        let task = self.repo.task(&task_id).await?.ok_or(VotingError::UnknownTask)?;
        match task.status() {
            Some(TaskStatus::Started) => {}
            Some(TaskStatus::Complete) => return Err(VotingError::TaskComplete),
            _ => return Err(VotingError::TaskNotActive),
        }
        if task.is_private() && !task.org_ids.contains(&vote.submitter_subject_id) {
            return Err(VotingError::NotAMember);
        }
        if let Some(answer) = self.already_stored(&vote).await? {
            // A retry after a failed evaluation request (or a failed count) must be able to
            // request it again: counted exactly, from the stored votes.
            if answer.qualified {
                self.trigger_if_ready(&task, None).await?;
            }
            return Ok(answer);
        }

        vote.qualified = self.pre_qualify(&task, &vote).await?;
        vote.submission_time = self.clock.now();
        let place = if vote.qualified {
            // Once the trigger holds every place is taken (each stored qualified vote holds one),
            // so a qualified vote that gets one comes before the evaluation reads the votes.
            self.take_place(&task).await?
        } else {
            // A disqualified vote takes no place: it is refused once the trigger has held. (A
            // private task closes by itself: by then every member has voted, and votes once.)
            if task.is_public() && self.claims.held(&trigger_claim(&task_id)).await? {
                return Err(VotingError::VotingClosed);
            }
            Place::NotNeeded
        };
        match self.repo.insert_vote(&vote).await {
            Ok(()) => {}
            // Lost a race with a concurrent request: answer as if it had been stored first.
            Err(StoreError::Duplicate { .. }) => {
                self.give_back(&task_id, place).await;
                return self.already_stored(&vote).await?.ok_or(VotingError::AlreadyVoted);
            }
            Err(e) => {
                self.give_back(&task_id, place).await;
                return Err(e.into());
            }
        }
        tracing::info!(social_task_id = %task_id, vote_id = %vote.vote_id, submitter = %vote.submitter_subject_id, qualified = vote.qualified, "vote stored");
        if task.enable_live_streaming {
            self.changes.task_changed(&task_id).await;
        }
        if vote.qualified {
            let counted = match self.repo.count_qualified_vote(&task_id).await {
                Ok(n) => Some(u64::try_from(n).unwrap_or(0)),
                Err(e) => {
                    tracing::warn!(social_task_id = %task_id, error = %e, "qualified-vote counter not raised; counting the stored votes");
                    None
                }
            };
            self.trigger_if_ready(&task, counted).await?;
        }
        Ok(VoteAccepted { qualified: vote.qualified })
    }

    /// A public task accepts at most `duration` qualified votes (§1.3): each takes a place before
    /// it is stored, and a vote that finds none left is refused, so every vote answered accepted
    /// is stored before the trigger (counted after storing) can hold, and is in the report.
    async fn take_place(&self, task: &SocialTaskCoreData) -> Result<Place, VotingError> {
        if !task.is_public() {
            return Ok(Place::NotNeeded);
        }
        let limit = task.trigger_count().max(1);
        match self.repo.take_place(&task.social_task_id, 1).await {
            Ok(n) if n <= limit => Ok(Place::Taken),
            Ok(_) => {
                // Not stored: the place is given back, for the count to stay the places held.
                self.give_back(&task.social_task_id, Place::Taken).await;
                Err(VotingError::VotingClosed)
            }
            Err(e) => {
                // Without the counter, the stored votes say whether a place is left (a race may
                // then let a few more in; the trigger still counts them once stored).
                tracing::warn!(social_task_id = %task.social_task_id, error = %e, "place counter unavailable; counting the stored votes");
                let stored = self.repo.count_qualified(&task.social_task_id, None, limit as u64).await?;
                if stored >= limit as u64 {
                    Err(VotingError::VotingClosed)
                } else {
                    Ok(Place::Uncounted)
                }
            }
        }
    }

    /// Gives back a place a vote took but did not use (its store failed, or it lost a race).
    async fn give_back(&self, task_id: &str, place: Place) {
        if place == Place::Taken {
            if let Err(e) = self.repo.take_place(task_id, -1).await {
                tracing::warn!(social_task_id = %task_id, error = %e, "a place not given back; the task may accept one vote fewer");
            }
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
                    tracing::info!(social_task_id = %id, vote_id = %vote.vote_id, %reason, "vote disqualified by the PQT");
                }
                qualified
            }
            Err(e) => {
                tracing::warn!(social_task_id = %id, vote_id = %vote.vote_id, hook = "voting_pqt", error = %e, "PQT failed; vote disqualified");
                false
            }
        })
    }

    /// §1.3: when the trigger holds (counting the vote just stored), queue one evaluation.
    /// `counted` is the task's qualified-vote counter as this vote raised it; `None` counts the
    /// stored votes instead (a retry, or a counter that could not be raised).
    async fn trigger_if_ready(&self, task: &SocialTaskCoreData, counted: Option<u64>) -> Result<(), VotingError> {
        let id = &task.social_task_id;
        let Some(needed) = trigger_threshold(task) else { return Ok(()) };
        let holds = match counted {
            Some(n) => n >= needed,
            None => {
                let voters =
                    task.is_private().then(|| task.org_ids.iter().collect::<BTreeSet<_>>().into_iter().cloned().collect::<Vec<_>>());
                self.repo.count_qualified(id, voters.as_deref(), needed).await? >= needed
            }
        };
        let claim_key = trigger_claim(id);
        // Reading the claim first spares votes arriving after the trigger a failed write each. The
        // claim is leased: if its evaluation request was lost (the process died before the queue
        // took it), a retried vote past the lease requests it again.
        let now = self.clock.now();
        if !holds
            || self.claims.live(&claim_key, now).await?
            || self.claims.claim(&claim_key, now, Some(self.trigger_lease)).await? == Claim::Held
        {
            return Ok(());
        }
        if let Err(e) = self.evaluations.send(id, &crate::work::evaluation_request(id), std::time::Duration::ZERO).await {
            tracing::error!(social_task_id = %id, error = %e, "evaluation request not queued; the next qualified vote retries");
            self.claims.release(&claim_key).await?;
            return Err(VotingError::internal_caused("the evaluation request could not be queued", e));
        }
        tracing::info!(social_task_id = %id, "trigger holds; evaluation requested");
        Ok(())
    }
}

/// What a vote holds of its task's places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A private task, or a disqualified vote: no place needed.
    NotNeeded,
    /// One place, to give back if the vote is not stored.
    Taken,
    /// Let in by counting the stored votes (the counter was unavailable).
    Uncounted,
}

/// The claim the vote that first finds the trigger holding takes (it queues the evaluation).
fn trigger_claim(task_id: &str) -> String {
    format!("trigger:{task_id}")
}

/// How many qualified votes make the trigger hold (§1.3): every distinct voter of a private task
/// (only they can vote, once each), `duration` (default 5) of a public one; `None` never.
fn trigger_threshold(task: &SocialTaskCoreData) -> Option<u64> {
    if task.is_private() {
        let voters = task.org_ids.iter().collect::<BTreeSet<_>>().len() as u64;
        (voters > 0).then_some(voters)
    } else if task.is_public() {
        Some(task.trigger_count().max(1) as u64)
    } else {
        None
    }
}
