//! The routes of §3: one handler per route, each a thin call into the core.

use crate::body::{json_body, Body, Segment};
use crate::error::{vote_refusal, ApiError};
use crate::shell::Api;
use agora_http::access::Access;
use agora_http::Flows;
use agora_store::Json;
use agora_voting_core::{Canceller, Queries, TaskCreator, TaskParser, VoteIntake, Voting, VotingError};

use axum::extract::{RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json as JsonResponse, Router};
use serde_json::json;
use std::sync::Arc;

type Reply = Result<Response, ApiError>;

/// The HTTP flows, each its own Lambda function in AWS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `POST /submit-social-choice-task`
    CreateTask,
    /// `POST /parse-social-choice-task`
    ParseTask,
    /// `POST /submit-vote`
    SubmitVote,
    /// `POST /cancel-social-task/{social_task_id}`
    CancelTask,
    /// The read routes of §3.4.
    Queries,
}

impl Flows for Flow {
    type Service = Voting;
    type Api = Api;
    const ALL: &'static [Flow] = &[Flow::CreateTask, Flow::ParseTask, Flow::SubmitVote, Flow::CancelTask, Flow::Queries];

    /// This flow's routes over the service, without fallbacks. (`ParseTask` uses only the
    /// service's parser: see [`parse_routes`].)
    fn routes(self, voting: &Voting) -> Router {
        match self {
            Flow::CreateTask => create_routes(voting.creator().clone()),
            Flow::ParseTask => parse_routes(voting.parser().clone()),
            Flow::SubmitVote => vote_routes(voting.intake().clone()),
            Flow::CancelTask => cancel_routes(voting.canceller().clone()),
            Flow::Queries => query_routes(voting.queries().clone()),
        }
    }
}

/// Every route of §3.1–3.4, without fallbacks: for a server that mounts several services and
/// sets the fallbacks once ([`with_fallbacks`]).
pub fn routes(voting: Arc<Voting>) -> Router {
    Flow::all_routes(&voting)
}

/// `POST /submit-social-choice-task` over the create flow, without fallbacks.
pub fn create_routes(creator: TaskCreator) -> Router {
    Router::new().route("/submit-social-choice-task", post(submit_task)).with_state(creator)
}

/// `POST /submit-vote` over the vote flow, without fallbacks.
pub fn vote_routes(intake: VoteIntake) -> Router {
    Router::new().route("/submit-vote", post(submit_vote)).with_state(intake)
}

/// `POST /cancel-social-task/{social_task_id}` over the cancel flow, without fallbacks.
pub fn cancel_routes(canceller: Canceller) -> Router {
    Router::new().route("/cancel-social-task/{social_task_id}", post(cancel_task)).with_state(canceller)
}

/// The read routes of §3.4 over the store alone, without fallbacks (`voting-queries`).
pub fn query_routes(queries: Queries) -> Router {
    Router::new()
        .route("/get-report/{social_task_id}", get(get_report))
        .route("/get-status/{social_task_id}", get(get_status))
        .route("/get-full-task-bundle/{social_task_id}", get(get_full_task_bundle))
        .route("/is-live-streaming-enabled/{social_task_id}", get(is_live_streaming_enabled))
        .route("/generic-query/{collection}", post(generic_query))
        .with_state(queries)
}

/// `POST /parse-social-choice-task` over the parser alone, without fallbacks (`parse-task` opens
/// no store).
pub fn parse_routes(parser: TaskParser) -> Router {
    Router::new().route("/parse-social-choice-task", post(parse_task)).with_state(parser)
}

/// Every route of §3.1–3.4 with the fallbacks.
pub fn router(voting: Arc<Voting>) -> Router {
    Flow::router(&voting)
}

