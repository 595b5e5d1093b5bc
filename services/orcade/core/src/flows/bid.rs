//! Bid intake (`POST /bid-jobs/{id}/bids`, §3): the checks in order, the PQT inline, the bid
//! stored with its job's counter in one atomic write, then the trigger.
//!
//! 1. The job must exist (404), then the body must parse (400).
//! 2. Closed and mixed jobs take bids from their roster only (403).
//! 3. A closed job takes no bid (409 closed, or full for an open job that filled); an open job
//!    whose `bid_job_closes_at` has passed is closed now, and refuses the bid.
//! 4. A subject with a bid on file is refused (409) before a remote PQT runs; with a builtin PQT
//!    (or none) the store's one-bid-per-subject index refuses it in the write, or, when the PQT
//!    refuses an open job's applicant, a read before the answer: the same 409 either way.
//! 5. The PQT (`""`: accepted) runs under the hook time limit; an error or a malformed output
//!    refuses the bid with a reason that says so. A refused bid is kept on a closed or mixed job
//!    (`bid_data.bid_rejected`, `bid_data.pqt_reason`: it completes the roster) and answered
//!    409; on an open job it is not stored.
//! 6. The store enforces the rest in the same write: one bid per subject (409), at most
//!    `bid_job_max_subjects` accepted on an open job (409 full), none after the close
//!    ([`crate::closing`]'s fence, 409 closed).
//! 7. The bid that fills an open job, or that completes a closed or mixed job's roster, closes
//!    the job, which requests the evaluation. (An open job's applicants are its accepted bids:
//!    nothing else is written per bid, see [`crate::closing`].)
//!
//! A job deleted after the bid read it refuses the bid in the write that would store it (the
//! delete fences its counter): 404; one deleted and created again under its id takes the bid
//! instead (read again, once).

use crate::closing::{on_file, Closing};
use crate::error::OrcadeError;
use crate::hooks::{output_of, OrcadeHooks, OrcadeInput};
use crate::incarnation::JobKey;
use crate::ports::Clock;
use crate::repo::Repo;
use agora_orcade_schema::{new_id, parse_bid_request, Bid, BidJob, BidJobMode, BidJobStatus, Hook, HookTarget, PqtInput, PqtVerdict};
use agora_store::sharded::ShardCounted;
use agora_store::StoreError;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The bid flow: the store, the PQT, the clock, and the closing of jobs.
#[derive(Clone)]
pub struct BidIntake {
    repo: Repo,
    jobs: JobCache,
    hooks: OrcadeHooks,
    clock: Arc<dyn Clock>,
    closing: Closing,
}

/// What one attempt at a bid came to.
enum Attempt {
    Stored(Bid),
    /// The job the attempt read was deleted and created again under its id: try this one.
    JobRecreated(Arc<BidJob>),
}

impl BidIntake {
    pub fn new(repo: Repo, hooks: OrcadeHooks, clock: Arc<dyn Clock>, closing: Closing) -> Self {
        Self { jobs: JobCache::default(), repo, hooks, clock, closing }
    }

    /// Takes one bid request for the job `bid_job_id` through §3; returns the stored bid. Its
    /// span names the job, and the bid once the request parses; the answer is counted (stored,
    /// or refused by kind).
    #[tracing::instrument(skip_all, fields(bid_job_id = bid_job_id, bid_id = tracing::field::Empty))]
    pub async fn submit_bid(&self, bid_job_id: &str, body: &Value) -> Result<Bid, OrcadeError> {
        let answer = self.take_bid(bid_job_id, body).await;
        crate::telemetry::bid_answered(&answer);
        answer
    }

    async fn take_bid(&self, bid_job_id: &str, body: &Value) -> Result<Bid, OrcadeError> {
        let now = self.clock.now();
        let job = self.job(bid_job_id, now).await?;
        let bid = parse_bid_request(body, bid_job_id, &new_id(), now).map_err(OrcadeError::InvalidBid)?;
        tracing::Span::current().record("bid_id", bid.bid_id.as_str());
        match self.attempt(job, bid.clone(), now).await? {
            Attempt::Stored(bid) => Ok(bid),
            // Once: a job deleted and created again twice within one bid's time is the client's
            // race to settle.
            Attempt::JobRecreated(job) => match self.attempt(job, bid, now).await? {
                Attempt::Stored(bid) => Ok(bid),
                Attempt::JobRecreated(job) => Err(OrcadeError::JobClosed(job.bid_job_id.clone())),
            },
        }
    }

