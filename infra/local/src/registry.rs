//! The local function registry and workflow API: the same HTTP interfaces as the real services
//! ("Hooks (§4) in practice"), backed by a folder and by the policy runner, so that a user runs
//! their own `AIOSv1PolicyRule` policies locally with no other service.
//!
//! Folder layout (default `infra/local`):
//!
//! ```text
//! functions/<function_id>/function.py   the AIOSv1PolicyRule class
//! functions/<function_id>/entry.json    optional: function_name, is_stateful, is_external,
//!                                       external_function_url, function_settings,
//!                                       function_parameters, ...
//! workflows/<workflow_id>.json          {"data": {"globalSettings", "globalParameters",
//!                                       "modules": {key: {"codePath", ...}}, "graph": {...}}}
//! ```
//!
//! Ids hold `:` (`voting-invite-builder:1.0-stable`). A folder or file is looked up by the id
//! as is, then with every `:` written as `@` (`voting-invite-builder@1.0-stable`), the form the
//! shipped examples use so that the repository checks out on any filesystem. A relative
//! `codePath` in a workflow is relative to the folder root (e.g. `functions/<id>`).
//!
//! Routes:
//! - `GET /functions/{function_id}`: the entry (`code_path` = the function's folder); 404 when unknown.
//! - `POST /function/deployments/create/{deployment}` `{"function_id"}`: a stateful deployment
//!   (one policy instance, built on first call and kept).
//! - `POST /function/call_function/{deployment}`: the hook input plus `function_id`; answers
//!   `{"data": <output>}`.
//! - `POST /function/call_as_job/{executor_id}` `{"function_id", "inputs", "parameters"}`: one
//!   instance per function, called with the job's `parameters`; answers
//!   `{"data": {"job_id", "status": "completed", "job_output_data": <output>}}`.
//! - `GET /workflows/{workflow_id}`: `{"data": <workflow>}` with relative `codePath`s made absolute.

use crate::error::{json_body, Body, Field, LocalError, Named};
use agora_hooks_remote::{LoadSpec, PolicyCall, PolicyRunner};
use agora_voting_core::HookError;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::{Arc, Mutex};

/// The registry over one folder.
pub struct LocalRegistry {
    root: PathBuf,
    runner: PolicyRunner,
    /// Stateful deployments: name → function id.
    deployments: Mutex<HashMap<String, String>>,
}

/// Whether `root` holds a `functions` or a `workflows` folder.
pub fn has_content(root: &FsPath) -> bool {
    !root.as_os_str().is_empty() && (root.join("functions").is_dir() || root.join("workflows").is_dir())
}

pub fn router(root: PathBuf, runner: PolicyRunner) -> Router {
    let root = std::path::absolute(&root).unwrap_or(root);
    let registry = Arc::new(LocalRegistry { root, runner, deployments: Mutex::new(HashMap::new()) });
    Router::new()
        .route("/functions/{function_id}", get(get_function))
        .route("/function/deployments/create/{deployment}", post(create_deployment))
        .route("/function/call_function/{deployment}", post(call_function))
        .route("/function/call_as_job/{executor_id}", post(call_as_job))
        .route("/workflows/{workflow_id}", get(get_workflow))
        .with_state(registry)
}

/// The routes' path segments, named in their refusals (every refusal is `{"error": "..."}`, a
/// malformed path or body included: [`crate::error`]).
macro_rules! segments {
    ($($name:ident = $field:literal),+) => {$(
        struct $name;
        impl Field for $name {
            const NAME: &'static str = $field;
        }
    )+};
}
segments!(FunctionId = "function_id", Deployment = "deployment", ExecutorId = "executor_id", WorkflowId = "workflow_id");

/// A route's body as JSON, or its refusal.
fn json_of(body: &Body) -> Result<Value, LocalError> {
    json_body(&body.0, false)
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": message.into()}))).into_response()
}

