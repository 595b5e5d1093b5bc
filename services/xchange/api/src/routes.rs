//! The routes of §3: one handler per route, each a thin call into one of the core's flows.
//!
//! | Flow | Routes |
//! |---|---|
//! | [`Flow::SubmitTask`] | `POST /tasks` |
//! | [`Flow::Subjects`] | `POST /subjects`, `PATCH` and `DELETE /subjects/{id}` |
//! | [`Flow::Queries`] | `GET /tasks/{id}`, `GET /tasks/{id}/output`, `POST /tasks/query`, `GET /subjects/{id}`, `POST /subjects/query` |
//!
//! Tasks have no update or delete route (compat). The static paths `/tasks/query` and
//! `/subjects/query` win over `/tasks/{id}` and `/subjects/{id}`.

use crate::body::{json_body, Body, Segment};
use crate::error::ApiError;
use agora_http::access::Access;
use agora_store::DocStream;
use agora_xchange_core::{Queries, Subjects, TaskIntake, Xchange, XchangeError};
use axum::extract::{DefaultBodyLimit, RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json as JsonResponse, Router};
use serde_json::json;
use std::sync::Arc;

type Reply = Result<Response, ApiError>;

const LIST_PREFIX: &str = r#"{"ok":true,"data":["#;
const LIST_SUFFIX: &str = "]}";

/// The HTTP flows, each its own Lambda function on AWS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `POST /tasks`, with function mode's selector.
    SubmitTask,
    /// Subject writes.
    Subjects,
    /// The read routes.
    Queries,
}

impl Flow {
    pub const ALL: [Flow; 3] = [Flow::SubmitTask, Flow::Subjects, Flow::Queries];

    fn routes(self, xchange: &Xchange) -> Router {
        match self {
            Flow::SubmitTask => submit_routes(xchange.intake().clone()),
            Flow::Subjects => subject_routes(xchange.subjects().clone()),
            Flow::Queries => query_routes(xchange.queries().clone()),
        }
    }
}

/// Every route of §3, without fallbacks.
pub fn routes(xchange: Arc<Xchange>) -> Router {
    Flow::ALL.iter().fold(Router::new(), |r, f| r.merge(f.routes(&xchange)))
}

/// Every route of §3 with the fallbacks.
pub fn router(xchange: Arc<Xchange>) -> Router {
    with_fallbacks(routes(xchange))
}

/// The routes of one flow (its Lambda function), answering exactly as [`router`] does.
pub fn flow_router(xchange: Arc<Xchange>, flow: Flow) -> Router {
    with_fallbacks(flow.routes(&xchange))
}

/// `POST /tasks` (the `SubmitTask` flow), without fallbacks.
pub fn submit_routes(intake: TaskIntake) -> Router {
    Router::new().route("/tasks", post(submit_task)).with_state(intake)
}

/// The subject writes (the `Subjects` flow), without fallbacks.
pub fn subject_routes(subjects: Subjects) -> Router {
    Router::new()
        .route("/subjects", post(create_subject))
        .route("/subjects/{subject_id}", patch(patch_subject).delete(delete_subject))
        .with_state(subjects)
}

/// The read routes (the `Queries` flow), without fallbacks.
pub fn query_routes(queries: Queries) -> Router {
    Router::new()
        .route("/tasks/{task_id}", get(get_task))
        .route("/tasks/{task_id}/output", get(task_output))
        .route("/tasks/query", post(query_tasks))
        .route("/subjects/query", post(query_subjects))
        .route("/subjects/{subject_id}", get(get_subject))
        .with_state(queries)
}

/// The 404 and 405 answers in the envelope, the body limit and the head limits. Set once per
/// server.
pub fn with_fallbacks(router: Router) -> Router {
    router
        .fallback(no_route)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(agora_http::body::body_limit()))
        .layer(axum::middleware::from_fn(crate::limits::check_request))
}

/// The body limit and the head limits on `router`'s routes only (for a server of several
/// services).
pub fn with_limits(router: Router) -> Router {
    router
        .route_layer(DefaultBodyLimit::max(agora_http::body::body_limit()))
        .route_layer(axum::middleware::from_fn(crate::limits::check_request))
}

/// Whether `path` is one of Xchange's.
pub fn serves(path: &str) -> bool {
    ["/tasks", "/subjects"].iter().any(|p| path == *p || path.strip_prefix(p).is_some_and(|rest| rest.starts_with('/')))
}

// Tasks.

async fn submit_task(State(intake): State<TaskIntake>, Body(body): Body) -> Reply {
    let body = json_body(&body, false)?;
    let task = intake.submit_task(&body).await?;
    Ok((StatusCode::CREATED, JsonResponse(json!({"ok": true, "data": task}))).into_response())
}

async fn get_task(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(raw(StatusCode::OK, queries.task(&id).await?.get()))
}

async fn task_output(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(JsonResponse(json!({"ok": true, "data": queries.output(&id).await?})).into_response())
}

async fn query_tasks(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref())?);
    streamed(queries.stream_tasks(&filter, page).await?).await
}

// Subjects.

async fn create_subject(State(subjects): State<Subjects>, access: Access, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false)?;
    access.claim_field(&mut body, "subject_id")?;
    let subject = subjects.create(&body).await?;
    Ok((StatusCode::CREATED, JsonResponse(json!({"ok": true, "data": subject}))).into_response())
}

async fn get_subject(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(raw(StatusCode::OK, queries.subject(&id).await?.get()))
}

async fn patch_subject(State(subjects): State<Subjects>, access: Access, Segment(id): Segment, Body(body): Body) -> Reply {
    access.act_as("subject_id", &id)?;
    let body = json_body(&body, false)?;
    Ok(raw(StatusCode::OK, subjects.patch(&id, &body).await?.get()))
}

async fn delete_subject(State(subjects): State<Subjects>, access: Access, Segment(id): Segment) -> Reply {
    access.act_as("subject_id", &id)?;
    subjects.delete(&id).await?;
    Ok(JsonResponse(json!({"ok": true, "data": {"deleted": true}})).into_response())
}

async fn query_subjects(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref())?);
    streamed(queries.stream_subjects(&filter, page).await?).await
}

// Answers.

/// A stored document in the envelope, as stored.
fn raw(status: StatusCode, doc: &str) -> Response {
    let mut body = String::with_capacity(doc.len() + 20);
    body.push_str(r#"{"ok":true,"data":"#);
    body.push_str(doc);
    body.push('}');
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}

async fn streamed(docs: DocStream) -> Reply {
    agora_http::json_list(LIST_PREFIX, docs, LIST_SUFFIX).await.map_err(|e| ApiError::from(XchangeError::from(e)))
}

/// The answer to a path no route serves.
pub async fn no_route(method: Method, uri: Uri) -> Response {
    ApiError::with_status(StatusCode::NOT_FOUND, format!("No route for {method} {}", uri.path())).into_response()
}

/// Every path the service routes, in axum's syntax (as template.yaml's routes write them): a
/// front door that answers requests no route took (the HTTP API's `$default`) says 405 for
/// these, in this service's shape.
pub const PATHS: [&str; 7] =
    ["/tasks", "/tasks/query", "/tasks/{task_id}", "/tasks/{task_id}/output", "/subjects", "/subjects/query", "/subjects/{subject_id}"];

/// The answer to a method the path does not take.
pub async fn wrong_method(method: Method, uri: Uri) -> Response {
    ApiError::with_status(StatusCode::METHOD_NOT_ALLOWED, format!("Method {method} is not allowed on {}", uri.path())).into_response()
}
