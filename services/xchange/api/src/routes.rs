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
use crate::shell::Api;
use agora_http::access::Access;
use agora_http::envelope::{ok, ok_doc, ok_list};
use agora_http::Flows;
use agora_store::DocStream;
use agora_xchange_core::{Queries, Subjects, TaskIntake, Xchange, XchangeError};
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, patch, post};
use axum::Router;
use serde_json::json;
use std::sync::Arc;

type Reply = Result<Response, ApiError>;

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

impl Flows for Flow {
    type Service = Xchange;
    type Api = Api;
    const ALL: &'static [Flow] = &[Flow::SubmitTask, Flow::Subjects, Flow::Queries];

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
    Flow::all_routes(&xchange)
}

/// Every route of §3 with the fallbacks.
pub fn router(xchange: Arc<Xchange>) -> Router {
    Flow::router(&xchange)
}

/// The routes of one flow (its Lambda function), answering exactly as [`router`] does.
pub fn flow_router(xchange: Arc<Xchange>, flow: Flow) -> Router {
    flow.router_of(&xchange)
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

// Tasks.

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/tasks", tag = crate::openapi::TAG,
    summary = "Submit a task",
    request_body = crate::openapi::bodies::TaskRequest,
    responses(
        (status = 201, description = "Stored, and assigned as its mode says (function mode: already assigned).", body = crate::openapi::bodies::EnvelopedExchangeTask),
        (status = 400, description = "Not a JSON object, a field missing, of the wrong type or unknown, a mode's parameter missing, an unavailable function, a selector that failed.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "`task_id` is taken.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn submit_task(State(intake): State<TaskIntake>, Body(body): Body) -> Reply {
    let body = json_body(&body, false)?;
    let task = intake.submit_task(&body).await?;
    Ok(ok(StatusCode::CREATED, &task))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/tasks/{task_id}", tag = crate::openapi::TAG,
    summary = "A task",
    params(
        ("task_id" = String, Path, description = "The task's id.")
    ),
    responses(
        (status = 200, description = "The task as stored.", body = crate::openapi::bodies::EnvelopedExchangeTask),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "`Task not found`", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn get_task(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(ok_doc(StatusCode::OK, &queries.task(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/tasks/{task_id}/output", tag = crate::openapi::TAG,
    summary = "A task's status and output",
    params(
        ("task_id" = String, Path, description = "The task's id.")
    ),
    responses(
        (status = 200, description = "The task's status and output.", body = crate::openapi::bodies::EnvelopedTaskOutput),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "`Task not found`", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn task_output(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(ok(StatusCode::OK, &queries.output(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/tasks/query", tag = crate::openapi::TAG,
    summary = "Query tasks",
    params(
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first.")
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching tasks as stored, in insertion order.", body = crate::openapi::bodies::EnvelopedExchangeTasks),
        (status = 400, description = "An invalid filter or paging parameter.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn query_tasks(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?);
    streamed(queries.stream_tasks(&filter, page).await?).await
}

// Subjects.

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/subjects", tag = crate::openapi::TAG,
    summary = "Register a subject",
    request_body = crate::openapi::bodies::SubjectRequest,
    responses(
        (status = 201, description = "Stored: the subject with its defaults.", body = crate::openapi::bodies::EnvelopedExchangeSubject),
        (status = 400, description = "Not a JSON object, a field of the wrong type or unknown.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "`subject_id` is not the caller (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "`subject_id` is taken.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn create_subject(State(subjects): State<Subjects>, access: Access, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false)?;
    access.claim_field(&mut body, "subject_id").map_err(ApiError::refused)?;
    let subject = subjects.create(&body).await?;
    Ok(ok(StatusCode::CREATED, &subject))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/subjects/{subject_id}", tag = crate::openapi::TAG,
    summary = "A subject",
    params(
        ("subject_id" = String, Path, description = "The subject's id.")
    ),
    responses(
        (status = 200, description = "The subject as stored.", body = crate::openapi::bodies::EnvelopedExchangeSubject),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "`Subject not found`", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn get_subject(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(ok_doc(StatusCode::OK, &queries.subject(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    patch, path = "/subjects/{subject_id}", tag = crate::openapi::TAG,
    summary = "Update a subject",
    params(
        ("subject_id" = String, Path, description = "The subject's id.")
    ),
    request_body = agora_http::openapi::Patch,
    responses(
        (status = 200, description = "The subject as stored after the update.", body = crate::openapi::bodies::EnvelopedExchangeSubject),
        (status = 400, description = "An id in the path is not valid UTF-8; a field of the wrong type, an id, or an empty body.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the subject itself or an operator may update it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "`Subject not found`", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn patch_subject(State(subjects): State<Subjects>, access: Access, Segment(id): Segment, Body(body): Body) -> Reply {
    access.act_as("subject_id", &id).map_err(ApiError::refused)?;
    let body = json_body(&body, false)?;
    Ok(ok_doc(StatusCode::OK, &subjects.patch(&id, &body).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    delete, path = "/subjects/{subject_id}", tag = crate::openapi::TAG,
    summary = "Delete a subject",
    params(
        ("subject_id" = String, Path, description = "The subject's id.")
    ),
    responses(
        (status = 200, description = "Deleted.", body = crate::openapi::bodies::EnvelopedDeleted),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the subject itself or an operator may delete it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "`Subject not found`", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn delete_subject(State(subjects): State<Subjects>, access: Access, Segment(id): Segment) -> Reply {
    access.act_as("subject_id", &id).map_err(ApiError::refused)?;
    subjects.delete(&id).await?;
    Ok(ok(StatusCode::OK, &json!({"deleted": true})))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/subjects/query", tag = crate::openapi::TAG,
    summary = "Query subjects",
    params(
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first.")
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching subjects as stored, in insertion order.", body = crate::openapi::bodies::EnvelopedExchangeSubjects),
        (status = 400, description = "An invalid filter or paging parameter.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn query_subjects(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?);
    streamed(queries.stream_subjects(&filter, page).await?).await
}

// Answers.

/// Documents in the envelope's array, as the store streams them.
async fn streamed(docs: DocStream) -> Reply {
    ok_list(docs).await.map_err(|e| ApiError::from(XchangeError::from(e)))
}
