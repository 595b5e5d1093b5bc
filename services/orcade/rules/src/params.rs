//! The builtins' parameters (§4): read from the job's `bid_job_metadata.parameters` (an object;
//! absent or `null` = `{}`). Keys a builtin does not read are ignored: one object serves both the
//! PQT and the evaluator.

use crate::error::RuleError;
use agora_orcade_schema::fields::kind;
use agora_orcade_schema::BidJob;
use serde_json::{Map, Value};

/// `required-fields`: the `bid_data` fields every bid must carry, each a dotted path into
/// nested objects (`plan.steps`). `[]` requires nothing.
pub(crate) fn required_fields(parameters: &Map<String, Value>) -> Result<Vec<Vec<&str>>, RuleError> {
    let fields = match parameters.get("fields") {
        None | Some(Value::Null) => {
            return Err(RuleError::bad("fields", "is required by builtin:required-fields: the bid_data fields every bid must carry"))
        }
        Some(Value::Array(items)) => items,
        Some(other) => return Err(RuleError::bad("fields", format!("must be an array of field names, got {}", kind(other)))),
    };
    fields
        .iter()
        .enumerate()
        .map(|(i, f)| match f {
            Value::String(s) if !s.is_empty() && s.split('.').all(|part| !part.is_empty()) => Ok(s.split('.').collect()),
            Value::String(s) => Err(RuleError::bad(format!("fields[{i}]"), format!("must be a field name or dotted path, got {s:?}"))),
            other => Err(RuleError::bad(format!("fields[{i}]"), format!("must be a field name, got {}", kind(other)))),
        })
        .collect()
}

/// `min-confidence`: the lowest `bid_data.confidence` accepted, as written (for messages) and
/// as a number.
pub(crate) fn min_confidence(parameters: &Map<String, Value>) -> Result<(&Value, f64), RuleError> {
    match parameters.get("min") {
        None | Some(Value::Null) => {
            Err(RuleError::bad("min", "is required by builtin:min-confidence: the lowest bid_data.confidence accepted"))
        }
        Some(v @ Value::Number(n)) => Ok((v, n.as_f64().unwrap_or(f64::NAN))),
        Some(other) => Err(RuleError::bad("min", format!("must be a number, got {}", kind(other)))),
    }
}

/// The job's parameters.
pub(crate) fn of(job: &BidJob) -> Result<&Map<String, Value>, RuleError> {
    Ok(job.parameters()?)
}
