//! The error type of filter parsing, and helpers that describe offending JSON values.

use serde_json::Value;

/// Why a filter document was rejected.
///
/// Every message names the problem (and the operator, where there is one) so that it can be
/// returned verbatim as the body of a `400 Bad Request`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilterError {
    /// The filter (or an element of `$and`/`$or`) is not a JSON object.
    #[error("filter must be a JSON object, got {0}")]
    NotAnObject(&'static str),

    /// An operator outside the supported set (`$regex`, `$nor`, `$elemMatch`, `$where`, ...).
    #[error("unsupported operator {0}")]
    UnsupportedOperator(String),

    /// A supported operator used where it has no meaning, e.g. `$gt` at the top level or `$or`
    /// inside a field condition.
    #[error("{op} is not allowed {context}")]
    MisplacedOperator {
        /// The operator, with its `$`.
        op: String,
        /// Where it was found and where it belongs.
        context: String,
    },

    /// An operator was given an operand of the wrong shape, e.g. `{"$in": 5}`.
    #[error("{op} needs {expected}, got {got}")]
    BadOperand {
        /// The operator, with its `$`.
        op: String,
        /// What the operator accepts.
        expected: &'static str,
        /// What it was given.
        got: String,
    },

    /// A field condition object mixes `$` operators with plain keys, e.g. `{"$gt": 1, "b": 2}`.
    #[error(
        "the condition on field {field:?} mixes operators with the plain key {key:?}; \
         use either operators only or a literal object only"
    )]
    MixedOperatorObject {
        /// The field the condition applies to.
        field: String,
        /// The first key that does not start with `$`.
        key: String,
    },

    /// A value to compare with a field holds an object with a key no stored document can have
    /// (a NUL character: MongoDB cannot hold one in a field name).
    #[error("the value compared with field {field:?} holds the key {key:?}, with a NUL character, which no stored document can have")]
    UnstorableKey {
        /// The field the condition applies to.
        field: String,
        /// The key, as written.
        key: String,
    },

    /// A field name that cannot be used as a path.
    #[error("invalid field path {path:?}: {reason}")]
    InvalidFieldPath {
        /// The offending field path as written.
        path: String,
        /// Why it is rejected.
        reason: &'static str,
    },
}

/// The JSON kind of `v` with an article, e.g. "an array".
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The kind of `v` followed by (a possibly shortened rendering of) its value, for messages.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Array(a) if a.is_empty() => "an empty array".to_owned(),
        Value::Object(o) if o.is_empty() => "an empty object".to_owned(),
        _ => format!("{} {}", kind(v), snippet(v)),
    }
}

/// The JSON text of `v`, cut after [`SNIPPET_CHARS`] characters.
fn snippet(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(SNIPPET_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// How many characters of an offending value an error message quotes.
const SNIPPET_CHARS: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn describe_names_kind_and_value() {
        assert_eq!(describe(&json!(null)), "null");
        assert_eq!(describe(&json!(true)), "a boolean true");
        assert_eq!(describe(&json!(5)), "a number 5");
        assert_eq!(describe(&json!("x")), "a string \"x\"");
        assert_eq!(describe(&json!([])), "an empty array");
        assert_eq!(describe(&json!({})), "an empty object");
        assert_eq!(describe(&json!([1])), "an array [1]");
        assert_eq!(describe(&json!({"a": 1})), "an object {\"a\":1}");
    }

    #[test]
    fn describe_shortens_long_values_on_char_boundaries() {
        let long = "é".repeat(200);
        let d = describe(&json!(long));
        assert!(d.ends_with('…'));
        assert!(d.chars().count() < 80, "{d}");
    }
}
