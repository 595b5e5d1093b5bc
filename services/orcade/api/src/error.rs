//! The one place where the flows' errors become what a client reads: the HTTP status and the
//! message of `{"ok": false, "error": "<message>"}` (§3). The flows' errors are typed
//! ([`OrcadeError`]); the status and the words are the API's, in one table (the
//! [`ServiceError`] impl below). An internal error is logged with its cause (by the platform's
//! shell, `agora_http::shell`); the client reads only `Internal server error`.

use crate::shell::Api;
use agora_http::ServiceError;
use agora_orcade_core::OrcadeError;
use agora_support::InternalError;
use axum::http::StatusCode;

/// An error on its way to the client, in the envelope.
pub type ApiError = agora_http::ApiError<OrcadeError, Api>;

/// Orcade's table: the status and message of each error.
impl ServiceError<Api> for OrcadeError {
    fn status(&self) -> StatusCode {
        match self {
            Self::InvalidJob(_)
            | Self::UnavailableHooks(_)
            | Self::InvalidBid(_)
            | Self::InvalidPatch(_)
            | Self::InvalidFilter(_)
            | Self::NoTags
            | Self::InvalidMatch(_) => StatusCode::BAD_REQUEST,
            Self::NotOnRoster { .. } | Self::NotCreator { .. } | Self::NotBidder { .. } => StatusCode::FORBIDDEN,
            Self::UnknownJob(_) | Self::UnknownBid(_) => StatusCode::NOT_FOUND,
            Self::JobIdTaken(_)
            | Self::AlreadyBid { .. }
            | Self::JobClosed(_)
            | Self::JobFull { .. }
            | Self::PqtRefused { .. }
            | Self::BidsFinal { .. }
            | Self::AlreadyClosed(_) => StatusCode::CONFLICT,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn wording(&self) -> String {
        match self {
            Self::InvalidJob(errors) | Self::InvalidBid(errors) | Self::InvalidPatch(errors) => errors.to_string(),
            Self::UnavailableHooks(problems) => problems.join("; "),
            Self::JobIdTaken(id) => format!("bid_job_id {id:?} is already used by another bid job"),
            Self::UnknownJob(id) => format!("Bid job {id:?} not found"),
            Self::UnknownBid(id) => format!("Bid {id:?} not found"),
            Self::NotOnRoster { bid_job_id, subject } => {
                format!("Subject {subject:?} is not on the roster of bid job {bid_job_id:?}")
            }
            Self::AlreadyBid { bid_job_id, subject } => format!("Subject {subject:?} has already bid on bid job {bid_job_id:?}"),
            Self::JobClosed(id) => format!("Bid job {id:?} is closed"),
            Self::JobFull { bid_job_id, max_subjects } => {
                format!("Bid job {bid_job_id:?} is full: it has accepted its {max_subjects} subjects")
            }
            Self::PqtRefused { reason, .. } => format!("Bid refused by the PQT: {reason}"),
            Self::AlreadyClosed(id) => format!("Bid job {id:?} is already closed"),
            Self::BidsFinal { bid_job_id, evaluated } => {
                let state = if *evaluated { "evaluated" } else { "closed" };
                format!("Bid job {bid_job_id:?} is {state}: its bids can no longer be withdrawn")
            }
            Self::NotCreator { bid_job_id, action } => {
                format!("Forbidden: only the creator of bid job {bid_job_id:?} or an operator may {action} it")
            }
            Self::NotBidder { bid_id, action } => {
                format!("Forbidden: only the subject of bid {bid_id:?} or an operator may {action} it")
            }
            Self::InvalidFilter(e) => format!("Invalid filter: {e}"),
            Self::NoTags => "tags must name at least one tag (tags=a,b)".into(),
            Self::InvalidMatch(got) => format!("match must be \"all\" or \"any\", got {got:?}"),
            Self::Internal(_) => "Internal server error".into(),
        }
    }

    fn internal(&self) -> Option<&InternalError> {
        match self {
            Self::Internal(cause) => Some(cause),
            _ => None,
        }
    }
}
