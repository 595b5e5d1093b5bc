//! `PATCH` and `DELETE` of jobs and bids (§3). A PATCH body, the spec's raw `$set`, is checked
//! by the schema's parsers against the document as it is (dotted paths, any field, the status
//! machine's fields refused, a changed builtin checked again with the catalogue, a changed mode
//! checked against this deployment), then set with one store update; the answer is the document
//! as stored after it, fields the entity does not define included.
//!
//! A closed or mixed job's roster may be replaced while the job is open: a member with a bid on
//! file stays (400 naming it otherwise), each new member gets a `bid_request`, and when every
//! member of the new roster has a bid on file the job closes, as the last bid would have closed
//! it. The write is conditional on the job being open (409 once it closed).
//!
//! Each takes the caller when the front door knows it: a job is changed or deleted only by its
//! creator or an operator, a bid only by its subject or an operator (`None`: authentication is
//! off, and anyone who knows the id may).
//!
//! Deleting a job fences its bid counter first (a bid that read the job before is refused in the
//! write that would store it), then deletes everything that is its (bids, task results,
//! evaluation record and claims), then the job, so that a job created again under the id starts
//! clean (each record is keyed by the job's incarnation anyway, [`crate::incarnation`]).
//!
//! Withdrawing a bid (`DELETE /bids/{id}`) deletes it and lowers its job's count in one atomic
//! write, refused once the job is fenced: while the job is open the place is given back (an
//! open job's roster is its bids, so the applicant leaves it too; a closed or mixed job waits
//! for that member's bid again); once closed or evaluated, 409 saying which. A bid whose job is
//! gone is simply deleted.

