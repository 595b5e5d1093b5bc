//! The one place where the flows' errors become what a client reads: the HTTP status and the
//! message of `{"ok": false, "error": "<message>"}` (§3). The flows' errors are typed
//! ([`OrcadeError`]); the status and the words are the API's, in one table ([`status_of`],
//! [`wording`]). An internal error is logged here with its cause; the client reads only
//! `Internal server error`.

use agora_orcade_core::OrcadeError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    error: Option<OrcadeError>,
}

impl From<OrcadeError> for ApiError {
    fn from(e: OrcadeError) -> Self {
        // A document the store refused is the input's fault (a request's own checks refuse
        // what a store would, by field, first): a 400 with the store's reason, never a 500.
        if let OrcadeError::Internal(cause) = &e {
            if let Some(reason) = agora_store::StoreError::refused_document_in(cause) {
                let message = format!("The store refused the document: {reason}");
                return ApiError { status: StatusCode::BAD_REQUEST, message, error: Some(e) };
            }
        }
        ApiError { status: status_of(&e), message: wording(&e), error: Some(e) }
    }
}

impl ApiError {
    /// A 400 with `message`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, message)
    }

    /// An answer of `status` with `message`.
    pub fn with_status(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), error: None }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The status of §3 for each error.
fn status_of(e: &OrcadeError) -> StatusCode {
    match e {
        OrcadeError::InvalidJob(_)
        | OrcadeError::UnavailableHooks(_)
        | OrcadeError::InvalidBid(_)
        | OrcadeError::InvalidPatch(_)
        | OrcadeError::InvalidFilter(_)
        | OrcadeError::NoTags
        | OrcadeError::InvalidMatch(_) => StatusCode::BAD_REQUEST,
        OrcadeError::NotOnRoster { .. } | OrcadeError::NotCreator { .. } | OrcadeError::NotBidder { .. } => StatusCode::FORBIDDEN,
        OrcadeError::UnknownJob(_) | OrcadeError::UnknownBid(_) => StatusCode::NOT_FOUND,
        OrcadeError::JobIdTaken(_)
        | OrcadeError::AlreadyBid { .. }
        | OrcadeError::JobClosed(_)
        | OrcadeError::JobFull { .. }
        | OrcadeError::PqtRefused { .. }
        | OrcadeError::BidsFinal { .. }
        | OrcadeError::AlreadyClosed(_) => StatusCode::CONFLICT,
        OrcadeError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The message of each error. A 400 names the field or parameter; a PQT refusal carries the
/// PQT's reason.
fn wording(e: &OrcadeError) -> String {
    match e {
        OrcadeError::InvalidJob(errors) | OrcadeError::InvalidBid(errors) | OrcadeError::InvalidPatch(errors) => errors.to_string(),
        OrcadeError::UnavailableHooks(problems) => problems.join("; "),
        OrcadeError::JobIdTaken(id) => format!("bid_job_id {id:?} is already used by another bid job"),
        OrcadeError::UnknownJob(id) => format!("Bid job {id:?} not found"),
        OrcadeError::UnknownBid(id) => format!("Bid {id:?} not found"),
        OrcadeError::NotOnRoster { bid_job_id, subject } => {
            format!("Subject {subject:?} is not on the roster of bid job {bid_job_id:?}")
        }
        OrcadeError::AlreadyBid { bid_job_id, subject } => format!("Subject {subject:?} has already bid on bid job {bid_job_id:?}"),
        OrcadeError::JobClosed(id) => format!("Bid job {id:?} is closed"),
        OrcadeError::JobFull { bid_job_id, max_subjects } => {
            format!("Bid job {bid_job_id:?} is full: it has accepted its {max_subjects} subjects")
        }
        OrcadeError::PqtRefused { reason, .. } => format!("Bid refused by the PQT: {reason}"),
        OrcadeError::AlreadyClosed(id) => format!("Bid job {id:?} is already closed"),
        OrcadeError::BidsFinal { bid_job_id, evaluated } => {
            let state = if *evaluated { "evaluated" } else { "closed" };
            format!("Bid job {bid_job_id:?} is {state}: its bids can no longer be withdrawn")
        }
        OrcadeError::NotCreator { bid_job_id, action } => {
            format!("Forbidden: only the creator of bid job {bid_job_id:?} or an operator may {action} it")
        }
        OrcadeError::NotBidder { bid_id, action } => {
            format!("Forbidden: only the subject of bid {bid_id:?} or an operator may {action} it")
        }
        OrcadeError::InvalidFilter(e) => format!("Invalid filter: {e}"),
        OrcadeError::NoTags => "tags must name at least one tag (tags=a,b)".into(),
        OrcadeError::InvalidMatch(got) => format!("match must be \"all\" or \"any\", got {got:?}"),
        OrcadeError::Internal(_) => "Internal server error".into(),
    }
}

/// A paging parameter a query route refuses: `Invalid limit: must be ...`.
impl From<agora_http::ParamError> for ApiError {
    fn from(e: agora_http::ParamError) -> Self {
        ApiError::bad_request(format!("Invalid {}: {}", e.name, e.problem))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self.error {
            // The cause's chain is in its Display (`context: cause: ...`).
            Some(OrcadeError::Internal(cause)) if self.status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %cause, "internal error")
            }
            _ => tracing::debug!(status = self.status.as_u16(), error = %self.message, "request refused"),
        }
        (self.status, Json(json!({ "ok": false, "error": self.message }))).into_response()
    }
}

/// A refusal of the platform's request checks (`agora_http`: a 401, a 403, a 413) in this
/// service's shape.
impl From<agora_http::body::Refusal> for ApiError {
    fn from((status, message): agora_http::body::Refusal) -> Self {
        ApiError::with_status(status, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::StoreError;

    #[test]
    fn a_document_the_store_refused_is_a_400_with_its_reason_and_other_store_failures_a_500() {
        let refused = StoreError::InvalidDocument { collection: "c".into(), reason: "document exceeds 16 MB".into() };
        let answer = ApiError::from(OrcadeError::from(refused));
        assert_eq!((answer.status().as_u16(), answer.message()), (400, "The store refused the document: document exceeds 16 MB"));
        let answer = ApiError::from(OrcadeError::from(StoreError::Backend("down".into())));
        assert_eq!((answer.status().as_u16(), answer.message()), (500, "Internal server error"));
    }
}
