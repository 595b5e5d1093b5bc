//! §2.1 `BidJob`: a task open for bidding. `to_dict()` writes every field in the spec's order,
//! unset optionals as `null` (as the spec's examples show them), datetimes as [`crate::time`]
//! says; `from_dict()` reads the fields with defaults when they are absent or `null`.

use crate::conventions::null_as_default;
use crate::status::{BidJobMode, BidJobStatus};
use crate::time::{utc_micros, utc_micros_opt};
use agora_schema::fields::kind;
use agora_schema::{Entity, FunctionSpec};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::sync::LazyLock;

/// The prefix of the tag a mixed job carries per roster member (§1): `subject::<id>`.
pub const SUBJECT_TAG_PREFIX: &str = "subject::";

/// The tag that lets subject `id` find a mixed job: `subject::<id>`.
pub fn subject_tag(id: &str) -> String {
    format!("{SUBJECT_TAG_PREFIX}{id}")
}

/// `bid_job_closes_at`: `created + max_time` seconds, `None` without a time limit (or when the
/// sum is past what a datetime holds, which a parsed request never reaches).
pub fn closes_at(created: DateTime<Utc>, max_time: Option<i64>) -> Option<DateTime<Utc>> {
    created.checked_add_signed(Duration::try_seconds(max_time?)?)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BidJob {
    pub bid_job_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub bid_job_metadata: Map<String, Value>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub bid_job_description: Map<String, Value>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub bid_job_name: Map<String, Value>,
    pub bid_job_evaluator_id: String,
    /// `""`: no PQT, every bid accepted.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_pqt_id: String,
    /// Stored, never run.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_tie_id: String,
    pub bid_job_creator_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_subject_ids: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_mode: BidJobMode,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_max_subjects: Option<i64>,
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_max_time: Option<i64>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_status: BidJobStatus,
    #[serde(with = "utc_micros")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub bid_job_created_time: DateTime<Utc>,
    #[serde(with = "utc_micros_opt", default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub bid_job_closes_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub bid_job_tags: Vec<String>,
}

impl Entity for BidJob {}

static NO_PARAMETERS: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// `bid_job_metadata.parameters` is there but not an object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bid_job_metadata.parameters must be an object, got {found}")]
pub struct ParametersError {
    /// How the value reads: `a string`, `an array`, ...
    pub found: &'static str,
}

impl BidJob {
    /// The PQT's function spec (`{}` when `bid_job_pqt_id` is `""`).
    pub fn pqt(&self) -> FunctionSpec {
        FunctionSpec::from_id(&self.bid_job_pqt_id)
    }

    /// The evaluator's function spec.
    pub fn evaluator(&self) -> FunctionSpec {
        FunctionSpec::from_id(&self.bid_job_evaluator_id)
    }

    /// The builtins' parameters (§4): `bid_job_metadata.parameters`, `{}` when absent or `null`.
    pub fn parameters(&self) -> Result<&Map<String, Value>, ParametersError> {
        parameters_of(&self.bid_job_metadata)
    }

    /// Whether `subject` is on the roster.
    pub fn has_subject(&self, subject: &str) -> bool {
        self.bid_job_subject_ids.iter().any(|s| s == subject)
    }
}

/// `parameters` of a metadata object, as [`BidJob::parameters`] reads it.
pub fn parameters_of(metadata: &Map<String, Value>) -> Result<&Map<String, Value>, ParametersError> {
    match metadata.get("parameters") {
        None | Some(Value::Null) => Ok(&NO_PARAMETERS),
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(ParametersError { found: kind(other) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn closes_at_adds_the_time_limit() {
        let created = Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap();
        assert_eq!(closes_at(created, Some(3600)), Some(Utc.with_ymd_and_hms(2026, 10, 5, 10, 0, 0).unwrap()));
        assert_eq!(closes_at(created, None), None);
        assert_eq!(closes_at(created, Some(i64::MAX)), None);
    }
}
