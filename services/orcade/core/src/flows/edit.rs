//! `PATCH` and `DELETE` of jobs and bids (§3). A PATCH body is checked by the schema's parsers
//! against the document as it is (dotted paths, the status machine's fields refused, a changed
//! builtin checked again with the catalogue, a changed mode checked against this deployment),
//! then set with one store update; the answer is the document as stored after it.
//!
//! Each takes the caller when the front door knows it: a job is changed or deleted only by its
//! creator or an operator, a bid only by its subject or an operator (`None`: authentication is
//! off, and anyone who knows the id may).
//!
//! Deleting a job deletes its bids too (they cannot be reached or evaluated without it); its
//! task results stay, as the audit record of what was sent.

use crate::error::OrcadeError;
use crate::hooks::OrcadeHooks;
use crate::repo::Repo;
use agora_auth::Caller;
use agora_orcade_rules::Catalogue;
use agora_orcade_schema::{parse_bid_job_patch, parse_bid_patch, Bid, BidJob};
use agora_store::{Change, Json};
use serde_json::Value;

/// The edit flow: the store, and the hooks (to check a changed function id's mode).
#[derive(Clone)]
pub struct Edits {
    repo: Repo,
    hooks: OrcadeHooks,
}

impl Edits {
    pub fn new(repo: Repo, hooks: OrcadeHooks) -> Self {
        Self { repo, hooks }
    }

    /// `PATCH /bid-jobs/{id}`.
    pub async fn patch_job(&self, id: &str, body: &Value, by: Option<&Caller>) -> Result<Json, OrcadeError> {
        let unknown = || OrcadeError::UnknownJob(id.to_owned());
        let job = self.repo.job(id).await?.ok_or_else(unknown)?;
        creator_only(&job, by, "change")?;
        let patch = parse_bid_job_patch(body, &job, &Catalogue).map_err(OrcadeError::InvalidPatch)?;
        let mut changed: BidJob = job.clone();
        for (key, value) in &patch.set {
            match (key.as_str(), value.as_str()) {
                ("bid_job_pqt_id", Some(v)) => changed.bid_job_pqt_id = v.to_owned(),
                ("bid_job_evaluator_id", Some(v)) => changed.bid_job_evaluator_id = v.to_owned(),
                _ => {}
            }
        }
        super::check_hooks(&self.hooks, &changed)?;
        if !self.repo.update_job(id, &Change::set(&patch.set)).await? {
            return Err(unknown());
        }
        self.repo.job_raw(id).await?.ok_or_else(unknown)
    }

    /// `PATCH /bids/{id}`.
    pub async fn patch_bid(&self, id: &str, body: &Value, by: Option<&Caller>) -> Result<Json, OrcadeError> {
        let unknown = || OrcadeError::UnknownBid(id.to_owned());
        let bid: Bid = self.repo.bid(id).await?.ok_or_else(unknown)?;
        bidder_only(&bid, by, "change")?;
        let patch = parse_bid_patch(body, &bid).map_err(OrcadeError::InvalidPatch)?;
        if !self.repo.update_bid(id, &Change::set(&patch.set)).await? {
            return Err(unknown());
        }
        self.repo.bid_raw(id).await?.ok_or_else(unknown)
    }

    /// `DELETE /bid-jobs/{id}`: the job and its bids.
    pub async fn delete_job(&self, id: &str, by: Option<&Caller>) -> Result<(), OrcadeError> {
        if by.is_some() {
            let job = self.repo.job(id).await?.ok_or_else(|| OrcadeError::UnknownJob(id.to_owned()))?;
            creator_only(&job, by, "delete")?;
        }
        if !self.repo.delete_job(id).await? {
            return Err(OrcadeError::UnknownJob(id.to_owned()));
        }
        for bid in crate::repo::decode_all::<Bid>(&self.repo.bids_raw(id).await?)? {
            self.repo.delete_bid(&bid.bid_id).await?;
        }
        tracing::info!(bid_job_id = id, "bid job deleted, with its bids");
        Ok(())
    }

    /// `DELETE /bids/{id}`.
    pub async fn delete_bid(&self, id: &str, by: Option<&Caller>) -> Result<(), OrcadeError> {
        if by.is_some() {
            let bid: Bid = self.repo.bid(id).await?.ok_or_else(|| OrcadeError::UnknownBid(id.to_owned()))?;
            bidder_only(&bid, by, "delete")?;
        }
        if !self.repo.delete_bid(id).await? {
            return Err(OrcadeError::UnknownBid(id.to_owned()));
        }
        Ok(())
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
