//! `mode: "dsl"`: a workflow of `WORKFLOWS_API_URL` ("Hooks (§4) in practice").
//!
//! `GET {WORKFLOWS_API_URL}/workflows/{workflow_id}` gives
//! `{"data": {"globalSettings", "globalParameters", "modules": {key: {"codePath", "settings",
//! "parameters"}}, "graph": {key: [next keys]}}}`. The graph is checked when the workflow is
//! fetched (an unknown module key or a cycle is an error) and the checked plan is cached briefly.
//!
//! Each module is an `AIOSv1PolicyRule` run by the policy runner (a local Python process, or the
//! policy-runner Lambda in AWS):
//! - `rule_id` = the module key;
//! - constructor `settings` = `globalSettings` with the module's `settings` merged over it
//!   (top-level keys; the module wins), and `parameters` likewise from `globalParameters`;
//! - `eval(parameters, input_data, context)` with `parameters` = `{}` (§4: "Empty otherwise"),
//!   `input_data` = the hook input plus `previous_outputs` (the outputs of the modules run so
//!   far, by key), `context` = `{"workflow_id", "module"}`;
//! - one instance per (workflow, module, load spec), reused across calls and tasks.
//!
//! Modules run one after another in topological order (ties in the order the modules are
//! listed). The hook output is the single sink's output; with several sinks, an object keyed by
//! sink.

use crate::cache::TtlCache;
use crate::http::{unwrap_data, HttpClient};
use crate::lambda::LambdaInvoker;
use crate::policy_runner::{LoadSpec, PolicyCall, PolicyRunner, Reply};
use crate::registry::encode_segment;
use agora_hooks::HookError;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Where modules run.
#[derive(Clone)]
pub enum PolicyExecutor {
    /// The local policy runner (Python processes).
    Local(PolicyRunner),
    /// The policy-runner Lambda (functions/policy-runner).
    Lambda { invoker: LambdaInvoker, function: String },
}

impl PolicyExecutor {
    pub async fn call<I: Serialize + ?Sized>(&self, call: &PolicyCall<'_, I>) -> Result<Value, HookError> {
        match self {
            PolicyExecutor::Local(runner) => runner.call(call).await,
            PolicyExecutor::Lambda { invoker, function } => {
                // The Lambda keeps instances per warm container; every request carries the load spec.
                let payload = serde_json::to_vec(&json!({
                    "op": "eval", "key": call.key, "load": call.load, "parameters": call.parameters,
                    "input": call.input, "context": call.context,
                }))
                .map_err(|e| HookError::Malformed(format!("policy input is not JSON: {e}")))?;
                let reply: Reply = serde_json::from_value(invoker.invoke(function, payload).await?)
                    .map_err(|e| HookError::Malformed(format!("policy-runner lambda {function} answered without ok/output: {e}")))?;
                reply.into_result(call.key)
            }
        }
    }
}

/// A checked workflow: its modules in the order they run, and its sinks.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub workflow_id: String,
    pub modules: Vec<Module>,
    pub sinks: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    pub key: String,
    /// The policy runner's instance key.
    pub instance: String,
    pub load: LoadSpec,
}

