//! The one error type of the Orcade flows: every refusal of §3, typed, with what the API needs
//! to word it. The status and the `{"ok": false, "error": ...}` envelope are the API crate's to
//! choose, in one place; an internal error keeps its cause for the log.

use agora_orcade_schema::ValidationErrors;
use agora_store::StoreError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OrcadeError {
    /// A create request with fields missing or wrong, each named by its path (400).
    #[error("{0}")]
    InvalidJob(ValidationErrors),
    /// Function ids this deployment cannot run: `<field>: <why>` each (400).
    #[error("{}", .0.join("; "))]
    UnavailableHooks(Vec<String>),
    /// A bid request with fields missing or wrong (400).
    #[error("{0}")]
    InvalidBid(ValidationErrors),
    /// A PATCH body that cannot be applied (400).
    #[error("{0}")]
    InvalidPatch(ValidationErrors),
    /// A create request chose a `bid_job_id` another job has (409).
    #[error("bid_job_id {0:?} is already used by another bid job")]
    JobIdTaken(String),
    /// No job has this `bid_job_id` (404).
    #[error("no bid job has the id {0:?}")]
    UnknownJob(String),
    /// No bid has this `bid_id` (404).
    #[error("no bid has the id {0:?}")]
    UnknownBid(String),
    /// The subject is not on the roster of a closed or mixed job (403).
    #[error("subject {subject:?} is not on the roster of bid job {bid_job_id:?}")]
    NotOnRoster { bid_job_id: String, subject: String },
    /// The subject has a bid on file for this job already (409).
    #[error("subject {subject:?} has already bid on bid job {bid_job_id:?}")]
    AlreadyBid { bid_job_id: String, subject: String },
    /// The job takes no more bids: it is closed (409).
    #[error("bid job {0:?} is closed")]
    JobClosed(String),
    /// An open job has its `bid_job_max_subjects` accepted applicants (409).
    #[error("bid job {bid_job_id:?} is full: it has accepted its {max_subjects} subjects")]
    JobFull { bid_job_id: String, max_subjects: i64 },
    /// The PQT refused the bid (409); `reason` is the PQT's, or says how the PQT failed.
    /// `stored` is true on a closed or mixed job, where the refused bid is kept on file.
    #[error("bid refused by the PQT: {reason}")]
    PqtRefused { reason: String, stored: bool },
    /// `DELETE /bids/{id}` of a bid whose job is closed (or evaluated): its bids are final (409).
    #[error("bid job {bid_job_id:?} is {}: its bids can no longer be withdrawn", if *.evaluated { "evaluated" } else { "closed" })]
    BidsFinal { bid_job_id: String, evaluated: bool },
    /// `POST /bid-jobs/{id}/close` on a job that is closed already (409).
    #[error("bid job {0:?} is already closed")]
    AlreadyClosed(String),
    /// A close, PATCH or DELETE of a job by a caller who is neither its creator nor an
    /// operator (403); `action` says which (`close`, `change`, `delete`).
    #[error("only the creator of bid job {bid_job_id:?} or an operator may {action} it")]
    NotCreator { bid_job_id: String, action: &'static str },
    /// A PATCH or DELETE of a bid by a caller who is neither its subject nor an operator (403).
    #[error("only the subject of bid {bid_id:?} or an operator may {action} it")]
    NotBidder { bid_id: String, action: &'static str },
    /// The query's filter is not one of the filter language (400).
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// `GET /bid-jobs/by-tags` without a tag (400).
    #[error("tags must name at least one tag")]
    NoTags,
    /// `match` is neither `all` nor `any` (400).
    #[error("match must be \"all\" or \"any\", got {0:?}")]
    InvalidMatch(String),
    /// Something failed that the caller cannot fix (500); the client reads only that.
    #[error("{0}")]
    Internal(InternalError),
}

pub use agora_support::InternalError;

impl OrcadeError {
    pub fn internal(context: impl Into<String>) -> Self {
        OrcadeError::Internal(InternalError::new(context))
    }

    pub fn internal_caused(context: impl Into<String>, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        OrcadeError::Internal(InternalError::caused(context, cause))
    }

    /// What kind of refusal (or failure) this is, as one snake_case word: the `reason` label of
    /// the refused bids' metric.
    pub fn kind(&self) -> &'static str {
        match self {
            OrcadeError::InvalidJob(_)
            | OrcadeError::InvalidBid(_)
            | OrcadeError::InvalidPatch(_)
            | OrcadeError::InvalidFilter(_)
            | OrcadeError::NoTags
            | OrcadeError::InvalidMatch(_) => "bad_request",
            OrcadeError::UnavailableHooks(_) => "unavailable_hooks",
            OrcadeError::JobIdTaken(_) => "id_taken",
            OrcadeError::UnknownJob(_) | OrcadeError::UnknownBid(_) => "not_found",
            OrcadeError::NotOnRoster { .. } => "not_on_roster",
            OrcadeError::AlreadyBid { .. } => "duplicate",
            OrcadeError::JobClosed(_) => "closed",
            OrcadeError::JobFull { .. } => "full",
            OrcadeError::PqtRefused { .. } => "pqt_refused",
            OrcadeError::BidsFinal { .. } => "bids_final",
            OrcadeError::AlreadyClosed(_) => "already_closed",
            OrcadeError::NotCreator { .. } => "not_creator",
            OrcadeError::NotBidder { .. } => "not_bidder",
            OrcadeError::Internal(_) => "internal",
        }
    }
}

/// Counted by its kind ([`crate::telemetry::store_error`]): every store error a flow does not
/// handle itself passes here.
impl From<StoreError> for OrcadeError {
    fn from(e: StoreError) -> Self {
        crate::telemetry::store_error(&e);
        OrcadeError::internal_caused("the store failed", e)
    }
}

impl From<serde_json::Error> for OrcadeError {
    fn from(e: serde_json::Error) -> Self {
        OrcadeError::internal_caused("a stored document does not decode", e)
    }
}