fn hook_error(e: HookError) -> Response {
    let status = match &e {
        HookError::Timeout(_) => StatusCode::GATEWAY_TIMEOUT,
        HookError::Unreachable(_) | HookError::Malformed(_) => StatusCode::BAD_GATEWAY,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    error(status, e.to_string())
}

/// An id usable as one path component.
fn safe_id(id: &str) -> bool {
    !id.is_empty() && !id.starts_with('.') && !id.contains(['/', '\\', '\0'])
}

impl LocalRegistry {
    /// The existing path `<dir>/<id><suffix>`, trying `:` as `@` second.
    fn find(&self, dir: &str, id: &str, suffix: &str) -> Option<PathBuf> {
        if !safe_id(id) {
            return None;
        }
        [id.to_owned(), id.replace(':', "@")]
            .into_iter()
            .map(|name| self.root.join(dir).join(format!("{name}{suffix}")))
            .find(|p| p.exists())
    }

    /// The registry entry of a function, from its folder.
    fn entry(&self, function_id: &str) -> Result<Option<Value>, String> {
        let Some(folder) = self.find("functions", function_id, "") else { return Ok(None) };
        let mut entry = match std::fs::read(folder.join("entry.json")) {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Object(m)) => m,
                Ok(_) => return Err(format!("{}/entry.json is not a JSON object", folder.display())),
                Err(e) => return Err(format!("{}/entry.json is not JSON: {e}", folder.display())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(format!("{}/entry.json: {e}", folder.display())),
        };
        let is_external = entry.get("is_external").and_then(Value::as_bool).unwrap_or(false);
        if !is_external && !folder.join("function.py").is_file() {
            return Err(format!("{} has no function.py", folder.display()));
        }
        let default_name = function_id.split(':').next().unwrap_or(function_id).to_owned();
        entry.insert("function_id".into(), json!(function_id));
        entry.entry("function_name").or_insert(json!(default_name));
        entry.entry("is_external").or_insert(json!(false));
        entry.entry("is_stateful").or_insert(json!(false));
        entry.entry("function_settings").or_insert(json!({}));
        entry.entry("function_parameters").or_insert(json!({}));
        entry.insert("code_path".into(), json!(folder.display().to_string()));
        Ok(Some(Value::Object(entry)))
    }

    /// How to build an instance of a function.
    fn load_spec(&self, function_id: &str, rule_id: &str) -> Result<LoadSpec, (StatusCode, String)> {
        let entry = match self.entry(function_id) {
            Ok(Some(e)) => e,
            Ok(None) => return Err((StatusCode::NOT_FOUND, format!("function {function_id:?} is not registered"))),
            Err(e) => return Err((StatusCode::INTERNAL_SERVER_ERROR, e)),
        };
        Ok(LoadSpec {
            code_path: entry["code_path"].as_str().unwrap_or_default().to_owned(),
            rule_id: rule_id.to_owned(),
            settings: entry["function_settings"].clone(),
            parameters: entry["function_parameters"].clone(),
        })
    }
}

async fn get_function(State(registry): State<Arc<LocalRegistry>>, function_id: Named<FunctionId>) -> Response {
    let function_id = function_id.into_inner();
    match registry.entry(&function_id) {
        Ok(Some(entry)) => Json(entry).into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, format!("function {function_id:?} is not registered")),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
}

fn function_id_of(body: &Value) -> Option<&str> {
    body.get("function_id").and_then(Value::as_str)
}

async fn create_deployment(State(registry): State<Arc<LocalRegistry>>, deployment: Named<Deployment>, body: Body) -> Response {
    let deployment = deployment.into_inner();
    let body = match json_of(&body) {
        Ok(body) => body,
        Err(refusal) => return refusal.into_response(),
    };
    let Some(function_id) = function_id_of(&body) else { return error(StatusCode::BAD_REQUEST, "function_id is required") };
    match registry.entry(function_id) {
        Ok(Some(_)) => {}
        Ok(None) => return error(StatusCode::NOT_FOUND, format!("function {function_id:?} is not registered")),
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, e),
    }
    let created =
        registry.deployments.lock().unwrap_or_else(|p| p.into_inner()).insert(deployment.clone(), function_id.to_owned()).is_none();
    tracing::info!(%deployment, function_id, created, "local stateful deployment");
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    (status, Json(json!({"data": {"deployment": deployment, "function_id": function_id}}))).into_response()
}

