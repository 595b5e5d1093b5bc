//! The PQT builtins (§4): `{"accepted": bool, "reason": "..."}` for one bid. The reason is
//! always given, so that an accepted bid's record says why too.
//!
//! | Builtin | Accepts when | Parameters |
//! |---|---|---|
//! | `required-fields` | every `parameters.fields` entry is present and not `null` in `bid_data` (a dotted entry walks nested objects) | `fields`: array of field names (required; `[]` requires nothing) |
//! | `min-confidence` | `bid_data.confidence` is a number `>= parameters.min` | `min`: number (required) |

use crate::error::RuleError;
use crate::params;
use agora_orcade_schema::fields::kind;
use agora_orcade_schema::{Bid, BidJob, PqtVerdict};
use serde_json::{Map, Value};

/// `required-fields`.
pub fn required_fields(job: &BidJob, bid: &Bid) -> Result<PqtVerdict, RuleError> {
    let fields = params::required_fields(params::of(job)?)?;
    if fields.is_empty() {
        return Ok(PqtVerdict::accept("no fields are required"));
    }
    let missing: Vec<String> = fields.iter().filter(|path| !present(&bid.bid_data, path)).map(|path| path.join(".")).collect();
    Ok(if missing.is_empty() {
        let all: Vec<String> = fields.iter().map(|p| p.join(".")).collect();
        PqtVerdict::accept(format!("bid_data has every required field ({})", all.join(", ")))
    } else {
        PqtVerdict::refuse(format!("bid_data lacks the required fields: {}", missing.join(", ")))
    })
}

/// Whether `path` leads to a value other than `null` inside `data`.
fn present(data: &Map<String, Value>, path: &[&str]) -> bool {
    let Some((first, rest)) = path.split_first() else { return false };
    let mut at = data.get(*first);
    for part in rest {
        at = at.and_then(Value::as_object).and_then(|m| m.get(*part));
    }
    at.is_some_and(|v| !v.is_null())
}

