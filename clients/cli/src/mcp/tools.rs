//! The MCP tools: each one HTTP operation of the API ([`Spec`]), its input schema taken from
//! that operation in the OpenAPI document ([`super::schemas`]): its path and query parameters
//! as arguments, and its request body either spread into arguments (its fields) or as one
//! argument (a filter). A call sends the request as the caller and answers the service's data,
//! or a tool error carrying the HTTP status and the service's message.
//!
//! Xchange has no route by which a subject accepts ("takes") an open task (open mode asks each
//! subject's `task_evaluation_function`, xchange-1-3-5.md §4), so there is no tool for it.

use super::schemas::{parameter_property, placeholders, OpenApi, Operation, SchemaError};
use crate::http::{Api, ApiError, Shape};
use crate::voting::TASKS;
use reqwest::Method;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Where a tool's request body comes from.
#[derive(Debug, Clone, Copy)]
enum Body {
    /// No body.
    None,
    /// The body's fields are the tool's arguments; the fields named here the tool fills in when
    /// the caller leaves them out (so they are not required).
    Spread { filled: &'static [&'static str] },
    /// The body is the argument of this name (optional: `{}` without it).
    Argument(&'static str),
}

/// What a tool does to a request or an answer beyond sending it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Adjust {
    None,
    /// A vote's `vote_id`, `submission_time` and `qualified` filled in as `agora voting vote` does.
    FillVote,
    /// Only tasks that take votes: the filter ANDed with `status: started`.
    StartedTasks,
    /// Only jobs that take bids: `bid_job_status: open` (ANDed with the filter, or kept from the answer).
    OpenJobs,
}