use crate::closing::Closing;
use crate::error::OrcadeError;
use crate::hooks::OrcadeHooks;
use crate::ports::WorkQueue;
use crate::repo::{decode, Repo};
use agora_auth::Caller;
use agora_filter::Filter;
use agora_orcade_rules::Catalogue;
use agora_orcade_schema::{parse_bid_job_patch, parse_bid_patch, Bid, BidJob, BidJobStatus, FieldError, ValidationErrors};
use agora_store::{Change, Json, Uncounted};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The edit flow: the store, the hooks (to check a changed function id's mode), and for a
/// changed roster the delivery queue and the closing of jobs.
#[derive(Clone)]
pub struct Edits {
    repo: Repo,
    hooks: OrcadeHooks,
    deliveries: Arc<dyn WorkQueue>,
    closing: Closing,
}

impl Edits {
    pub fn new(repo: Repo, hooks: OrcadeHooks, deliveries: Arc<dyn WorkQueue>, closing: Closing) -> Self {
        Self { repo, hooks, deliveries, closing }
    }

    /// `PATCH /bid-jobs/{id}`.
    #[tracing::instrument(skip_all, fields(bid_job_id = id))]
    pub async fn patch_job(&self, id: &str, body: &Value, by: Option<&Caller>) -> Result<Json, OrcadeError> {
        let unknown = || OrcadeError::UnknownJob(id.to_owned());
        let raw = self.repo.job_raw(id).await?.ok_or_else(unknown)?;
        let stored: Map<String, Value> = decode(&raw)?;
        let job: BidJob = decode(&raw)?;
        creator_only(&job, by, "change")?;
        let patch = parse_bid_job_patch(body, &job, &stored, &Catalogue).map_err(OrcadeError::InvalidPatch)?;
        let mut changed: BidJob = job.clone();
        for (key, value) in &patch.set {
            match (key.as_str(), value.as_str()) {
                ("bid_job_pqt_id", Some(v)) => changed.bid_job_pqt_id = v.to_owned(),
                ("bid_job_evaluator_id", Some(v)) => changed.bid_job_evaluator_id = v.to_owned(),
                _ => {}
            }
        }
        super::check_hooks(&self.hooks, &changed)?;
        let Some(roster) = &patch.roster else {
            if !self.repo.update_job(id, &Filter::all(), &Change::set(&patch.set)).await? {
                return Err(unknown());
            }
            return self.repo.job_raw(id).await?.ok_or_else(unknown);
        };
        self.replace_roster(&job, roster, &patch.set).await?;
        self.repo.job_raw(id).await?.ok_or_else(unknown)
    }

    /// Sets a PATCH that replaces a closed or mixed job's roster (see the module docs).
    async fn replace_roster(&self, job: &BidJob, roster: &[String], set: &Map<String, Value>) -> Result<(), OrcadeError> {
        let id = &job.bid_job_id;
        if job.bid_job_status == BidJobStatus::Closed {
            return Err(OrcadeError::JobClosed(id.clone()));
        }
        let bids = crate::repo::decode_all::<Bid>(&self.repo.bids_raw(id).await?)?;
        let dropped: Vec<FieldError> = bids
            .iter()
            .filter(|b| !roster.contains(&b.bid_subject_id))
            .map(|b| FieldError {
                path: "bid_job_subject_ids".into(),
                message: format!("must keep {:?}: that subject has a bid on file", b.bid_subject_id),
            })
            .collect();
        if !dropped.is_empty() {
            return Err(OrcadeError::InvalidPatch(ValidationErrors(dropped)));
        }
        let open = Filter::must(json!({"bid_job_status": BidJobStatus::Open}));
        if !self.repo.update_job(id, &open, &Change::set(set)).await? {
            return match self.repo.job(id).await? {
                Some(_) => Err(OrcadeError::JobClosed(id.clone())),
                None => Err(OrcadeError::UnknownJob(id.clone())),
            };
        }
        tracing::info!(members = roster.len(), "roster replaced");
        let new_members: Vec<String> = roster.iter().filter(|s| !job.has_subject(s)).cloned().collect();
        crate::messages::request_bids(self.deliveries.as_ref(), job, Some(&new_members)).await;
        let (n, _) = self.repo.bids_on_file(job).await?;
        if n >= roster.len() as i64 {
            self.closing.close(job, "every member of the new roster has a bid on file").await?;
        }
        Ok(())
    }

    /// `PATCH /bids/{id}`.
    #[tracing::instrument(skip_all, fields(bid_id = id))]
    pub async fn patch_bid(&self, id: &str, body: &Value, by: Option<&Caller>) -> Result<Json, OrcadeError> {
        let unknown = || OrcadeError::UnknownBid(id.to_owned());
        let raw = self.repo.bid_raw(id).await?.ok_or_else(unknown)?;
        let (bid, stored): (Bid, Map<String, Value>) = (decode(&raw)?, decode(&raw)?);
        bidder_only(&bid, by, "change")?;
        let patch = parse_bid_patch(body, &bid, &stored).map_err(OrcadeError::InvalidPatch)?;
        if !self.repo.update_bid(id, &Change::set(&patch.set)).await? {
            return Err(unknown());
        }
        self.repo.bid_raw(id).await?.ok_or_else(unknown)
    }

    /// `DELETE /bid-jobs/{id}`: the job and everything that is its (see the module docs).
    #[tracing::instrument(skip_all, fields(bid_job_id = id))]
    pub async fn delete_job(&self, id: &str, by: Option<&Caller>) -> Result<(), OrcadeError> {
        let job = self.repo.job(id).await?.ok_or_else(|| OrcadeError::UnknownJob(id.to_owned()))?;
        creator_only(&job, by, "delete")?;
        // The fence first: from here on no bid of it is stored or withdrawn. Then what is its,
        // and the job last, so that a delete cut short leaves the job to be deleted again (its
        // id cannot be taken by a new job while the old one's bids are still on file).
        self.repo.fence_bids(&job).await?;
        self.repo.remove_job_records(&job).await?;
        if !self.repo.delete_job(&job).await? {
            return Err(OrcadeError::UnknownJob(id.to_owned()));
        }
        tracing::info!("bid job deleted, with its bids, results and records");
        Ok(())
    }

    /// `DELETE /bids/{id}`: the bid withdrawn (see the module docs). Its span names the bid, and
    /// its job once read.
    #[tracing::instrument(skip_all, fields(bid_id = id, bid_job_id = tracing::field::Empty))]
    pub async fn delete_bid(&self, id: &str, by: Option<&Caller>) -> Result<(), OrcadeError> {
        let unknown = || OrcadeError::UnknownBid(id.to_owned());
        let bid: Bid = self.repo.bid(id).await?.ok_or_else(unknown)?;
        tracing::Span::current().record("bid_job_id", bid.bid_job_id.as_str());
        bidder_only(&bid, by, "delete")?;
        let Some(job) = self.repo.job(&bid.bid_job_id).await? else {
            return if self.repo.delete_bid(id).await? { Ok(()) } else { Err(unknown()) };
        };
        match self.repo.withdraw_bid(&bid, &job).await? {
            Uncounted::Deleted(_) => {
                tracing::info!(subject = %bid.bid_subject_id, "bid withdrawn");
                Ok(())
            }
            Uncounted::Missing => Err(unknown()),
            Uncounted::Full => {
                let evaluated = self.repo.evaluation(&job).await?.is_some();
                Err(OrcadeError::BidsFinal { bid_job_id: job.bid_job_id.clone(), evaluated })
            }
        }
    }
}

/// Refuses `by` unless it is the job's creator or an operator.
fn creator_only(job: &BidJob, by: Option<&Caller>, action: &'static str) -> Result<(), OrcadeError> {
    match by {
        Some(caller) if !caller.may_act_as(&job.bid_job_creator_id) => {
            Err(OrcadeError::NotCreator { bid_job_id: job.bid_job_id.clone(), action })
        }
        _ => Ok(()),
    }
}

/// Refuses `by` unless it is the bid's subject or an operator.
fn bidder_only(bid: &Bid, by: Option<&Caller>, action: &'static str) -> Result<(), OrcadeError> {
    match by {
        Some(caller) if !caller.may_act_as(&bid.bid_subject_id) => Err(OrcadeError::NotBidder { bid_id: bid.bid_id.clone(), action }),
        _ => Ok(()),
    }
}
