//! §2.3 `BidTaskResult`: the audit record of one delegate round trip (§5). The `bid_winner`
//! record also carries `evaluator_output`, the evaluator's output as it came (§4 decision),
//! written after the spec's fields and absent on every other record.

use crate::conventions::null_as_default;
use crate::status::TaskType;
use agora_schema::time::iso;
use agora_schema::Entity;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BidTaskResult {
    pub bid_task_result_id: String,
    pub bid_job_id: String,
    pub bid_subject_id: String,
    pub task_type: TaskType,
    /// The delegate's reply verbatim, or `{"success": false, "error": ...}` when the call failed.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub task_result: Map<String, Value>,
    #[serde(with = "iso")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_time: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluator_output: Option<Value>,
}

impl Entity for BidTaskResult {}

impl BidTaskResult {
    /// The record of a delegate call that failed: `task_result` is `{"success": false, "error": <error>}` (§5).
    pub fn failure_result(error: &str) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("success".into(), Value::Bool(false));
        m.insert("error".into(), Value::String(error.into()));
        m
    }
}
