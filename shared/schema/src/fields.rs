//! Request fields, read at the edge: every invalid or missing field is reported by its dotted
//! path with what is wrong ("social_task.duration must be a positive integer, got 0"), all at once.

use crate::function_spec::FunctionSpec;
use crate::time::parse_datetime;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::fmt;

/// One problem with one field of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Dotted path of the field, e.g. `social_task.created_by_subject_id`.
    pub path: String,
    /// What is wrong, as a sentence fragment that follows the path ("is required").
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} {}", self.path, self.message)
        }
    }
}

/// Every problem found in a request. Displayed as one message: the problems joined by `; `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(pub Vec<FieldError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl ValidationErrors {
    pub fn single(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError { path: path.into(), message: message.into() }])
    }
}

/// Reads the fields of one request object, collecting errors under a path prefix.
pub struct Reader<'a> {
    obj: &'a Map<String, Value>,
    prefix: &'static str,
    errors: &'a mut Vec<FieldError>,
}

impl<'a> Reader<'a> {
    /// Reads `obj`, whose fields are reported as `<prefix>.<key>` (just `<key>` for an empty prefix).
    pub fn new(obj: &'a Map<String, Value>, prefix: &'static str, errors: &'a mut Vec<FieldError>) -> Self {
        Self { obj, prefix, errors }
    }

    pub fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }

    pub fn fail(&mut self, key: &str, message: impl Into<String>) {
        let path = self.path(key);
        self.errors.push(FieldError { path, message: message.into() });
    }

    /// The value of a key; `null` counts as absent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    pub fn required(&mut self, key: &str) -> Option<&'a Value> {
        let v = self.get(key);
        if v.is_none() {
            self.fail(key, "is required");
        }
        v
    }

    pub fn string(&mut self, key: &str) -> Option<String> {
        match self.required(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.fail(key, format!("must be a string, got {}", kind(other)));
                None
            }
        }
    }

    pub fn object(&mut self, key: &str) -> Option<Map<String, Value>> {
        match self.required(key)? {
            Value::Object(m) => Some(m.clone()),
            other => {
                self.fail(key, format!("must be an object, got {}", kind(other)));
                None
            }
        }
    }

    pub fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        match self.required(key)? {
            Value::Array(items) => {
                let out: Option<Vec<String>> = items.iter().map(|i| i.as_str().map(str::to_owned)).collect();
                if out.is_none() {
                    self.fail(key, "must be an array of strings");
                }
                out
            }
            other => {
                self.fail(key, format!("must be an array of strings, got {}", kind(other)));
                None
            }
        }
    }

    pub fn datetime(&mut self, key: &str, required: bool) -> Option<DateTime<Utc>> {
        let v = if required { self.required(key)? } else { self.get(key)? };
        let parsed = parse_datetime(v);
        if parsed.is_none() {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            self.fail(key, format!("is not a datetime: Invalid datetime: {shown}"));
        }
        parsed
    }

    pub fn opt_string(&mut self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.fail(key, format!("must be a string, got {}", kind(other)));
                None
            }
        }
    }

    pub fn opt_bool(&mut self, key: &str) -> Option<bool> {
        match self.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.fail(key, format!("must be a boolean, got {}", kind(other)));
                None
            }
        }
    }

    pub fn opt_positive_int(&mut self, key: &str) -> Option<i64> {
        let v = self.get(key)?;
        match v.as_i64() {
            Some(n) if n >= 1 => Some(n),
            _ => {
                self.fail(key, format!("must be a positive integer, got {v}"));
                None
            }
        }
    }

    pub fn function_spec(&mut self, key: &str) -> Option<FunctionSpec> {
        let map = self.object(key)?;
        let spec = FunctionSpec(map);
        match spec.target() {
            Ok(_) => Some(spec),
            Err(e) => {
                self.fail(key, format!("is not a valid function spec: {e}"));
                None
            }
        }
    }
}

/// The longest id a client may choose (Orcade's `bid_job_id`, Xchange's `task_id` and
/// `subject_id`); ids travel in URL paths.
pub const MAX_ID_CHARS: usize = 128;

/// A subject or creator id: a non-empty string without surrounding whitespace (which would make
/// it a different id from the one its owner uses).
pub fn identifier(r: &mut Reader<'_>, path: &str, v: &Value) -> Option<String> {
    let Value::String(s) = v else {
        r.fail(path, format!("must be a string, got {}", kind(v)));
        return None;
    };
    if s.trim().is_empty() {
        r.fail(path, "must not be empty");
        None
    } else if s.trim() != s {
        r.fail(path, format!("must not begin or end with whitespace, got {s:?}"));
        None
    } else {
        Some(s.clone())
    }
}

/// A client-chosen document id: an [`identifier`] of at most [`MAX_ID_CHARS`] characters, with
/// no `/` and no control character, so that it addresses the document in a URL path.
pub fn document_id(r: &mut Reader<'_>, path: &str, v: &Value) -> Option<String> {
    let s = identifier(r, path, v)?;
    if s.chars().count() > MAX_ID_CHARS {
        r.fail(path, format!("must be at most {MAX_ID_CHARS} characters, got {}", s.chars().count()));
        None
    } else if s.chars().any(|c| c == '/' || c.is_control()) {
        r.fail(path, format!("must not hold '/' or control characters (it is used in URL paths), got {s:?}"));
        None
    } else {
        Some(s)
    }
}

/// A JSON value's truthiness as Python reads it: not `null`, `false`, `0`, `""`, `[]` or `{}`.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// How a value's type reads in an error message: `a string`, `an object`, ...
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
