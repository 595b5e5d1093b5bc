//! The closed sets of values the service writes: a job's mode (§1) and status, and a task
//! result's type (§2.3). Stored as their spec strings; reading another value fails, naming it
//! (only the service writes these fields, and no PATCH may set them).

use serde::{Deserialize, Serialize};
use std::fmt;

/// How subjects take part in a job (§1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum BidJobMode {
    /// A fixed roster; evaluation when every member has a bid on file.
    #[default]
    Closed,
    /// Anyone may apply; the job closes by count or time.
    Open,
    /// As closed, and a `subject::<id>` tag per roster member.
    Mixed,
}

/// A job's status: `open` until a closing trigger or the evaluation flips it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum BidJobStatus {
    #[default]
    Open,
    Closed,
}

/// Which delegate round trip a task result records (§5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BidTaskType))]
pub enum TaskType {
    BidRequest,
    BidWinner,
}

impl BidJobMode {
    pub const ALL: [BidJobMode; 3] = [BidJobMode::Closed, BidJobMode::Open, BidJobMode::Mixed];

    pub fn as_str(self) -> &'static str {
        match self {
            BidJobMode::Closed => "closed",
            BidJobMode::Open => "open",
            BidJobMode::Mixed => "mixed",
        }
    }

    /// The mode called `s`.
    pub fn parse(s: &str) -> Option<BidJobMode> {
        BidJobMode::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Closed and mixed jobs have a fixed roster, given at creation.
    pub fn has_fixed_roster(self) -> bool {
        matches!(self, BidJobMode::Closed | BidJobMode::Mixed)
    }
}

impl BidJobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            BidJobStatus::Open => "open",
            BidJobStatus::Closed => "closed",
        }
    }
}

impl TaskType {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskType::BidRequest => "bid_request",
            TaskType::BidWinner => "bid_winner",
        }
    }
}

macro_rules! display_as_str {
    ($($t:ty),+) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )+};
}
display_as_str!(BidJobMode, BidJobStatus, TaskType);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stored_as_the_spec_strings() {
        for m in BidJobMode::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), json!(m.as_str()));
            assert_eq!(BidJobMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(serde_json::to_value(BidJobStatus::Closed).unwrap(), json!("closed"));
        assert_eq!(serde_json::to_value(TaskType::BidWinner).unwrap(), json!("bid_winner"));
        assert_eq!(BidJobMode::parse("Closed"), None);
        let e = serde_json::from_value::<BidJobStatus>(json!("evaluating")).unwrap_err().to_string();
        assert!(e.contains("evaluating"), "{e}");
    }
}
