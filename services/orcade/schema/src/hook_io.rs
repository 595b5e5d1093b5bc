//! What the two functions of §4 receive and answer. Inputs are typed and borrowed, serialized
//! exactly as §4 writes them (no voting-style `user_input` wrapper):
//!
//! | Function | Input | Output |
//! |---|---|---|
//! | PQT | `{"bid_job": {...}, "bid": {...}}` | `{"accepted": bool, "reason": "..."}` |
//! | Evaluator | `{"bid_job": {...}, "bids": [...accepted bids...]}` | `{"winner_subject_id": "...", "status": "resolved", "result_data": {...}}` or `{"status": "no_valid_bids", ...}` |
//!
//! Outputs are read with [`PqtVerdict::from_output`] and [`Evaluation::from_output`], which
//! say what is malformed (§4: a malformed PQT output refuses the bid). The `{"data": ...}`
//! envelope is the hook runner's to open.

use crate::bid::Bid;
use crate::bid_job::BidJob;
use agora_schema::fields::kind;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// Orcade's two hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    Pqt,
    Evaluator,
}

impl Hook {
    /// The job field holding the hook's function id.
    pub fn field(self) -> &'static str {
        match self {
            Hook::Pqt => "bid_job_pqt_id",
            Hook::Evaluator => "bid_job_evaluator_id",
        }
    }

    /// How messages name the hook.
    pub fn name(self) -> &'static str {
        match self {
            Hook::Pqt => "PQT",
            Hook::Evaluator => "evaluator",
        }
    }
}

/// The PQT's input.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PqtInput<'a> {
    pub bid_job: &'a BidJob,
    pub bid: &'a Bid,
}

/// The evaluator's input: the job and its accepted bids.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluatorInput<'a> {
    pub bid_job: &'a BidJob,
    pub bids: &'a [Bid],
}

/// A hook's output that does not follow §4's contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the {hook} output is malformed: {problem}")]
pub struct OutputError {
    pub hook: &'static str,
    pub problem: String,
}

fn malformed(hook: Hook, problem: impl Into<String>) -> OutputError {
    OutputError { hook: hook.name(), problem: problem.into() }
}

/// A PQT's verdict on one bid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PqtVerdict {
    pub accepted: bool,
    /// Why; the 409 of a refused bid carries it.
    pub reason: String,
}

impl PqtVerdict {
    pub fn accept(reason: impl Into<String>) -> Self {
        PqtVerdict { accepted: true, reason: reason.into() }
    }

    pub fn refuse(reason: impl Into<String>) -> Self {
        PqtVerdict { accepted: false, reason: reason.into() }
    }

    /// `{"accepted": bool, "reason": "..."}`.
    pub fn to_output(&self) -> Value {
        json!({"accepted": self.accepted, "reason": self.reason})
    }

    /// Reads a PQT's output: an object whose `accepted` is a boolean and whose `reason`, when
    /// present and not `null`, is a string (absent reads as `""`).
    pub fn from_output(out: &Value) -> Result<Self, OutputError> {
        let obj = out.as_object().ok_or_else(|| malformed(Hook::Pqt, format!("expected a JSON object, got {}", kind(out))))?;
        let accepted = match obj.get("accepted") {
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(malformed(Hook::Pqt, format!("accepted must be a boolean, got {}", kind(other)))),
            None => return Err(malformed(Hook::Pqt, "accepted is missing")),
        };
        let reason = match obj.get("reason") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(malformed(Hook::Pqt, format!("reason must be a string, got {}", kind(other)))),
        };
        Ok(PqtVerdict { accepted, reason })
    }
}

/// `status` of a resolved evaluation.
pub const RESOLVED: &str = "resolved";
/// `status` of an evaluation that found no bid to award.
pub const NO_VALID_BIDS: &str = "no_valid_bids";

/// What an evaluator decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Evaluation {
    /// `{"winner_subject_id", "status": "resolved", "result_data"}`.
    Resolved { winner_subject_id: String, result_data: Map<String, Value> },
    /// `{"status": "no_valid_bids", "reason", "result_data"}`.
    NoValidBids { reason: String, result_data: Map<String, Value> },
}

impl Evaluation {
    /// The output as §4 writes it.
    pub fn to_output(&self) -> Value {
        match self {
            Evaluation::Resolved { winner_subject_id, result_data } => {
                json!({"winner_subject_id": winner_subject_id, "status": RESOLVED, "result_data": result_data})
            }
            Evaluation::NoValidBids { reason, result_data } => {
                json!({"status": NO_VALID_BIDS, "reason": reason, "result_data": result_data})
            }
        }
    }