    async fn attempt(&self, mut job: Arc<BidJob>, mut bid: Bid, now: DateTime<Utc>) -> Result<Attempt, OrcadeError> {
        let bid_job_id = job.bid_job_id.clone();
        let bid_job_id = bid_job_id.as_str();
        let subject = bid.bid_subject_id.clone();
        let fixed = job.bid_job_mode.has_fixed_roster();
        if fixed && !job.has_subject(&subject) {
            // A PATCH may have replaced the roster since the job was read: ask the store.
            job = self.fresh_job(bid_job_id, now).await?;
            if !job.has_subject(&subject) {
                return Err(OrcadeError::NotOnRoster { bid_job_id: bid_job_id.to_owned(), subject });
            }
        }
        if job.bid_job_status == BidJobStatus::Closed {
            return Err(closed_or_full(&job, job.bid_job_subject_ids.len() as i64));
        }
        if job.bid_job_mode == BidJobMode::Open && job.bid_job_closes_at.is_some_and(|at| at <= now) {
            self.closing.close(&job, "bid_job_closes_at passed").await?;
            return Err(OrcadeError::JobClosed(bid_job_id.to_owned()));
        }
        // A second bid is refused as such, before a remote PQT is asked about it. A builtin PQT
        // (or none) costs nothing to run, and the store refuses the duplicate in the same write
        // that would store it: the read is saved on every accepted bid.
        let pqt = job.pqt();
        let remote_pqt = !pqt.is_empty() && !matches!(pqt.target(), Ok(Some(HookTarget::Builtin { .. })));
        if remote_pqt && self.repo.bid_by_subject(bid_job_id, &subject).await?.is_some() {
            return Err(already(&job, &subject));
        }

        let verdict = self.pre_qualify(&job, &bid).await;
        if !verdict.accepted && !fixed {
            if !remote_pqt && self.repo.bid_by_subject(bid_job_id, &subject).await?.is_some() {
                return Err(already(&job, &subject));
            }
            tracing::info!(subject = %subject, reason = %verdict.reason, "applicant refused by the PQT; not stored");
            return Err(OrcadeError::PqtRefused { reason: verdict.reason, stored: false });
        }
        if !verdict.accepted {
            bid.reject(verdict.reason.clone());
        }
        let key = JobKey::of(&job);
        // The count, when this write could have completed the job: every bid of a job counted
        // in one shard under the fence (a fixed roster, an open job with no maximum), the bid
        // that fills a shard of an open job's places.
        let count = match self.repo.insert_counted_bid(&bid, &job).await {
            Ok(ShardCounted::Stored { total, .. }) => total,
            Ok(ShardCounted::Full) => return self.refused_by_the_counter(&job, now).await,
            Err(StoreError::Duplicate { .. }) => return Err(already(&job, &subject)),
            Err(e) => return Err(e.into()),
        };
        tracing::info!(subject = %subject, accepted = verdict.accepted, "bid stored");

        if let Some((n, false)) = count.map(on_file) {
            if fixed {
                // Complete by the roster read: the store's roster decides (a PATCH may have grown it).
                if n >= job.bid_job_subject_ids.len() as i64 {
                    let fresh = self.fresh_job(bid_job_id, now).await?;
                    if JobKey::of(&fresh) == key && n >= fresh.bid_job_subject_ids.len() as i64 {
                        self.closing.close(&fresh, "every roster member has a bid on file").await?;
                    }
                }
            } else if job.bid_job_max_subjects.is_some_and(|max| n >= max) {
                self.closing.close(&job, "bid_job_max_subjects accepted").await?;
            }
        }
        if !verdict.accepted {
            return Err(OrcadeError::PqtRefused { reason: verdict.reason, stored: true });
        }
        Ok(Attempt::Stored(bid))
    }

    /// Why the counter refused a bid on `job`, as read: the job is full or closed, or it was
    /// deleted (404), or deleted and created again (try that one).
    async fn refused_by_the_counter(&self, job: &BidJob, now: DateTime<Utc>) -> Result<Attempt, OrcadeError> {
        let fresh = match self.repo.job(&job.bid_job_id).await? {
            None => return Err(OrcadeError::UnknownJob(job.bid_job_id.clone())),
            Some(fresh) => Arc::new(fresh),
        };
        self.jobs.put(&job.bid_job_id, fresh.clone(), now);
        if JobKey::of(&fresh) != JobKey::of(job) {
            return Ok(Attempt::JobRecreated(fresh));
        }
        let (accepted, _) = self.repo.bids_on_file(job).await?;
        Err(closed_or_full(&fresh, accepted))
    }

