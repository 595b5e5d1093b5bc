//! §2.1 `ExchangeTasks`: one unit of work submitted to the exchange.

use crate::status::{AssignmentType, TaskStatus};
use agora_schema::time::iso_opt;
use agora_schema::{null_as_default, Entity};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde::{Deserializer, Serializer};
use serde_json::{Map, Value};

/// `task_metadata.task_assignment`: the mode's parameters.
pub const TASK_ASSIGNMENT: &str = "task_assignment";
/// `task_metadata.bid_job_id`: written once bidding mode has created its bid job.
pub const BID_JOB_ID: &str = "bid_job_id";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExchangeTask {
    pub task_id: String,
    pub task_assignment_type: AssignmentType,
    /// The work itself: free-form, sent verbatim to the subject that handles the task.
    pub task_data: Value,
    pub task_assignment_status: TaskStatus,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub task_metadata: Map<String, Value>,
    /// The spec's spelling (compat).
    #[serde(default, with = "micros_opt")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub taski_creation_time: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub task_output: Map<String, Value>,
}

impl Entity for ExchangeTask {}

/// `taski_creation_time` as §2.1's examples write it: naive UTC, always six fraction digits
/// (`2026-09-17T10:20:00.000000`), so that stored times order as text; `None` as `null`. Read
/// in every form the platform reads.
mod micros_opt {
    use super::*;

    pub fn serialize<S: Serializer>(dt: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match dt {
            Some(dt) => s.serialize_str(&dt.format("%Y-%m-%dT%H:%M:%S%.6f").to_string()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        iso_opt::deserialize(d)
    }
}

impl ExchangeTask {
    /// `task_metadata.task_assignment`, `{}` when absent or not an object.
    pub fn assignment(&self) -> &Map<String, Value> {
        static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        self.task_metadata.get(TASK_ASSIGNMENT).and_then(Value::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new))
    }

    /// A string parameter of the mode (`subject_id`, `function_id`, ...).
    pub fn assignment_str(&self, key: &str) -> Option<&str> {
        self.assignment().get(key).and_then(Value::as_str)
    }

    /// The bid job of a task in bidding mode, once created.
    pub fn bid_job_id(&self) -> Option<&str> {
        self.task_metadata.get(BID_JOB_ID).and_then(Value::as_str)
    }
}