    /// The winner, when there is one.
    pub fn winner(&self) -> Option<&str> {
        match self {
            Evaluation::Resolved { winner_subject_id, .. } => Some(winner_subject_id),
            Evaluation::NoValidBids { .. } => None,
        }
    }

    /// Reads an evaluator's output: `status` `"resolved"` with a non-empty string
    /// `winner_subject_id`, or `"no_valid_bids"`; `result_data` an object when present
    /// (absent or `null`: `{}`); `reason` a string when present.
    pub fn from_output(out: &Value) -> Result<Self, OutputError> {
        let obj = out.as_object().ok_or_else(|| malformed(Hook::Evaluator, format!("expected a JSON object, got {}", kind(out))))?;
        let result_data = match obj.get("result_data") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(other) => return Err(malformed(Hook::Evaluator, format!("result_data must be an object, got {}", kind(other)))),
        };
        match obj.get("status") {
            Some(Value::String(s)) if s == RESOLVED => match obj.get("winner_subject_id") {
                Some(Value::String(w)) if !w.trim().is_empty() => Ok(Evaluation::Resolved { winner_subject_id: w.clone(), result_data }),
                Some(Value::String(_)) => Err(malformed(Hook::Evaluator, "winner_subject_id must not be empty")),
                Some(other) => Err(malformed(Hook::Evaluator, format!("winner_subject_id must be a string, got {}", kind(other)))),
                None => Err(malformed(Hook::Evaluator, "status is \"resolved\" but winner_subject_id is missing")),
            },
            Some(Value::String(s)) if s == NO_VALID_BIDS => {
                let reason = match obj.get("reason") {
                    None | Some(Value::Null) => String::new(),
                    Some(Value::String(r)) => r.clone(),
                    Some(other) => return Err(malformed(Hook::Evaluator, format!("reason must be a string, got {}", kind(other)))),
                };
                Ok(Evaluation::NoValidBids { reason, result_data })
            }
            Some(Value::String(s)) => {
                Err(malformed(Hook::Evaluator, format!("status must be \"{RESOLVED}\" or \"{NO_VALID_BIDS}\", got {s:?}")))
            }
            Some(other) => Err(malformed(Hook::Evaluator, format!("status must be a string, got {}", kind(other)))),
            None => Err(malformed(Hook::Evaluator, "status is missing")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pqt_outputs_are_read_strictly() {
        assert_eq!(PqtVerdict::from_output(&json!({"accepted": true})).unwrap(), PqtVerdict::accept(""));
        let v = PqtVerdict::from_output(&json!({"accepted": false, "reason": "too slow"})).unwrap();
        assert_eq!(v, PqtVerdict::refuse("too slow"));
        assert_eq!(PqtVerdict::from_output(&v.to_output()).unwrap(), v);
        for (out, says) in [
            (json!({"qualified": true}), "accepted is missing"),
            (json!({"accepted": "yes"}), "accepted must be a boolean, got a string"),
            (json!({"accepted": true, "reason": 3}), "reason must be a string"),
            (json!([true]), "expected a JSON object, got an array"),
        ] {
            let e = PqtVerdict::from_output(&out).unwrap_err().to_string();
            assert!(e.starts_with("the PQT output is malformed") && e.contains(says), "{out}: {e}");
        }
    }

    #[test]
    fn evaluator_outputs_are_read_strictly() {
        let out = json!({"winner_subject_id": "a", "status": "resolved", "result_data": {"x": 1}});
        let e = Evaluation::from_output(&out).unwrap();
        assert_eq!(e.winner(), Some("a"));
        assert_eq!(e.to_output(), out);
        let none = Evaluation::from_output(&json!({"status": "no_valid_bids"})).unwrap();
        assert_eq!(none.winner(), None);
        assert_eq!(none.to_output(), json!({"status": "no_valid_bids", "reason": "", "result_data": {}}));
        for (out, says) in [
            (json!({"status": "resolved"}), "winner_subject_id is missing"),
            (json!({"status": "resolved", "winner_subject_id": " "}), "must not be empty"),
            (json!({"status": "done", "winner_subject_id": "a"}), "got \"done\""),
            (json!({"winner_subject_id": "a"}), "status is missing"),
            (json!({"status": "resolved", "winner_subject_id": "a", "result_data": []}), "result_data must be an object"),
        ] {
            let e = Evaluation::from_output(&out).unwrap_err().to_string();
            assert!(e.starts_with("the evaluator output is malformed") && e.contains(says), "{out}: {e}");
        }
    }
}