    /// The job as read at most [`JOB_CACHE_TTL`] ago.
    async fn job(&self, bid_job_id: &str, now: DateTime<Utc>) -> Result<Arc<BidJob>, OrcadeError> {
        if let Some(job) = self.jobs.get(bid_job_id, now) {
            return Ok(job);
        }
        self.fresh_job(bid_job_id, now).await
    }

    /// The job as stored now (and cached for the next bids).
    async fn fresh_job(&self, bid_job_id: &str, now: DateTime<Utc>) -> Result<Arc<BidJob>, OrcadeError> {
        let job = Arc::new(self.repo.job(bid_job_id).await?.ok_or_else(|| OrcadeError::UnknownJob(bid_job_id.to_owned()))?);
        self.jobs.put(bid_job_id, job.clone(), now);
        Ok(job)
    }

    /// The PQT's verdict. No PQT: accepted. A hook error or a malformed output refuses the bid
    /// with a reason that says so (§4).
    async fn pre_qualify(&self, job: &BidJob, bid: &Bid) -> PqtVerdict {
        let spec = job.pqt();
        if spec.is_empty() {
            return PqtVerdict::accept("no PQT configured");
        }
        let input = OrcadeInput::Pqt(PqtInput { bid_job: job, bid });
        match self.hooks.run(Hook::Pqt, &spec, &job.bid_job_id, &input).await {
            Ok(out) => {
                PqtVerdict::from_output(output_of(Hook::Pqt, &out)).unwrap_or_else(|e| PqtVerdict::refuse(format!("the PQT failed: {e}")))
            }
            Err(e) => PqtVerdict::refuse(format!("the PQT failed: {e}")),
        }
    }
}

/// Why a closed or full job refuses a bid: full when an open job has its accepted applicants.
fn closed_or_full(job: &BidJob, accepted: i64) -> OrcadeError {
    match job.bid_job_max_subjects {
        Some(max) if job.bid_job_mode == BidJobMode::Open && accepted >= max => {
            OrcadeError::JobFull { bid_job_id: job.bid_job_id.clone(), max_subjects: max }
        }
        _ => OrcadeError::JobClosed(job.bid_job_id.clone()),
    }
}

fn already(job: &BidJob, subject: &str) -> OrcadeError {
    OrcadeError::AlreadyBid { bid_job_id: job.bid_job_id.clone(), subject: subject.to_owned() }
}

/// How long a bid trusts a job it read: a closed or mixed job's document holds its whole
/// roster, which every bid would otherwise read again. What decides a bid does not go stale: the
/// mode, `bid_job_max_subjects` and `bid_job_closes_at` cannot be changed, a job that closed or
/// was deleted meanwhile refuses the bid in the write that would store it (the fence), and a
/// closed or mixed job's
/// roster, which a PATCH may replace, is read again before a bidder is refused as not on it and
/// before the job closes as complete. A PATCH of the PQT or its parameters applies to bids from
/// this long after it.
pub const JOB_CACHE_TTL: chrono::Duration = chrono::Duration::seconds(1);

/// How many jobs are kept before the cache starts over.
const JOB_CACHE_JOBS: usize = 1024;

/// A job as a bid read it, and when.
type CachedJob = (Arc<BidJob>, DateTime<Utc>);

/// The jobs bids read lately. Clones share the cache.
#[derive(Clone, Default)]
struct JobCache(Arc<Mutex<HashMap<String, CachedJob>>>);

impl JobCache {
    fn get(&self, id: &str, now: DateTime<Utc>) -> Option<Arc<BidJob>> {
        let jobs = self.0.lock().unwrap_or_else(|p| p.into_inner());
        jobs.get(id).filter(|(_, read)| now - *read < JOB_CACHE_TTL && *read <= now).map(|(job, _)| job.clone())
    }

    fn put(&self, id: &str, job: Arc<BidJob>, now: DateTime<Utc>) {
        let mut jobs = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if jobs.len() >= JOB_CACHE_JOBS {
            jobs.clear();
        }
        jobs.insert(id.to_owned(), (job, now));
    }
}