/// One tool.
#[derive(Debug, Clone, Copy)]
struct Spec {
    name: &'static str,
    description: &'static str,
    method: &'static str,
    /// The operation's path template; its parameter names are this file's, matched to the
    /// document's by position.
    path: &'static str,
    /// Path parameters the tool sets itself (by this template's names), not arguments.
    fixed: &'static [(&'static str, &'static str)],
    body: Body,
    shape: Shape,
    adjust: Adjust,
    read_only: bool,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "voting_find_open_tasks",
        description: "Find voting tasks that are open for votes (status \"started\"), optionally narrowed by a MongoDB-style filter on the stored task fields (e.g. {\"topics\": \"translation\"}, {\"org_ids\": \"<your subject id>\"}).",
        method: "POST",
        path: "/generic-query/{collection}",
        fixed: &[("collection", TASKS)],
        body: Body::Argument("filter"),
        shape: Shape::Plain,
        adjust: Adjust::StartedTasks,
        read_only: true,
    },
    Spec {
        name: "voting_get_ballot",
        description: "Read a voting task's ballot: the full task bundle (the task, its subject spec with voting_options, its evaluation input, and the votes so far).",
        method: "GET",
        path: "/get-full-task-bundle/{id}",
        fixed: &[],
        body: Body::None,
        shape: Shape::Plain,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "voting_vote",
        description: "Vote on a started voting task as submitter_subject_id (with authentication on, only as the token's own subject). vote_data is e.g. {\"selected_option\": \"<a key of voting_options>\"}. vote_id (default: a new UUID), submission_time (default: now) and qualified (set by the server) may be left out; reuse a vote_id to retry safely.",
        method: "POST",
        path: "/submit-vote",
        fixed: &[],
        body: Body::Spread { filled: &["vote_id", "submission_time", "qualified"] },
        shape: Shape::Plain,
        adjust: Adjust::FillVote,
        read_only: false,
    },
    Spec {
        name: "voting_get_status",
        description: "Read a voting task's status: scheduled, started or complete.",
        method: "GET",
        path: "/get-status/{id}",
        fixed: &[],
        body: Body::None,
        shape: Shape::Plain,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "voting_get_report",
        description: "Read a voting task's report: its winners, the votes counted and the evaluation's output ({} before the task is complete).",
        method: "GET",
        path: "/get-report/{id}",
        fixed: &[],
        body: Body::None,
        shape: Shape::Plain,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "orcade_find_jobs_by_tags",
        description: "Find open bid jobs carrying tags (a comma-separated list; match \"all\" (default) or \"any\"). A subject finds the jobs it is on the roster of with the tag subject::<its id>.",
        method: "GET",
        path: "/bid-jobs/by-tags",
        fixed: &[],
        body: Body::None,
        shape: Shape::Envelope,
        adjust: Adjust::OpenJobs,
        read_only: true,
    },
    Spec {
        name: "orcade_find_open_jobs",
        description: "Find open bid jobs (bid_job_status \"open\"), optionally narrowed by a MongoDB-style filter on the stored job fields (e.g. {\"bid_job_subject_ids\": \"<your subject id>\"}).",
        method: "POST",
        path: "/bid-jobs/query",
        fixed: &[],
        body: Body::Argument("filter"),
        shape: Shape::Envelope,
        adjust: Adjust::OpenJobs,
        read_only: true,
    },
    Spec {
        name: "orcade_get_job",
        description: "Read a bid job: its description, mode, roster, status and deadlines.",
        method: "GET",
        path: "/bid-jobs/{id}",
        fixed: &[],
        body: Body::None,
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "orcade_bid",
        description: "Bid on an open bid job as bid_subject_id (with authentication on, only as the token's own subject); bid_data is the offer, e.g. {\"price_usd\": 120, \"confidence\": 0.9}. One bid per subject and job.",
        method: "POST",
        path: "/bid-jobs/{id}/bids",
        fixed: &[],
        body: Body::Spread { filled: &[] },
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: false,
    },
    Spec {
        name: "orcade_get_job_bids",
        description: "Read a bid job's bids; after evaluation the winning bid has is_winner true.",
        method: "GET",
        path: "/bid-jobs/{id}/bids",
        fixed: &[],
        body: Body::None,
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "orcade_get_job_results",
        description: "Read a bid job's task results: every bid_request and bid_winner round trip to subjects, with their replies.",
        method: "GET",
        path: "/bid-jobs/{id}/task-results",
        fixed: &[],
        body: Body::None,
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "xchange_find_tasks",
        description: "Find exchange tasks matching a MongoDB-style filter on the stored task fields (e.g. {\"task_assignment_status\": \"pending\"}); all of them without one.",
        method: "POST",
        path: "/tasks/query",
        fixed: &[],
        body: Body::Argument("filter"),
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "xchange_get_task",
        description: "Read an exchange task: its data, assignment mode and status, and its output once completed.",
        method: "GET",
        path: "/tasks/{id}",
        fixed: &[],
        body: Body::None,
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: true,
    },
    Spec {
        name: "xchange_submit_task",
        description: "Submit a task to the exchange: task_assignment_type (direct, function, open or bidding), task_data, and task_metadata.task_assignment with the mode's parameters (e.g. {\"subject_id\": \"...\"} for direct).",
        method: "POST",
        path: "/tasks",
        fixed: &[],
        body: Body::Spread { filled: &[] },
        shape: Shape::Envelope,
        adjust: Adjust::None,
        read_only: false,
    },
];

/// The open status of a voting task, and of a bid job.
const STARTED: &str = "started";
const OPEN: &str = "open";