/// Object `b`'s keys over object `a` (either may be absent or null).
fn merge(a: Option<&Value>, b: Option<&Value>) -> Value {
    let mut out = a.and_then(Value::as_object).cloned().unwrap_or_default();
    if let Some(b) = b.and_then(Value::as_object) {
        for (k, v) in b {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

impl Plan {
    /// Checks a workflow document (the `data` object) and orders its modules.
    pub fn build(workflow_id: &str, doc: &Value) -> Result<Plan, String> {
        let modules = doc.get("modules").and_then(Value::as_object).ok_or("modules must be an object")?;
        if modules.is_empty() {
            return Err("modules is empty".into());
        }
        let empty = Map::new();
        let graph = match doc.get("graph") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(g)) => g,
            Some(_) => return Err("graph must be an object".into()),
        };
        let mut next: HashMap<&str, Vec<&str>> = HashMap::new();
        for (from, targets) in graph {
            if !modules.contains_key(from) {
                return Err(format!("graph names unknown module {from:?}"));
            }
            let targets = targets.as_array().ok_or_else(|| format!("graph.{from} must be an array of module keys"))?;
            for t in targets {
                let t = t.as_str().ok_or_else(|| format!("graph.{from} must be an array of module keys"))?;
                if !modules.contains_key(t) {
                    return Err(format!("graph.{from} names unknown module {t:?}"));
                }
                next.entry(from.as_str()).or_default().push(t);
            }
        }
        // Kahn's algorithm; ties in the order the modules are listed.
        let mut indegree: HashMap<&str, usize> = modules.keys().map(|k| (k.as_str(), 0)).collect();
        for targets in next.values() {
            for t in targets {
                *indegree.entry(t).or_default() += 1;
            }
        }
        let mut ready: VecDeque<&str> = modules.keys().map(String::as_str).filter(|k| indegree[k] == 0).collect();
        let mut order = Vec::with_capacity(modules.len());
        while let Some(k) = ready.pop_front() {
            order.push(k);
            for t in next.get(k).map(Vec::as_slice).unwrap_or_default() {
                let d = indegree.get_mut(t).expect("every target is a module");
                *d -= 1;
                if *d == 0 {
                    ready.push_back(t);
                }
            }
        }
        if order.len() < modules.len() {
            let stuck: Vec<&str> = modules.keys().map(String::as_str).filter(|k| !order.contains(k)).collect();
            return Err(format!("graph has a cycle through {}", stuck.join(", ")));
        }
        let sinks = order.iter().filter(|k| next.get(*k).is_none_or(Vec::is_empty)).map(|k| (*k).to_owned()).collect();

        let (global_settings, global_parameters) = (doc.get("globalSettings"), doc.get("globalParameters"));
        let modules = order
            .into_iter()
            .map(|key| {
                let entry = &modules[key];
                let code_path = entry
                    .get("codePath")
                    .and_then(Value::as_str)
                    .filter(|p| !p.trim().is_empty())
                    .ok_or_else(|| format!("modules.{key}.codePath is required"))?;
                let load = LoadSpec {
                    code_path: code_path.to_owned(),
                    rule_id: key.to_owned(),
                    settings: merge(global_settings, entry.get("settings")),
                    parameters: merge(global_parameters, entry.get("parameters")),
                };
                let spec_text = serde_json::to_string(&load).unwrap_or_default();
                let instance = format!("dsl:{workflow_id}:{key}:{:016x}", agora_support::fnv1a(spec_text.as_bytes()));
                Ok(Module { key: key.to_owned(), instance, load })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Plan { workflow_id: workflow_id.to_owned(), modules, sinks })
    }
}

/// A module's input: the hook input plus the outputs so far.
#[derive(Serialize)]
struct ModuleInput<'a> {
    #[serde(flatten)]
    hook: &'a (dyn erased_serde::Serialize + Sync),
    previous_outputs: &'a Map<String, Value>,
}

pub struct Workflows {
    base: String,
    http: HttpClient,
    plans: TtlCache<Arc<Plan>>,
    executor: PolicyExecutor,
}

impl Workflows {
    pub fn new(base: &str, http: HttpClient, executor: PolicyExecutor, ttl: std::time::Duration) -> Self {
        Self { base: base.trim_end_matches('/').to_owned(), http, plans: TtlCache::new(ttl), executor }
    }

    /// The checked workflow, cached.
    pub async fn plan(&self, workflow_id: &str) -> Result<Arc<Plan>, HookError> {
        if let Some(hit) = self.plans.get(workflow_id) {
            return Ok(hit);
        }
        let url = format!("{}/workflows/{}", self.base, encode_segment(workflow_id));
        let body = self
            .http
            .get_json(&url)
            .await?
            .ok_or_else(|| HookError::Unavailable(format!("workflow {workflow_id:?} does not exist ({url} answered 404)")))?;
        let doc = if body.get("modules").is_some() { body } else { unwrap_data(body) };
        let plan = Arc::new(Plan::build(workflow_id, &doc).map_err(|e| HookError::Malformed(format!("workflow {workflow_id:?}: {e}")))?);
        self.plans.put(workflow_id, plan.clone());
        Ok(plan)
    }

    /// Runs the workflow for one hook call.
    pub async fn run(&self, workflow_id: &str, input: &(dyn erased_serde::Serialize + Sync)) -> Result<Value, HookError> {
        let plan = self.plan(workflow_id).await?;
        let mut outputs = Map::new();
        let no_parameters = Value::Object(Map::new());
        for module in &plan.modules {
            let context = json!({"workflow_id": plan.workflow_id, "module": module.key});
            let module_input = ModuleInput { hook: input, previous_outputs: &outputs };
            let call = PolicyCall {
                key: &module.instance,
                load: &module.load,
                parameters: &no_parameters,
                input: &module_input,
                context: &context,
            };
            let out = self.executor.call(&call).await?;
            outputs.insert(module.key.clone(), out);
        }
        Ok(match plan.sinks.as_slice() {
            [only] => outputs.remove(only).unwrap_or(Value::Null),
            sinks => Value::Object(sinks.iter().filter_map(|s| outputs.remove(s).map(|v| (s.clone(), v))).collect()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(graph: Value) -> Value {
        json!({
            "globalSettings": {"a": 1, "b": 1}, "globalParameters": {"g": true},
            "modules": {
                "pqt": {"codePath": "/x/pqt", "settings": {"b": 2}},
                "log": {"codePath": "/x/log"},
                "final": {"codePath": "/x/final", "parameters": {"p": 3}}
            },
            "graph": graph
        })
    }

    #[test]
    fn orders_modules_and_merges_settings() {
        let plan = Plan::build("wf", &doc(json!({"log": ["final"], "pqt": ["final"]}))).unwrap();
        let keys: Vec<&str> = plan.modules.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["pqt", "log", "final"]);
        assert_eq!(plan.sinks, ["final"]);
        assert_eq!(plan.modules[0].load.settings, json!({"a": 1, "b": 2}));
        assert_eq!(plan.modules[0].load.rule_id, "pqt");
        assert_eq!(plan.modules[2].load.parameters, json!({"g": true, "p": 3}));
        assert!(plan.modules[0].instance.starts_with("dsl:wf:pqt:"));

        let plan = Plan::build("wf", &doc(json!({"final": ["pqt"]}))).unwrap();
        let keys: Vec<&str> = plan.modules.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["log", "final", "pqt"]);
        assert_eq!(plan.sinks, ["log", "pqt"], "two sinks");
    }

    #[test]
    fn refuses_unknown_keys_and_cycles() {
        let e = Plan::build("wf", &doc(json!({"pqt": ["nope"]}))).unwrap_err();
        assert!(e.contains("unknown module \"nope\""), "{e}");
        let e = Plan::build("wf", &doc(json!({"ghost": ["pqt"]}))).unwrap_err();
        assert!(e.contains("unknown module \"ghost\""), "{e}");
        let e = Plan::build("wf", &doc(json!({"pqt": ["log"], "log": ["final"], "final": ["pqt"]}))).unwrap_err();
        assert!(e.contains("cycle"), "{e}");
        let e = Plan::build("wf", &json!({"modules": {"a": {}}})).unwrap_err();
        assert!(e.contains("codePath"), "{e}");
    }
}
