//! Every answer the end-to-end tests receive, checked against the committed OpenAPI document
//! (`docs/openapi.json`): the operation for the request's method and path (path templates matched
//! segment by segment, a fixed segment before a parameter), the status among its responses, and
//! the JSON body valid against that response's schema. The document's `components` go along with
//! each response schema, so that its `#/components/schemas/...` references resolve inside it.
//!
//! Paths outside the services' (the first segments of the documented paths: `/local/...`,
//! `/admin/...`, `/metrics`, `/openapi.json`, ...) are not checked. A service's path that no
//! documented path matches is one no route serves: only its fallback's 404 may answer it, in the
//! service's error shape; a method its path does not take, only the 405 the path documents.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// The committed document.
const DOCUMENT: &str = include_str!("../../../docs/openapi.json");

/// What is wrong with an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The operation does not list the status.
    UnlistedStatus { method: String, path: String, status: u16 },
    /// The body is not valid against the response's schema.
    InvalidBody { method: String, path: String, status: u16, errors: Vec<String> },
    /// A service's path that no documented path matches, answered otherwise than by a 404.
    UndocumentedPath { method: String, path: String, status: u16 },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::UnlistedStatus { method, path, status } => {
                write!(f, "{method} {path} answered {status}, which the OpenAPI document does not list")
            }
            Mismatch::InvalidBody { method, path, status, errors } => {
                write!(f, "the {status} body of {method} {path} does not match the OpenAPI document: {}", errors.join("; "))
            }
            Mismatch::UndocumentedPath { method, path, status } => {
                write!(f, "{method} {path} answered {status}, but the OpenAPI document has no such path")
            }
        }
    }
}

/// The document, its path templates, and the validators built so far (one per response schema).
pub struct Spec {
    document: Value,
    templates: Vec<(String, Vec<String>)>,
    prefixes: Vec<String>,
    validators: Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>,
}

static SPEC: LazyLock<Spec> = LazyLock::new(|| Spec::new(serde_json::from_str(DOCUMENT).expect("docs/openapi.json is JSON")));

/// The committed document's checks.
pub fn spec() -> &'static Spec {
    &SPEC
}

/// Panics, saying what is wrong, unless the committed document describes the answer.
pub fn assert_documented(method: &str, path: &str, status: u16, body: &Value) {
    if let Err(mismatch) = spec().check(method, path, status, body) {
        panic!("{mismatch}\nbody: {body}");
    }
}

/// The first segment of `path` (`/bid-jobs` of `/bid-jobs/{bid_job_id}`).
fn first_segment(path: &str) -> String {
    format!("/{}", path.trim_start_matches('/').split('/').next().unwrap_or_default())
}

