//! The closed sets of §1 and §4: a task's assignment mode and its status.

use serde::{Deserialize, Serialize};

/// How a task is assigned (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExchangeAssignmentType))]
pub enum AssignmentType {
    /// To `task_metadata.task_assignment.subject_id`.
    Direct,
    /// To the subject a selector function names, inline in `POST /tasks`.
    Function,
    /// To the first subject whose evaluation function accepts it.
    Open,
    /// To the winner of an Orcade bid job.
    Bidding,
}

impl AssignmentType {
    pub const ALL: [AssignmentType; 4] = [AssignmentType::Direct, AssignmentType::Function, AssignmentType::Open, AssignmentType::Bidding];

    pub fn as_str(self) -> &'static str {
        match self {
            AssignmentType::Direct => "direct",
            AssignmentType::Function => "function",
            AssignmentType::Open => "open",
            AssignmentType::Bidding => "bidding",
        }
    }

    pub fn parse(s: &str) -> Option<AssignmentType> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// A task's status (§1): `completed`, `failed` and `rejected` are final.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ExchangeTaskStatus))]
pub enum TaskStatus {
    /// Stored, assignment not yet done.
    #[default]
    Pending,
    /// A subject was chosen; the delegate round trip is in flight.
    Assigned,
    /// An Orcade bid job is open for this task.
    Bidding,
    /// `task_output` holds the delegate's reply (or Orcade's `bid_winner` result).
    Completed,
    /// `task_output.error` says why.
    Failed,
    /// Open mode: no subject accepted.
    Rejected,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 6] =
        [TaskStatus::Pending, TaskStatus::Assigned, TaskStatus::Bidding, TaskStatus::Completed, TaskStatus::Failed, TaskStatus::Rejected];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "pending",
            TaskStatus::Assigned => "assigned",
            TaskStatus::Bidding => "bidding",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Rejected => "rejected",
        }
    }

    pub fn parse(s: &str) -> Option<TaskStatus> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// `completed`, `failed` and `rejected`: no assignment work changes the task again.
    pub fn is_final(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Rejected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_strings_round_trip() {
        for t in AssignmentType::ALL {
            assert_eq!(AssignmentType::parse(t.as_str()), Some(t));
            assert_eq!(serde_json::to_value(t).unwrap(), serde_json::json!(t.as_str()));
        }
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
            assert_eq!(serde_json::to_value(s).unwrap(), serde_json::json!(s.as_str()));
        }
        assert_eq!(AssignmentType::parse("auction"), None);
        let finals: Vec<_> = TaskStatus::ALL.into_iter().filter(|s| s.is_final()).map(TaskStatus::as_str).collect();
        assert_eq!(finals, ["completed", "failed", "rejected"]);
    }
}
