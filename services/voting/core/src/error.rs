//! The one error type of the voting flows: what went wrong, typed. What a client reads (the
//! status and the wording) is chosen by the API layer, in one place (`agora-voting-api`'s
//! `error.rs`); an internal error keeps its cause for the log.

use agora_store::StoreError;
use agora_voting_schema::ValidationErrors;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VotingError {
    /// A create request with fields missing or wrong, each named by its path.
    #[error("{0}")]
    InvalidTask(ValidationErrors),
    /// Hook specs this deployment cannot run: `<field path>: <why>` each.
    #[error("{}", .0.join("; "))]
    UnavailableHooks(Vec<String>),
    /// A vote request with fields missing or wrong, each named by its path.
    #[error("{0}")]
    InvalidVote(ValidationErrors),
    /// No task has this id.
    #[error("no task has this social_task_id")]
    UnknownTask,
    /// The task is complete: it takes no more votes.
    #[error("the task is complete")]
    TaskComplete,
    /// The task has not started (or never will).
    #[error("the task is not started")]
    TaskNotActive,
    /// The voter is not a member of the private task.
    #[error("the voter is not a member of the private task")]
    NotAMember,
    /// Voting on the task has closed: a public task has its `duration` qualified votes, or the
    /// evaluation has begun.
    #[error("voting on the task has closed")]
    VotingClosed,
    /// The task's deadline (`social_task_properties.voting`) has passed: it takes no more votes.
    /// Holds the deadline, naive UTC ISO-8601.
    #[error("the task's deadline {0} has passed")]
    DeadlinePassed(String),
    /// The task was cancelled: it takes no more votes and is never evaluated.
    #[error("the task is cancelled")]
    TaskCancelled,
    /// The task's evaluation is under way: it cannot be cancelled any more.
    #[error("the task's evaluation is under way")]
    EvaluationUnderWay,
    /// The voter has a vote on file for this task already.
    #[error("the voter has voted in this task already")]
    AlreadyVoted,
    /// Another vote has this `vote_id`.
    #[error("vote_id {0} is already used by another vote")]
    VoteIdTaken(String),
    /// The query names a collection the query route does not read.
    #[error("unknown collection {0:?}")]
    UnknownCollection(String),
    /// The query's filter is not one of the filter language.
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// A parameter of the query (`limit`, `skip`) the route refuses: its name, and what is wrong.
    #[error("invalid {name}: {problem}")]
    InvalidQueryParameter { name: String, problem: String },
    /// Something failed that the caller cannot fix (500); the client reads only that.
    #[error("{0}")]
    Internal(InternalError),
}

pub use agora_support::InternalError;

impl VotingError {
    /// An internal error with no cause beyond `context`.
    pub fn internal(context: impl Into<String>) -> Self {
        VotingError::Internal(InternalError::new(context))
    }

    /// An internal error: `cause`, met while doing `context`.
    pub fn internal_caused(context: impl Into<String>, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        VotingError::Internal(InternalError::caused(context, cause))
    }

    /// What kind of refusal (or failure) this is, as one snake_case word: the `reason` label of
    /// the refused votes' metric.
    pub fn kind(&self) -> &'static str {
        match self {
            VotingError::InvalidTask(_)
            | VotingError::InvalidVote(_)
            | VotingError::UnknownCollection(_)
            | VotingError::InvalidFilter(_)
            | VotingError::InvalidQueryParameter { .. } => "bad_request",
            VotingError::UnavailableHooks(_) => "unavailable_hooks",
            VotingError::UnknownTask => "not_found",
            VotingError::TaskComplete => "complete",
            VotingError::TaskNotActive => "not_started",
            VotingError::NotAMember => "not_a_member",
            VotingError::VotingClosed => "closed",
            VotingError::DeadlinePassed(_) => "deadline_passed",
            VotingError::TaskCancelled => "cancelled",
            VotingError::EvaluationUnderWay => "evaluating",
            VotingError::AlreadyVoted => "duplicate",
            VotingError::VoteIdTaken(_) => "vote_id_taken",
            VotingError::Internal(_) => "internal",
        }
    }
}

/// Counted by its kind ([`crate::telemetry::store_error`]): every store error a flow does not
/// handle itself passes here.
impl From<StoreError> for VotingError {
    fn from(e: StoreError) -> Self {
        crate::telemetry::store_error(&e);
        VotingError::internal_caused("the store failed", e)
    }
}

impl From<serde_json::Error> for VotingError {
    fn from(e: serde_json::Error) -> Self {
        VotingError::internal_caused("a stored document does not decode", e)
    }
}
