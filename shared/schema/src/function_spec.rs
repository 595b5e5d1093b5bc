//! The function spec (voting §2.5): where a hook's logic lives. Voting stores spec objects
//! exactly as given; bidding and the exchange store function ids (`bid_job_pqt_id`,
//! `task_assignment.function_id`, ...), which [`FunctionSpec::from_id`] reads into the same
//! spec, so every mode, its signing and its time limit are shared:
//!
//! | Id | Reads as |
//! |---|---|
//! | `""` | `{}`: not configured |
//! | `builtin:<name>` | `{"mode": "builtin", "name": <name>}` |
//! | `http://…`, `https://…` | `{"mode": "http", "url": <id>}` |
//! | `arn:aws:lambda:…` | `{"mode": "lambda", "function_name": <id>}` |
//! | anything else | `{"mode": "function", "function_id": <id>}` (the function registry) |
//!
//! Either way, a spec is read through [`FunctionSpec::target`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The modes a function spec may name.
pub const MODES: [&str; 5] = ["function", "dsl", "builtin", "http", "lambda"];

/// A hook's function spec, kept as the object the creator sent so that `to_dict()` writes it
/// back unchanged. `{}` means "not configured".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FunctionSpec(pub Map<String, Value>);

/// A validated view of a non-empty function spec.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HookTarget<'a> {
    /// `mode: "function"`: a function registry entry.
    Function { function_id: &'a str, parameters: &'a Value },
    /// `mode: "dsl"`: a DSL workflow.
    Dsl { workflow_id: &'a str },
    /// `mode: "builtin"`: a rule shipped in this project.
    Builtin { name: &'a str, parameters: &'a Value },
    /// `mode: "http"`: a POST to a URL.
    Http { url: &'a str, parameters: &'a Value },
    /// `mode: "lambda"`: a synchronous AWS Lambda invoke.
    Lambda { function_name: &'a str, parameters: &'a Value },
}

impl<'a> HookTarget<'a> {
    /// What the target names (function id, workflow id, rule, URL, Lambda function), for logs.
    pub fn name(&self) -> &'a str {
        match *self {
            HookTarget::Function { function_id, .. } => function_id,
            HookTarget::Dsl { workflow_id } => workflow_id,
            HookTarget::Builtin { name, .. } => name,
            HookTarget::Http { url, .. } => url,
            HookTarget::Lambda { function_name, .. } => function_name,
        }
    }

    pub fn mode(&self) -> &'static str {
        match self {
            HookTarget::Function { .. } => "function",
            HookTarget::Dsl { .. } => "dsl",
            HookTarget::Builtin { .. } => "builtin",
            HookTarget::Http { .. } => "http",
            HookTarget::Lambda { .. } => "lambda",
        }
    }
}

static EMPTY_OBJECT: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| Value::Object(Map::new()));

impl FunctionSpec {
    /// The spec a function id names (see the table of the module). The id is trimmed; `""` is
    /// "not configured". An id that reads as a spec with something wrong (`builtin:` with no name)
    /// gives a spec whose [`target`](Self::target) says what.
    pub fn from_id(id: &str) -> Self {
        let id = id.trim();
        let spec =
            |pairs: [(&str, &str); 2]| FunctionSpec(pairs.into_iter().map(|(k, v)| (k.to_owned(), Value::String(v.to_owned()))).collect());
        if id.is_empty() {
            FunctionSpec::default()
        } else if let Some(name) = id.strip_prefix("builtin:") {
            spec([("mode", "builtin"), ("name", name.trim())])
        } else if id.starts_with("http://") || id.starts_with("https://") {
            spec([("mode", "http"), ("url", id)])
        } else if id.starts_with("arn:aws:lambda:") {
            spec([("mode", "lambda"), ("function_name", id)])
        } else {
            spec([("mode", "function"), ("function_id", id)])
        }
    }

    /// `{}`: the hook is not configured.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The spec's `parameters` (`{}` when absent or null).
    pub fn parameters(&self) -> &Value {
        self.0.get("parameters").filter(|v| !v.is_null()).unwrap_or(&EMPTY_OBJECT)
    }