/// `min-confidence`.
pub fn min_confidence(job: &BidJob, bid: &Bid) -> Result<PqtVerdict, RuleError> {
    let (shown_min, min) = params::min_confidence(params::of(job)?)?;
    Ok(match bid.bid_data.get("confidence") {
        None | Some(Value::Null) => PqtVerdict::refuse(format!("bid_data.confidence is missing (the minimum is {shown_min})")),
        Some(v @ Value::Number(n)) => match n.as_f64() {
            Some(c) if c >= min => PqtVerdict::accept(format!("confidence {v} is at least the minimum {shown_min}")),
            _ => PqtVerdict::refuse(format!("confidence {v} is below the minimum {shown_min}")),
        },
        Some(other) => PqtVerdict::refuse(format!("bid_data.confidence must be a number, got {}", kind(other))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{bid, job_with_parameters};
    use serde_json::json;

    fn screen(
        rule: fn(&BidJob, &Bid) -> Result<PqtVerdict, RuleError>,
        parameters: Value,
        bid_data: Value,
    ) -> Result<PqtVerdict, RuleError> {
        rule(&job_with_parameters(parameters), &bid("s", 0, bid_data))
    }

    #[test]
    fn required_fields_accepts_when_every_field_is_there() {
        let p = json!({"fields": ["price_usd", "eta_hours"]});
        let v = screen(required_fields, p.clone(), json!({"price_usd": 1, "eta_hours": 0, "extra": true})).unwrap();
        assert_eq!(v.to_output(), json!({"accepted": true, "reason": "bid_data has every required field (price_usd, eta_hours)"}));
        // Falsy values are present: only absent and null are missing.
        assert!(screen(required_fields, p.clone(), json!({"price_usd": 0, "eta_hours": false})).unwrap().accepted);
    }

    #[test]
    fn required_fields_names_every_missing_field_in_order() {
        let p = json!({"fields": ["price_usd", "eta_hours", "confidence"]});
        let v = screen(required_fields, p, json!({"eta_hours": 3, "confidence": null})).unwrap();
        assert_eq!(v.to_output(), json!({"accepted": false, "reason": "bid_data lacks the required fields: price_usd, confidence"}));
    }

    #[test]
    fn required_fields_walks_dotted_paths() {
        let p = json!({"fields": ["plan.steps"]});
        assert!(screen(required_fields, p.clone(), json!({"plan": {"steps": [1]}})).unwrap().accepted);
        for data in [json!({"plan": {}}), json!({"plan": "steps"}), json!({"plan.steps": 1}), json!({})] {
            assert!(!screen(required_fields, p.clone(), data.clone()).unwrap().accepted, "{data}");
        }
    }

    #[test]
    fn required_fields_with_none_listed_accepts() {
        let v = screen(required_fields, json!({"fields": []}), json!({})).unwrap();
        assert_eq!(v, PqtVerdict::accept("no fields are required"));
    }

    #[test]
    fn required_fields_refuses_bad_parameters_naming_them() {
        let cases = [
            (json!({}), "bid_job_metadata.parameters.fields is required by builtin:required-fields"),
            (json!({"fields": null}), "bid_job_metadata.parameters.fields is required"),
            (json!({"fields": "price_usd"}), "bid_job_metadata.parameters.fields must be an array of field names, got a string"),
            (json!({"fields": ["a", 3]}), "bid_job_metadata.parameters.fields[1] must be a field name, got a number"),
            (json!({"fields": ["a", ""]}), "bid_job_metadata.parameters.fields[1] must be a field name or dotted path, got \"\""),
            (json!({"fields": ["a..b"]}), "bid_job_metadata.parameters.fields[0] must be a field name or dotted path"),
        ];
        for (p, says) in cases {
            let e = screen(required_fields, p.clone(), json!({})).unwrap_err().to_string();
            assert!(e.starts_with(says), "{p}: {e}");
        }
        let e = screen(required_fields, json!("fields"), json!({})).unwrap_err();
        assert_eq!(e.to_string(), "bid_job_metadata.parameters must be an object, got a string");
    }

    #[test]
    fn min_confidence_compares_with_the_minimum_inclusive() {
        let p = json!({"min": 0.8});
        assert_eq!(
            screen(min_confidence, p.clone(), json!({"confidence": 0.92})).unwrap().to_output(),
            json!({"accepted": true, "reason": "confidence 0.92 is at least the minimum 0.8"})
        );
        assert!(screen(min_confidence, p.clone(), json!({"confidence": 0.8})).unwrap().accepted, "equal is enough");
        assert!(screen(min_confidence, json!({"min": 1}), json!({"confidence": 1})).unwrap().accepted, "integers compare");
        assert_eq!(
            screen(min_confidence, p.clone(), json!({"confidence": 0.5})).unwrap().to_output(),
            json!({"accepted": false, "reason": "confidence 0.5 is below the minimum 0.8"})
        );
        assert!(!screen(min_confidence, json!({"min": -1}), json!({"confidence": -1.5})).unwrap().accepted);
    }

    #[test]
    fn min_confidence_refuses_a_missing_or_non_numeric_confidence() {
        let p = json!({"min": 0.8});
        let v = screen(min_confidence, p.clone(), json!({})).unwrap();
        assert_eq!(v, PqtVerdict::refuse("bid_data.confidence is missing (the minimum is 0.8)"));
        assert_eq!(screen(min_confidence, p.clone(), json!({"confidence": null})).unwrap(), v);
        for (c, got) in [(json!("0.9"), "a string"), (json!(true), "a boolean"), (json!([0.9]), "an array")] {
            let v = screen(min_confidence, p.clone(), json!({"confidence": c})).unwrap();
            assert_eq!(v, PqtVerdict::refuse(format!("bid_data.confidence must be a number, got {got}")));
        }
    }

    #[test]
    fn min_confidence_refuses_bad_parameters_naming_them() {
        let e = screen(min_confidence, json!({}), json!({"confidence": 1})).unwrap_err();
        assert!(matches!(&e, RuleError::BadParameter { parameter, .. } if parameter == "min"), "{e:?}");
        assert!(e.to_string().starts_with("bid_job_metadata.parameters.min is required by builtin:min-confidence"), "{e}");
        let e = screen(min_confidence, json!({"min": "0.8"}), json!({"confidence": 1})).unwrap_err();
        assert_eq!(e.to_string(), "bid_job_metadata.parameters.min must be a number, got a string");
        // Absent parameters are `{}`: min is then missing.
        let e = min_confidence(&crate::test_support::job_without_parameters(), &bid("s", 0, json!({"confidence": 1}))).unwrap_err();
        assert!(e.to_string().contains("parameters.min is required"), "{e}");
    }
}