impl Spec {
    /// The checks of `document`, an OpenAPI document.
    pub fn new(document: Value) -> Spec {
        let paths = document["paths"].as_object().map(|p| p.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
        let templates = paths.iter().map(|p| (p.clone(), p.trim_start_matches('/').split('/').map(str::to_owned).collect())).collect();
        let mut prefixes: Vec<String> = paths.iter().map(|p| first_segment(p)).collect();
        prefixes.dedup();
        Spec { document, templates, prefixes, validators: Mutex::new(HashMap::new()) }
    }

    /// The documented path `path` (without its query) matches: the template whose fixed segments
    /// match the most (`/bid-jobs/query` before `/bid-jobs/{bid_job_id}`).
    fn template_of(&self, path: &str) -> Option<&str> {
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        self.templates
            .iter()
            .filter(|(_, template)| template.len() == segments.len())
            .filter_map(|(name, template)| {
                let mut fixed = 0;
                for (t, s) in template.iter().zip(&segments) {
                    if t.starts_with('{') {
                        if s.is_empty() {
                            return None;
                        }
                    } else if t == s {
                        fixed += 1;
                    } else {
                        return None;
                    }
                }
                Some((fixed, name.as_str()))
            })
            .max_by_key(|(fixed, _)| *fixed)
            .map(|(_, name)| name)
    }

    /// Whether `path` is one of a service's (under the first segment of a documented path).
    fn is_service_path(&self, path: &str) -> bool {
        self.prefixes.contains(&first_segment(path))
    }

    /// Checks an answer of `status` with `body` (`null` when it was not JSON) to `method` on
    /// `path` (a query after `?` is ignored). A path outside the services' is not checked.
    pub fn check(&self, method: &str, path: &str, status: u16, body: &Value) -> Result<(), Mismatch> {
        let path = path.split('?').next().unwrap_or_default();
        let method_key = method.to_lowercase();
        if method_key == "head" || !self.is_service_path(path) {
            return Ok(());
        }
        let mismatch = |kind: fn(String, String, u16) -> Mismatch| Err(kind(method.to_owned(), path.to_owned(), status));
        let Some(template) = self.template_of(path) else {
            // No route serves it: the fallback's 404, in the error shape of the service whose
            // paths it is under (any 404 a path of theirs documents).
            let prefix = first_segment(path);
            let under = self.templates.iter().map(|(name, _)| name).filter(|name| first_segment(name) == prefix);
            let answer = under.flat_map(|name| self.operations(name)).find_map(|(_, op)| self.response_pointer(&op, 404));
            return match (status, answer) {
                (404, Some(pointer)) => self.validate(&pointer, method, path, status, body),
                _ => mismatch(|method, path, status| Mismatch::UndocumentedPath { method, path, status }),
            };
        };
        let operations = self.operations(template);
        let pointer = match operations.iter().find(|(m, _)| *m == method_key) {
            Some((_, operation)) => self.response_pointer(operation, status),
            // A method the path does not take: only its 405, in the path's error shape.
            None if status == 405 => operations.iter().find_map(|(_, operation)| self.response_pointer(operation, 405)),
            None => None,
        };
        match pointer {
            Some(pointer) => self.validate(&pointer, method, path, status, body),
            None => mismatch(|method, path, status| Mismatch::UnlistedStatus { method, path, status }),
        }
    }

    /// The operations of the documented path `template`, by method (lowercase).
    fn operations(&self, template: &str) -> Vec<(String, String)> {
        let item = &self.document["paths"][template];
        let escaped = template.replace('~', "~0").replace('/', "~1");
        ["get", "put", "post", "delete", "patch"]
            .into_iter()
            .filter(|m| item.get(m).is_some())
            .map(|m| (m.to_owned(), format!("/paths/{escaped}/{m}")))
            .collect()
    }

    /// The JSON pointer of the schema of `operation`'s (a pointer) response of `status`.
    fn response_pointer(&self, operation: &str, status: u16) -> Option<String> {
        let pointer = format!("{operation}/responses/{status}/content/application~1json/schema");
        self.document.pointer(&pointer).map(|_| pointer)
    }

    /// Validates `body` against the schema at `pointer`, the document's components beside it.
    fn validate(&self, pointer: &str, method: &str, path: &str, status: u16, body: &Value) -> Result<(), Mismatch> {
        let validator = self.validator(pointer);
        let errors: Vec<String> = validator.iter_errors(body).map(|e| format!("at {:?}: {e}", e.instance_path().to_string())).collect();
        if errors.is_empty() {
            return Ok(());
        }
        Err(Mismatch::InvalidBody { method: method.to_owned(), path: path.to_owned(), status, errors })
    }

    fn validator(&self, pointer: &str) -> std::sync::Arc<jsonschema::Validator> {
        let mut validators = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        validators
            .entry(pointer.to_owned())
            .or_insert_with(|| {
                let schema = json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "allOf": [self.document.pointer(pointer).expect("the schema is in the document")],
                    "components": self.document["components"],
                });
                std::sync::Arc::new(jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the schema at {pointer} compiles: {e}")))
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(method: &str, path: &str, status: u16, body: Value) -> Result<(), Mismatch> {
        spec().check(method, path, status, &body)
    }

    #[test]
    fn a_documented_answer_passes() {
        let vote = json!({"status": "accepted", "qualified": true});
        assert_eq!(check("POST", "/submit-vote", 200, vote), Ok(()));
        let deleted = json!({"ok": true, "data": {"deleted": true}});
        assert_eq!(check("DELETE", "/subjects/s-1", 200, deleted), Ok(()));
        let error = json!({"ok": false, "error": "Bid job \"j\" not found"});
        assert_eq!(check("GET", "/bid-jobs/j?x=1", 404, error), Ok(()));
    }

    #[test]
    fn a_wrong_body_fails() {
        // The envelope's error in voting's shape, a vote's answer with a status the spec does not name.
        assert!(matches!(check("GET", "/get-status/t", 404, json!({"ok": false, "error": "x"})), Err(Mismatch::InvalidBody { .. })));
        assert!(matches!(
            check("POST", "/submit-vote", 200, json!({"status": "maybe", "qualified": true})),
            Err(Mismatch::InvalidBody { .. })
        ));
        assert!(matches!(check("POST", "/submit-vote", 200, json!({"status": "accepted"})), Err(Mismatch::InvalidBody { .. })));
        // A task without its required fields, by reference into the components.
        assert!(matches!(check("GET", "/tasks/t", 200, json!({"ok": true, "data": {"task_id": "t"}})), Err(Mismatch::InvalidBody { .. })));
        // Not JSON at all.
        assert!(matches!(check("GET", "/bids/b", 200, Value::Null), Err(Mismatch::InvalidBody { .. })));
    }

    #[test]
    fn a_status_the_operation_does_not_list_fails() {
        let error = json!({"ok": false, "error": "x"});
        assert!(matches!(check("GET", "/tasks/t", 409, error), Err(Mismatch::UnlistedStatus { .. })));
    }

    #[test]
    fn a_fixed_segment_wins_over_a_parameter() {
        assert_eq!(spec().template_of("/bid-jobs/query"), Some("/bid-jobs/query"));
        assert_eq!(spec().template_of("/bid-jobs/j-1"), Some("/bid-jobs/{bid_job_id}"));
        assert_eq!(spec().template_of("/bid-jobs/"), None);
    }

    #[test]
    fn a_method_a_path_does_not_take_is_only_its_405() {
        let error = json!({"ok": false, "error": "Method PUT is not allowed on /tasks/t"});
        assert_eq!(check("PUT", "/tasks/t", 405, error.clone()), Ok(()));
        assert!(matches!(check("PUT", "/tasks/t", 200, error), Err(Mismatch::UnlistedStatus { .. })));
        assert!(matches!(check("PUT", "/get-status/t", 405, json!({"ok": false, "error": "x"})), Err(Mismatch::InvalidBody { .. })));
    }

    #[test]
    fn a_service_path_no_route_serves_is_only_its_404() {
        let error = json!({"ok": false, "error": "No route for GET /bid-jobs/j/nothing"});
        assert_eq!(check("GET", "/bid-jobs/j/nothing", 404, error.clone()), Ok(()));
        assert!(matches!(check("GET", "/bid-jobs/j/nothing", 200, error), Err(Mismatch::UndocumentedPath { .. })));
        assert!(matches!(check("GET", "/bid-jobs/j/nothing", 404, json!({"error": "x"})), Err(Mismatch::InvalidBody { .. })));
    }

    #[test]
    fn paths_outside_the_services_are_not_checked() {
        for path in ["/local/inbox/a", "/admin/dead-letters", "/metrics", "/live-stream", "/openapi.json"] {
            assert_eq!(check("GET", path, 200, json!("anything")), Ok(()), "{path}");
        }
    }
}