    /// Reads the spec. `Ok(None)` for `{}`; an error message (without the field path) when the
    /// mode is unknown, its id is missing, or `parameters` is not an object.
    pub fn target(&self) -> Result<Option<HookTarget<'_>>, String> {
        if self.is_empty() {
            return Ok(None);
        }
        let mode = match self.0.get("mode") {
            Some(Value::String(m)) => m.as_str(),
            Some(_) => return Err("mode must be a string".into()),
            None => return Err(format!("mode is required (one of {})", MODES.join(", "))),
        };
        let parameters = self.parameters();
        if !parameters.is_object() {
            return Err("parameters must be an object".into());
        }
        let id = |key: &str| -> Result<&str, String> {
            match self.0.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.as_str()),
                Some(Value::String(_)) => Err(format!("{key} must not be empty for mode \"{mode}\"")),
                Some(_) => Err(format!("{key} must be a string")),
                None => Err(format!("{key} is required for mode \"{mode}\"")),
            }
        };
        Ok(Some(match mode {
            "function" => HookTarget::Function { function_id: id("function_id")?, parameters },
            "dsl" => HookTarget::Dsl { workflow_id: id("workflow_id")? },
            "builtin" => HookTarget::Builtin { name: id("name")?, parameters },
            "http" => {
                let url = id("url")?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(format!("url must be an http:// or https:// URL, got {url:?}"));
                }
                HookTarget::Http { url, parameters }
            }
            "lambda" => HookTarget::Lambda { function_name: id("function_name")?, parameters },
            other => return Err(format!("mode {other:?} is unknown (expected one of {})", MODES.join(", "))),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> FunctionSpec {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn reads_each_mode() {
        let s = spec(json!({"mode": "builtin", "name": "plurality"}));
        assert!(matches!(s.target(), Ok(Some(HookTarget::Builtin { name: "plurality", .. }))));
        let s = spec(json!({"mode": "dsl", "workflow_id": "plurality-count:1.0"}));
        assert_eq!(s.target().unwrap().unwrap().mode(), "dsl");
        assert_eq!(spec(json!({})).target(), Ok(None));
    }

    #[test]
    fn names_what_is_wrong() {
        let e = spec(json!({"mode": "telepathy"})).target().unwrap_err();
        assert!(e.contains("telepathy"), "{e}");
        let e = spec(json!({"mode": "function"})).target().unwrap_err();
        assert!(e.contains("function_id is required"), "{e}");
        let e = spec(json!({"mode": "http", "url": "ftp://x"})).target().unwrap_err();
        assert!(e.contains("url"), "{e}");
        let e = spec(json!({"mode": "builtin", "name": "plurality", "parameters": 3})).target().unwrap_err();
        assert!(e.contains("parameters"), "{e}");
    }

    #[test]
    fn function_ids_read_as_specs() {
        assert_eq!(FunctionSpec::from_id(""), FunctionSpec::default());
        assert_eq!(FunctionSpec::from_id("  ").target(), Ok(None));
        assert!(matches!(
            FunctionSpec::from_id("builtin:lowest-price").target(),
            Ok(Some(HookTarget::Builtin { name: "lowest-price", .. }))
        ));
        assert!(matches!(
            FunctionSpec::from_id("https://hooks.example.com/pqt").target(),
            Ok(Some(HookTarget::Http { url: "https://hooks.example.com/pqt", .. }))
        ));
        let arn = "arn:aws:lambda:eu-west-1:123456789012:function:pqt";
        assert!(matches!(FunctionSpec::from_id(arn).target(), Ok(Some(HookTarget::Lambda { function_name, .. })) if function_name == arn));
        assert!(matches!(
            FunctionSpec::from_id("bid-screen:1.0").target(),
            Ok(Some(HookTarget::Function { function_id: "bid-screen:1.0", .. }))
        ));
        assert_eq!(FunctionSpec::from_id("builtin:").target().unwrap_err(), "name must not be empty for mode \"builtin\"");
        assert_eq!(FunctionSpec::from_id("builtin:x").0, spec(json!({"mode": "builtin", "name": "x"})).0);
    }

    #[test]
    fn round_trips_unchanged() {
        let v = json!({"mode": "function", "function_id": "voting-invite-builder:1.0-stable", "parameters": {"tone": "formal"}});
        assert_eq!(serde_json::to_value(spec(v.clone())).unwrap(), v);
    }
}
