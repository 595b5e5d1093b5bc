//! The flows of §1.2, one module each.

pub mod create;
pub mod evaluate;
pub mod parse;
pub mod query;
pub mod repair;
pub mod start;
pub mod vote;

/// Python's truthiness, for hook outputs read the way the reference implementation reads them.
pub(crate) fn truthy(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}
