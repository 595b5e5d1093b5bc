//! The one place where flow errors become what a client reads: the HTTP status and the
//! `{"error": "..."}` wording of §3, in one table (the [`ServiceError`] impl below). The flows'
//! errors are typed (`VotingError`); the words are the API's. An internal error is logged with its
//! cause (by the platform's shell, `agora_http::shell`); the client reads only "Internal server
//! error".

use crate::shell::Api;
use agora_http::ServiceError;
use agora_voting_core::{InternalError, VotingError};
use agora_voting_schema::collections;
use axum::http::StatusCode;

/// An error on its way to the client, in voting's shape.
pub type ApiError = agora_http::ApiError<VotingError, Api>;

/// Voting's table: the status and wording of §3 for each error.
impl ServiceError<Api> for VotingError {
    fn status(&self) -> StatusCode {
        match self {
            Self::InvalidTask(_)
            | Self::UnavailableHooks(_)
            | Self::InvalidVote(_)
            | Self::UnknownCollection(_)
            | Self::InvalidFilter(_)
            | Self::InvalidQueryParameter { .. } => StatusCode::BAD_REQUEST,
            Self::UnknownTask => StatusCode::NOT_FOUND,
            Self::NotAMember => StatusCode::FORBIDDEN,
            Self::TaskComplete
            | Self::TaskNotActive
            | Self::VotingClosed
            | Self::DeadlinePassed(_)
            | Self::TaskCancelled
            | Self::EvaluationUnderWay
            | Self::AlreadyVoted
            | Self::VoteIdTaken(_) => StatusCode::CONFLICT,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn wording(&self) -> String {
        match self {
            Self::InvalidTask(errors) | Self::InvalidVote(errors) => errors.to_string(),
            Self::UnavailableHooks(problems) => problems.join("; "),
            Self::UnknownTask => "Invalid social_task_id.".into(),
            Self::TaskComplete => "Voting task is complete.".into(),
            Self::TaskNotActive => "Voting task is not active yet.".into(),
            Self::NotAMember => "You are not authorized to vote in this private task.".into(),
            Self::VotingClosed => "Voting has closed for this task.".into(),
            Self::TaskCancelled => "Voting task is cancelled.".into(),
            Self::EvaluationUnderWay => "The task's evaluation is under way: it can no longer be cancelled.".into(),
            Self::DeadlinePassed(at) => format!("Voting closed at the task's deadline, {at} UTC."),
            Self::AlreadyVoted => "Vote already submitted for this task.".into(),
            Self::VoteIdTaken(id) => format!("vote_id {id} is already used by another vote."),
            Self::UnknownCollection(c) => format!("Unknown collection {c:?}; allowed: {}", collections::ALL.join(", ")),
            Self::InvalidFilter(e) => format!("Invalid filter: {e}"),
            Self::InvalidQueryParameter { name, problem } => format!("Invalid {name}: {problem}"),
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

/// An error of `POST /submit-vote` (and the vote intake): refusals read `Vote rejected: <why>`
/// (§3.3).
pub fn vote_refusal(e: VotingError) -> ApiError {
    ApiError::from(e).prefixed("Vote rejected: ")
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
    fn a_vote_after_the_deadline_is_a_409_naming_it() {
        let answer = vote_refusal(VotingError::DeadlinePassed("2026-10-22T11:00:00".into()));
        assert_eq!(answer.status().as_u16(), 409);
        assert_eq!(answer.message(), "Vote rejected: Voting closed at the task's deadline, 2026-10-22T11:00:00 UTC.");
    }

    #[test]
    fn cancel_refusals_are_409s() {
        for (error, message) in [
            (VotingError::TaskCancelled, "Voting task is cancelled."),
            (VotingError::EvaluationUnderWay, "The task's evaluation is under way: it can no longer be cancelled."),
        ] {
            let answer = ApiError::from(error);
            assert_eq!((answer.status().as_u16(), answer.message()), (409, message));
        }
    }

    #[test]
    fn vote_refusals_say_so_and_internal_errors_say_nothing_more() {
        assert_eq!(vote_refusal(VotingError::TaskComplete).message(), "Vote rejected: Voting task is complete.");
        let internal = vote_refusal(VotingError::internal("queue down"));
        assert_eq!((internal.status().as_u16(), internal.message()), (500, "Internal server error"));
    }

    #[test]
    fn a_document_the_store_refused_is_a_400_with_its_reason() {
        let refused =
            agora_store::StoreError::InvalidDocument { collection: "votes".into(), reason: "field name \"a\\0\" holds a NUL".into() };
        let answer = vote_refusal(VotingError::from(refused));
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