/// The routes of one flow (its Lambda function), answering exactly as [`router`] does.
pub fn flow_router(voting: Arc<Voting>, flow: Flow) -> Router {
    flow.router_of(&voting)
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/submit-social-choice-task", tag = crate::openapi::TAG,
    summary = "Create a task (§3.1)",
    request_body = crate::openapi::bodies::CreateTaskRequest,
    responses(
        (status = 201, description = "Created: the three documents are stored.", body = crate::openapi::bodies::TaskCreated),
        (status = 400, description = "Not a JSON object, a key missing, a field missing or of the wrong type, a hook unavailable.", body = agora_http::openapi::BareError),
        (status = 403, description = "`created_by_subject_id` is not the caller (authentication on).", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn submit_task(State(creator): State<TaskCreator>, access: Access, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false)?;
    // The creator is `social_task.created_by_subject_id` (a body without `social_task` is the
    // parser's to refuse).
    if let Some(task) = body.get_mut("social_task") {
        access.claim_field(task, "created_by_subject_id").map_err(ApiError::refused)?;
    }
    let id = creator.create_task(&body).await?;
    Ok((StatusCode::CREATED, JsonResponse(json!({ "social_task_id": id }))).into_response())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/parse-social-choice-task", tag = crate::openapi::TAG,
    summary = "Parse a task without storing it (§3.2)",
    request_body = crate::openapi::bodies::CreateTaskRequest,
    responses(
        (status = 200, description = "The three documents with the stored field names.", body = crate::openapi::bodies::Parsed),
        (status = 400, description = "As `POST /submit-social-choice-task`.", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn parse_task(State(parser): State<TaskParser>, Body(body): Body) -> Reply {
    let body = json_body(&body, false)?;
    let bundle = parser.parse_task(&body)?;
    Ok(JsonResponse(json!({ "parsed": bundle.to_parsed_dict() })).into_response())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/submit-vote", tag = crate::openapi::TAG,
    summary = "Submit a vote (§3.3)",
    request_body = crate::openapi::bodies::VoteRequest,
    responses(
        (status = 200, description = "Stored (or a retry of the stored vote), with the PQT's verdict.", body = crate::openapi::bodies::VoteAccepted),
        (status = 400, description = "`Vote rejected: ...`: a key missing or of the wrong type.", body = agora_http::openapi::BareError),
        (status = 403, description = "`Vote rejected: ...`: not a member of a private task, or not the caller.", body = agora_http::openapi::BareError),
        (status = 404, description = "`Vote rejected: Invalid social_task_id.`", body = agora_http::openapi::BareError),
        (status = 409, description = "`Vote rejected: ...`: the task is not started or complete, the subject already voted, the `vote_id` is taken.", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn submit_vote(State(intake): State<VoteIntake>, access: Access, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false).map_err(|e| ApiError::bad_request(format!("Vote rejected: {}", e.message())))?;
    access.claim_field(&mut body, "submitter_subject_id").map_err(ApiError::refused)?;
    let accepted = intake.submit_vote(&body).await.map_err(vote_refusal)?;
    Ok(JsonResponse(json!({ "status": "accepted", "qualified": accepted.qualified })).into_response())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/cancel-social-task/{social_task_id}", tag = crate::openapi::TAG,
    summary = "Cancel a task",
    description = "A `scheduled` or `started` task becomes `cancelled`: it takes no more votes, is never evaluated, and the live stream's subscribers get a final update. By the task's creator or an operator. The body, if any, is ignored.",
    params(("social_task_id" = String, Path, description = "The task's id.")),
    responses(
        (status = 200, description = "Cancelled.", body = crate::openapi::bodies::TaskCancelled),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::BareError),
        (status = 403, description = "The caller is neither the task's creator nor an operator (authentication on).", body = agora_http::openapi::BareError),
        (status = 404, description = "`Invalid social_task_id.`", body = agora_http::openapi::BareError),
        (status = 409, description = "The task is complete, cancelled already, never starts (another status), or its evaluation is under way.", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn cancel_task(State(canceller): State<Canceller>, access: Access, Segment(id): Segment) -> Reply {
    let creator = canceller.creator_of(&id).await?;
    access.act_as("created_by_subject_id", &creator).map_err(ApiError::refused)?;
    canceller.cancel_task(&id).await?;
    Ok(JsonResponse(json!({ "social_task_id": id, "status": "cancelled" })).into_response())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/get-report/{social_task_id}", tag = crate::openapi::TAG,
    summary = "The task's report (§3.4)",
    params(("social_task_id" = String, Path, description = "The task's id.")),
    responses(
        (status = 200, description = "`report_json` as stored: `{}` before completion.", body = crate::openapi::bodies::ReportAnswer),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::BareError),
        (status = 404, description = "`Invalid social_task_id.`", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn get_report(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(raw(queries.get_report(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/get-status/{social_task_id}", tag = crate::openapi::TAG,
    summary = "The task's status (§3.4)",
    params(("social_task_id" = String, Path, description = "The task's id.")),
    responses(
        (status = 200, description = "The status.", body = crate::openapi::bodies::TaskStatusAnswer),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::BareError),
        (status = 404, description = "`Invalid social_task_id.`", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn get_status(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(JsonResponse(queries.get_status(&id).await?).into_response())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/get-full-task-bundle/{social_task_id}", tag = crate::openapi::TAG,
    summary = "The task's documents and votes (§3.4)",
    params(("social_task_id" = String, Path, description = "The task's id.")),
    responses(
        (status = 200, description = "The three documents and every vote.", body = crate::openapi::bodies::FullTaskBundle),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::BareError),
        (status = 404, description = "`Invalid social_task_id.`", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn get_full_task_bundle(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(raw(queries.get_full_task_bundle(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/is-live-streaming-enabled/{social_task_id}", tag = crate::openapi::TAG,
    summary = "Whether the task streams live (§3.4)",
    params(("social_task_id" = String, Path, description = "The task's id.")),
    responses(
        (status = 200, description = "Whether the live stream serves the task.", body = crate::openapi::bodies::LiveStreaming),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::BareError),
        (status = 404, description = "`Invalid social_task_id.`", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn is_live_streaming_enabled(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    let enabled = queries.is_live_streaming_enabled(&id).await?;
    Ok(JsonResponse(json!({ "enabled": enabled })).into_response())
}

/// The documents as the store streams them, as a JSON array: the same bytes as the stored
/// documents joined, never all of them in memory (see `agora_http::json_list`). `?limit=&skip=`
/// page through them.
#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/generic-query/{collection}", tag = crate::openapi::TAG,
    summary = "Query a collection (§3.4)",
    params(
        ("collection" = crate::openapi::bodies::Collection, Path, description = "One of the four collections."),
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first."),
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching documents as stored, in insertion order.", body = Vec<crate::openapi::bodies::StoredDocument>),
        (status = 400, description = "An id in the path is not valid UTF-8; unknown collection (naming the allowed ones), an invalid filter or paging parameter.", body = agora_http::openapi::BareError),
        agora_http::openapi::Refusals<agora_http::openapi::BareError>,
    )
))]
pub(crate) async fn generic_query(
    State(queries): State<Queries>,
    Segment(collection): Segment,
    RawQuery(query): RawQuery,
    Body(body): Body,
) -> Reply {
    let page = agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?;
    let filter = json_body(&body, true)?;
    let docs = queries.generic_query(&collection, &filter, page).await?;
    agora_http::json_list("[", docs, "]").await.map_err(|e| ApiError::from(VotingError::from(e)))
}

/// A stored document as stored (never decoded and encoded again).
fn raw(doc: Json) -> Response {
    (StatusCode::OK, [(CONTENT_TYPE, "application/json")], String::from(Box::<str>::from(doc))).into_response()
}
