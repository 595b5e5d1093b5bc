//! The one place where flow errors become what a client reads: the HTTP status and the
//! `{"error": "..."}` wording of §3. The flows' errors are typed (`VotingError`); the words
//! are the API's. An internal error is logged here with its cause; the client reads only
//! "Internal server error".

use agora_voting_core::VotingError;
use agora_voting_schema::collections;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    error: Option<VotingError>,
}

impl From<VotingError> for ApiError {
    fn from(e: VotingError) -> Self {
        // A document the store refused is the input's fault (a request's own checks refuse
        // what a store would, by field, first): a 400 with the store's reason, never a 500.
        if let VotingError::Internal(cause) = &e {
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

    /// An error of `POST /submit-vote` (and the vote intake): refusals read
    /// `Vote rejected: <why>` (§3.3).
    pub fn vote(e: VotingError) -> Self {
        let mut answer = ApiError::from(e);
        if answer.status != StatusCode::INTERNAL_SERVER_ERROR {
            answer.message = format!("Vote rejected: {}", answer.message);
        }
        answer
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

fn status_of(e: &VotingError) -> StatusCode {
    match e {
        VotingError::InvalidTask(_)
        | VotingError::UnavailableHooks(_)
        | VotingError::InvalidVote(_)
        | VotingError::UnknownCollection(_)
        | VotingError::InvalidFilter(_)
        | VotingError::InvalidQueryParameter { .. } => StatusCode::BAD_REQUEST,
        VotingError::UnknownTask => StatusCode::NOT_FOUND,
        VotingError::NotAMember => StatusCode::FORBIDDEN,
        VotingError::TaskComplete
        | VotingError::TaskNotActive
        | VotingError::VotingClosed
        | VotingError::AlreadyVoted
        | VotingError::VoteIdTaken(_) => StatusCode::CONFLICT,
        VotingError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The wording of §3 for each error.
fn wording(e: &VotingError) -> String {
    match e {
        VotingError::InvalidTask(errors) | VotingError::InvalidVote(errors) => errors.to_string(),
        VotingError::UnavailableHooks(problems) => problems.join("; "),
        VotingError::UnknownTask => "Invalid social_task_id.".into(),
        VotingError::TaskComplete => "Voting task is complete.".into(),
        VotingError::TaskNotActive => "Voting task is not active yet.".into(),
        VotingError::NotAMember => "You are not authorized to vote in this private task.".into(),
        VotingError::VotingClosed => "Voting has closed for this task.".into(),
        VotingError::AlreadyVoted => "Vote already submitted for this task.".into(),
        VotingError::VoteIdTaken(id) => format!("vote_id {id} is already used by another vote."),
        VotingError::UnknownCollection(c) => format!("Unknown collection {c:?}; allowed: {}", collections::ALL.join(", ")),
        VotingError::InvalidFilter(e) => format!("Invalid filter: {e}"),
        VotingError::InvalidQueryParameter { name, problem } => format!("Invalid {name}: {problem}"),
        VotingError::Internal(_) => "Internal server error".into(),
    }
}

/// A paging parameter a query route refuses.
impl From<agora_http::ParamError> for ApiError {
    fn from(e: agora_http::ParamError) -> Self {
        ApiError::from(VotingError::InvalidQueryParameter { name: e.name.to_string(), problem: e.problem })
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self.error {
            Some(VotingError::Internal(cause)) if self.status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %cause, "internal error")
            }
            _ => tracing::debug!(status = self.status.as_u16(), error = %self.message, "request refused"),
        }
        (self.status, Json(json!({ "error": self.message }))).into_response()
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
    use agora_voting_schema::ValidationErrors;

    #[test]
    fn every_error_has_its_status_and_wording() {
        let cases = [
            (VotingError::InvalidTask(ValidationErrors::single("social_task.duration", "must be a positive integer, got 0")), 400, "social_task.duration must be a positive integer, got 0"),
            (VotingError::UnavailableHooks(vec!["evaluation_spec.evaluation: no".into(), "b: no".into()]), 400, "evaluation_spec.evaluation: no; b: no"),
            (VotingError::UnknownTask, 404, "Invalid social_task_id."),
            (VotingError::TaskComplete, 409, "Voting task is complete."),
            (VotingError::TaskNotActive, 409, "Voting task is not active yet."),
            (VotingError::NotAMember, 403, "You are not authorized to vote in this private task."),
            (VotingError::VotingClosed, 409, "Voting has closed for this task."),
            (VotingError::AlreadyVoted, 409, "Vote already submitted for this task."),
            (VotingError::VoteIdTaken("v1".into()), 409, "vote_id v1 is already used by another vote."),
            (VotingError::UnknownCollection("x".into()), 400, "Unknown collection \"x\"; allowed: social_task_core_data, social_choice_subject_spec, social_choice_evaluation_input, votes"),
            (VotingError::InvalidFilter("bad".into()), 400, "Invalid filter: bad"),
            (
                VotingError::InvalidQueryParameter { name: "limit".into(), problem: "must be a non-negative integer, got \"-1\"".into() },
                400,
                "Invalid limit: must be a non-negative integer, got \"-1\"",
            ),
            (VotingError::internal_caused("the store failed", std::io::Error::other("disk on fire")), 500, "Internal server error"),
        ];
        for (error, status, message) in cases {
            let answer = ApiError::from(error);
            assert_eq!((answer.status().as_u16(), answer.message()), (status, message));
        }
    }

    #[test]
    fn vote_refusals_say_so_and_internal_errors_say_nothing_more() {
        assert_eq!(ApiError::vote(VotingError::TaskComplete).message(), "Vote rejected: Voting task is complete.");
        let internal = ApiError::vote(VotingError::internal("queue down"));
        assert_eq!((internal.status().as_u16(), internal.message()), (500, "Internal server error"));
    }

    #[test]
    fn a_document_the_store_refused_is_a_400_with_its_reason() {
        let refused =
            agora_store::StoreError::InvalidDocument { collection: "votes".into(), reason: "field name \"a\\0\" holds a NUL".into() };
        let answer = ApiError::vote(VotingError::from(refused));
        assert_eq!(answer.status().as_u16(), 400);
        assert_eq!(answer.message(), "Vote rejected: The store refused the document: field name \"a\\0\" holds a NUL");
        let backend = ApiError::from(VotingError::from(agora_store::StoreError::Backend("down".into())));
        assert_eq!((backend.status().as_u16(), backend.message()), (500, "Internal server error"));
    }

    #[test]
    fn internal_errors_keep_their_cause() {
        let error = VotingError::internal_caused("the store failed", std::io::Error::other("disk on fire"));
        assert_eq!(error.to_string(), "the store failed: disk on fire");
        let VotingError::Internal(inner) = &error else { panic!() };
        assert!(std::error::Error::source(inner).is_some());
    }
}