async fn call_function(State(registry): State<Arc<LocalRegistry>>, deployment: Named<Deployment>, body: Body) -> Response {
    let deployment = deployment.into_inner();
    let mut body = match json_of(&body) {
        Ok(body) => body,
        Err(refusal) => return refusal.into_response(),
    };
    let known = registry.deployments.lock().unwrap_or_else(|p| p.into_inner()).get(&deployment).cloned();
    let Some(function_id) = known.or_else(|| function_id_of(&body).map(str::to_owned)) else {
        return error(StatusCode::NOT_FOUND, format!("deployment {deployment:?} does not exist"));
    };
    let load = match registry.load_spec(&function_id, &deployment) {
        Ok(l) => l,
        Err((status, message)) => return error(status, message),
    };
    if let Some(m) = body.as_object_mut() {
        m.remove("function_id");
    }
    let key = format!("deployment:{deployment}");
    let call = PolicyCall { key: &key, load: &load, parameters: &json!({}), input: &body, context: &json!({"deployment": deployment}) };
    match registry.runner.call(&call).await {
        Ok(out) => Json(json!({"data": out})).into_response(),
        Err(e) => hook_error(e),
    }
}

async fn call_as_job(State(registry): State<Arc<LocalRegistry>>, executor_id: Named<ExecutorId>, body: Body) -> Response {
    let executor_id = executor_id.into_inner();
    let body = match json_of(&body) {
        Ok(body) => body,
        Err(refusal) => return refusal.into_response(),
    };
    let Some(function_id) = function_id_of(&body) else { return error(StatusCode::BAD_REQUEST, "function_id is required") };
    let load = match registry.load_spec(function_id, function_id) {
        Ok(l) => l,
        Err((status, message)) => return error(status, message),
    };
    let key = format!("function:{function_id}:{}", load.code_path);
    let empty = json!({});
    let parameters = body.get("parameters").filter(|p| p.is_object()).unwrap_or(&empty);
    let inputs = body.get("inputs").unwrap_or(&Value::Null);
    let context = json!({"executor_id": executor_id});
    let call = PolicyCall { key: &key, load: &load, parameters, input: inputs, context: &context };
    match registry.runner.call(&call).await {
        Ok(out) => Json(json!({"data": {"job_id": uuid_like(), "status": "completed", "job_output_data": out}})).into_response(),
        Err(e) => hook_error(e),
    }
}

/// A unique-enough job id without another dependency.
fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("job_{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

async fn get_workflow(State(registry): State<Arc<LocalRegistry>>, workflow_id: Named<WorkflowId>) -> Response {
    let workflow_id = workflow_id.into_inner();
    let Some(path) = registry.find("workflows", &workflow_id, ".json") else {
        return error(StatusCode::NOT_FOUND, format!("workflow {workflow_id:?} does not exist"));
    };
    let doc = match std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice::<Value>(&b).map_err(|e| e.to_string()))
    {
        Ok(doc) => doc,
        Err(e) => return error(StatusCode::INTERNAL_SERVER_ERROR, format!("{}: {e}", path.display())),
    };
    let mut doc = match doc {
        Value::Object(mut m) if m.contains_key("data") => m.remove("data").unwrap_or_default(),
        other => other,
    };
    if let Some(modules) = doc.get_mut("modules").and_then(Value::as_object_mut) {
        for module in modules.values_mut() {
            if let Some(code) = module.get_mut("codePath") {
                if let Some(p) = code.as_str().filter(|p| !p.contains("://") && FsPath::new(p).is_relative()) {
                    *code = json!(registry.root.join(p).display().to_string());
                }
            }
        }
    }
    Json(json!({"data": doc})).into_response()
}