/// A tool ready to list and call: its spec, its MCP description, and the document's names of
/// its path and query parameters.
pub struct ToolEntry {
    spec: Spec,
    pub tool: Tool,
    /// The document's name of each path parameter, in order, with the value the tool fixes.
    path_parameters: Vec<(String, Option<&'static str>)>,
    query_parameters: Vec<String>,
}

/// Every tool, its schema built from `openapi`.
pub fn catalogue(openapi: &OpenApi) -> Result<Vec<ToolEntry>, SchemaError> {
    SPECS.iter().map(|spec| entry(openapi, *spec)).collect()
}

fn entry(openapi: &OpenApi, spec: Spec) -> Result<ToolEntry, SchemaError> {
    let operation = openapi.operation(spec.method, spec.path)?;
    let ours = placeholders(spec.path);
    let path_parameters: Vec<(String, Option<&'static str>)> = operation
        .path_parameters
        .iter()
        .zip(&ours)
        .map(|(p, mine)| (p.name.clone(), spec.fixed.iter().find(|(name, _)| name == mine).map(|(_, v)| *v)))
        .collect();
    let query_parameters = operation.query_parameters.iter().map(|p| p.name.clone()).collect();
    let schema = input_schema(&spec, &operation, &path_parameters)?;
    let description = match &operation.summary {
        Some(summary) => format!("{} ({} {}: {summary})", spec.description, spec.method, spec.path),
        None => format!("{} ({} {})", spec.description, spec.method, spec.path),
    };
    let annotations = ToolAnnotations::new().read_only(spec.read_only).destructive(false).open_world(true);
    let tool = Tool::new(spec.name, description, Arc::new(schema)).annotate(annotations);
    Ok(ToolEntry { spec, tool, path_parameters, query_parameters })
}

/// The tool's input schema: the operation's path parameters (less the fixed ones) and query
/// parameters as properties, then its body (spread, or as one property).
fn input_schema(spec: &Spec, operation: &Operation, path_parameters: &[(String, Option<&str>)]) -> Result<JsonObject, SchemaError> {
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for (parameter, (_, fixed)) in operation.path_parameters.iter().zip(path_parameters) {
        if fixed.is_none() {
            properties.insert(parameter.name.clone(), parameter_property(parameter));
            required.push(json!(parameter.name));
        }
    }
    for parameter in &operation.query_parameters {
        properties.insert(parameter.name.clone(), parameter_property(parameter));
        if parameter.required {
            required.push(json!(parameter.name));
        }
    }
    let missing_body = || SchemaError::NoBody { method: spec.method.into(), path: spec.path.into() };
    let mut extra = Map::new();
    match spec.body {
        Body::None => {}
        Body::Argument(name) => {
            let body = operation.body.clone().ok_or_else(missing_body)?;
            properties.insert(name.to_owned(), body);
        }
        Body::Spread { filled } => {
            let body = operation.body.as_ref().ok_or_else(missing_body)?;
            let fields = body
                .get("properties")
                .and_then(Value::as_object)
                .ok_or_else(|| SchemaError::BodyNotObject { method: spec.method.into(), path: spec.path.into() })?;
            properties.extend(fields.clone());
            let body_required = body.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
            required.extend(body_required.into_iter().filter(|r| !r.as_str().is_some_and(|r| filled.contains(&r))));
            if let Some(additional) = body.get("additionalProperties") {
                extra.insert("additionalProperties".into(), additional.clone());
            }
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.extend(extra);
    Ok(schema)
}

/// Why a call did not reach the API: its arguments do not make a request.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ArgumentError {
    #[error("missing argument {0:?} (a string)")]
    Missing(String),
    #[error("argument {0:?} must be a string")]
    NotString(String),
    #[error("argument {0:?} must be a JSON object")]
    NotObject(String),
}

impl ToolEntry {
    pub fn name(&self) -> &str {
        self.spec.name
    }

    /// Calls the tool's operation with `arguments` as `api`'s caller.
    pub async fn call(&self, api: &Api, arguments: JsonObject) -> CallToolResult {
        let request = match self.request(arguments) {
            Ok(request) => request,
            Err(e) => return CallToolResult::error(vec![ContentBlock::text(format!("invalid arguments: {e}"))]),
        };
        let method = Method::from_bytes(self.spec.method.as_bytes()).expect("the specs' methods are HTTP methods");
        let segments: Vec<&str> = request.segments.iter().map(String::as_str).collect();
        let query: Vec<(&str, &str)> = request.query.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let url = match api.url(&segments, &query) {
            Ok(url) => url,
            Err(e) => return failure(&e),
        };
        match api.call(method, self.spec.shape, url, request.body.as_ref()).await {
            Ok(answer) => success(self.finish(answer.data(self.spec.shape).clone())),
            Err(e) => failure(&e),
        }
    }

    /// The request `arguments` make: the path's segments, the query and the body.
    fn request(&self, mut arguments: JsonObject) -> Result<Request, ArgumentError> {
        let mut parameters = self.path_parameters.iter();
        let mut segments = Vec::new();
        for segment in self.spec.path.trim_start_matches('/').split('/') {
            if !(segment.starts_with('{') && segment.ends_with('}')) {
                segments.push(segment.to_owned());
                continue;
            }
            let (name, fixed) = parameters.next().expect("a document parameter per placeholder (checked when the tool was built)");
            let value = match fixed {
                Some(value) => (*value).to_owned(),
                None => string_argument(&mut arguments, name)?.ok_or_else(|| ArgumentError::Missing(name.clone()))?,
            };
            segments.push(value);
        }
        let mut query = Vec::new();
        for name in &self.query_parameters {
            match arguments.remove(name) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => query.push((name.clone(), s)),
                Some(Value::Array(items)) => query.push((
                    name.clone(),
                    items.iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned)).collect::<Vec<_>>().join(","),
                )),
                Some(other) => query.push((name.clone(), other.to_string())),
            }
        }
        let body = match self.spec.body {
            Body::None => None,
            Body::Argument(name) => Some(match arguments.remove(name) {
                None | Some(Value::Null) => json!({}),
                Some(value @ Value::Object(_)) => value,
                Some(_) => return Err(ArgumentError::NotObject(name.to_owned())),
            }),
            Body::Spread { .. } => Some(Value::Object(arguments)),
        };
        let body = body.map(|body| self.adjust_body(body));
        Ok(Request { segments, query, body })
    }

