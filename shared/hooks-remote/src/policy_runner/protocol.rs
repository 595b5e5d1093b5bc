//! What the Rust side and the runner say to each other: a request per `eval` call (the
//! instance's key, its load spec on the key's first call on a process, the call's arguments), a
//! reply per request, matched by id. Newline-delimited JSON locally; the same shapes are the
//! policy-runner Lambda's event and result.

use agora_hooks::HookError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How to build an instance: the code and the constructor's arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadSpec {
    pub code_path: String,
    pub rule_id: String,
    pub settings: Value,
    pub parameters: Value,
}

/// One `eval` call of the instance `key`.
#[derive(Debug, Serialize)]
pub struct PolicyCall<'a, I: Serialize + ?Sized> {
    /// Identifies the instance; calls with the same key share it.
    pub key: &'a str,
    /// Used when the key has no instance yet.
    pub load: &'a LoadSpec,
    /// `eval`'s `parameters`.
    pub parameters: &'a Value,
    /// `eval`'s `input_data`.
    pub input: &'a I,
    /// `eval`'s `context`.
    pub context: &'a Value,
}

/// A request line: the call, with its id and whether the load spec is needed.
#[derive(Serialize)]
pub(crate) struct Request<'a, I: Serialize + ?Sized> {
    pub id: u64,
    pub op: &'static str,
    pub key: &'a str,
    pub load: Option<&'a LoadSpec>,
    pub parameters: &'a Value,
    pub input: &'a I,
    pub context: &'a Value,
}

/// An answer of the runner (a line locally, a Lambda result in AWS).
#[derive(Debug, Deserialize)]
pub(crate) struct Reply {
    #[serde(default)]
    pub id: Option<u64>,
    ok: bool,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    traceback: Option<String>,
}

impl Reply {
    /// Whether the instance exists after this answer (the load step passed).
    pub(crate) fn loaded(&self) -> bool {
        self.ok || matches!(self.kind.as_deref(), Some("eval" | "output"))
    }

    pub(crate) fn into_result(self, key: &str) -> Result<Value, HookError> {
        if self.ok {
            return match self.output {
                Some(out @ Value::Object(_)) => Ok(out),
                other => Err(HookError::Malformed(format!("policy {key} returned {}, not an object", other.unwrap_or(Value::Null)))),
            };
        }
        let error = self.error.unwrap_or_else(|| "unknown error".into());
        let tb = self.traceback.filter(|t| !t.trim().is_empty()).map(|t| format!("\n{}", tail(t.trim_end(), 1500))).unwrap_or_default();
        Err(match self.kind.as_deref() {
            Some("output") => HookError::Malformed(format!("policy {key}: {error}")),
            Some("load") => HookError::Rule(format!("policy {key} could not be loaded: {error}{tb}")),
            _ => HookError::Rule(format!("policy {key} raised {error}{tb}")),
        })
    }
}

/// The last `max` bytes of `s` (tracebacks end with what matters).
fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}