    fn adjust_body(&self, mut body: Value) -> Value {
        match self.spec.adjust {
            Adjust::FillVote => {
                let object = body.as_object_mut().expect("a spread body is an object");
                object.entry("vote_id").or_insert_with(|| json!(uuid::Uuid::new_v4().to_string()));
                object.entry("submission_time").or_insert_with(|| json!(chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6f").to_string()));
                object.entry("qualified").or_insert(json!(true));
                body
            }
            Adjust::StartedTasks => and(body, json!({"status": STARTED})),
            Adjust::OpenJobs => and(body, json!({"bid_job_status": OPEN})),
            Adjust::None => body,
        }
    }

    /// The answer's data as the tool gives it.
    fn finish(&self, data: Value) -> Value {
        match (self.spec.adjust, self.spec.body, data) {
            // By tags: the route has no status filter, so the closed jobs are left out here.
            (Adjust::OpenJobs, Body::None, Value::Array(jobs)) => {
                Value::Array(jobs.into_iter().filter(|j| j.get("bid_job_status") == Some(&json!(OPEN))).collect())
            }
            (_, _, data) => data,
        }
    }
}

struct Request {
    segments: Vec<String>,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

/// The string argument `name`, taken out of `arguments`.
fn string_argument(arguments: &mut JsonObject, name: &str) -> Result<Option<String>, ArgumentError> {
    match arguments.remove(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s)),
        Some(Value::String(_)) => Err(ArgumentError::Missing(name.to_owned())),
        Some(_) => Err(ArgumentError::NotString(name.to_owned())),
    }
}

/// `filter` ANDed with `condition` (just `condition` when the filter is empty).
fn and(filter: Value, condition: Value) -> Value {
    match filter.as_object() {
        Some(f) if f.is_empty() => condition,
        _ => json!({"$and": [filter, condition]}),
    }
}

/// A successful call: the data as JSON text, and as structured content when it is an object.
fn success(data: Value) -> CallToolResult {
    let text = serde_json::to_string_pretty(&data).unwrap_or_else(|_| data.to_string());
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    if data.is_object() {
        result.structured_content = Some(data);
    }
    result
}

/// A refused or failed call: a tool error saying the HTTP status and the service's message.
fn failure(error: &ApiError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
    let message = match error {
        ApiError::Refused { message, .. } | ApiError::Server { message, .. } => message.clone(),
        other => other.to_string(),
    };
    result.structured_content = Some(json!({"status": error.status(), "error": message}));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn openapi() -> OpenApi {
        OpenApi::embedded().expect("docs/openapi.json")
    }

    fn tool<'a>(tools: &'a [ToolEntry], name: &str) -> &'a ToolEntry {
        tools.iter().find(|t| t.name() == name).unwrap_or_else(|| panic!("no tool {name}"))
    }

    #[test]
    fn every_tool_finds_its_operation_in_the_document() {
        let tools = catalogue(&openapi()).expect("every tool's operation is documented");
        assert_eq!(tools.len(), SPECS.len());
        for entry in &tools {
            assert_eq!(entry.tool.input_schema.get("type"), Some(&json!("object")), "{}", entry.name());
            assert!(!Value::Object((*entry.tool.input_schema).clone()).to_string().contains("$ref"), "{} is inline", entry.name());
        }
    }

    #[test]
    fn the_vote_tool_takes_the_votes_fields_and_fills_in_its_own() {
        let tools = catalogue(&openapi()).unwrap();
        let vote = tool(&tools, "voting_vote");
        let schema = &vote.tool.input_schema;
        let properties = schema["properties"].as_object().unwrap();
        for field in ["social_task_id", "submitter_subject_id", "vote_data", "vote_id"] {
            assert!(properties.contains_key(field), "{field} in {schema:?}");
        }
        let required: Vec<&str> =
            schema.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        assert!(!required.contains(&"vote_id") && !required.contains(&"qualified"), "{required:?}");
        let arguments = json!({"social_task_id": "task_1", "submitter_subject_id": "a", "vote_data": {"selected_option": "x"}});
        let request = vote.request(arguments.as_object().unwrap().clone()).unwrap();
        assert_eq!(request.segments, ["submit-vote"]);
        let body = request.body.unwrap();
        assert_eq!((body["qualified"].clone(), body["social_task_id"].clone()), (json!(true), json!("task_1")));
        assert!(body["vote_id"].is_string() && body["submission_time"].is_string());
    }

    #[test]
    fn path_parameters_come_from_arguments_or_the_tool() {
        let tools = catalogue(&openapi()).unwrap();
        let bid = tool(&tools, "orcade_bid");
        let job_param = bid.path_parameters[0].0.clone();
        let mut arguments = json!({"bid_subject_id": "a", "bid_data": {"price_usd": 1}});
        arguments[&job_param] = json!("job/1");
        let request = bid.request(arguments.as_object().unwrap().clone()).unwrap();
        assert_eq!(request.segments, ["bid-jobs", "job/1", "bids"]);
        assert_eq!(
            request.body.unwrap(),
            json!({"bid_subject_id": "a", "bid_data": {"price_usd": 1}}),
            "the path parameter is not in the body"
        );
        assert_eq!(bid.request(Map::new()).err(), Some(ArgumentError::Missing(job_param)));

        let find = tool(&tools, "voting_find_open_tasks");
        assert!(
            !find.tool.input_schema["properties"].as_object().unwrap().contains_key(&find.path_parameters[0].0),
            "the collection is the tool's"
        );
        let request = find.request(json!({"filter": {"topics": "fr"}}).as_object().unwrap().clone()).unwrap();
        assert_eq!(request.segments, ["generic-query", TASKS]);
        assert_eq!(request.body.unwrap(), json!({"$and": [{"topics": "fr"}, {"status": "started"}]}));
        assert_eq!(find.request(Map::new()).unwrap().body.unwrap(), json!({"status": "started"}));
        assert_eq!(find.request(json!({"filter": 3}).as_object().unwrap().clone()).err(), Some(ArgumentError::NotObject("filter".into())));
    }

    #[test]
    fn jobs_found_by_tags_are_the_open_ones() {
        let tools = catalogue(&openapi()).unwrap();
        let by_tags = tool(&tools, "orcade_find_jobs_by_tags");
        let request = by_tags.request(json!({"tags": ["a", "b"], "match": "any"}).as_object().unwrap().clone()).unwrap();
        let mut query = request.query.clone();
        query.sort();
        assert_eq!(query, [("match".to_owned(), "any".to_owned()), ("tags".to_owned(), "a,b".to_owned())]);
        let jobs = json!([{"bid_job_id": "1", "bid_job_status": "open"}, {"bid_job_id": "2", "bid_job_status": "closed"}]);
        assert_eq!(by_tags.finish(jobs), json!([{"bid_job_id": "1", "bid_job_status": "open"}]));
    }

    #[test]
    fn a_refusal_is_a_tool_error_with_its_status_and_message() {
        let result = failure(&ApiError::Refused { status: 403, message: "not you".into(), body: Value::Null });
        assert_eq!(result.is_error, Some(true));
        assert_eq!(result.structured_content, Some(json!({"status": 403, "error": "not you"})));
    }
}
