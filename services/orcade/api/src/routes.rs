//! The routes of §3: one handler per route, each a thin call into one of the core's flows. Each
//! [`Flow`] is its own router over its own flow struct (its Lambda function builds only that
//! flow); [`router`] merges them all for the local server.
//!
//! | Flow | Routes |
//! |---|---|
//! | [`Flow::CreateJob`] | `POST /bid-jobs` |
//! | [`Flow::CloseJob`] | `POST /bid-jobs/{id}/close` |
//! | [`Flow::SubmitBid`] | `POST /bid-jobs/{id}/bids` |
//! | [`Flow::Queries`] | `GET /bid-jobs/{id}`, `GET /bid-jobs/by-tags`, `GET /bid-jobs/{id}/bids`, `GET /bid-jobs/{id}/task-results`, `GET /bid-jobs/{id}/evaluation`, `GET /bids/{id}`, the three `POST …/query` |
//! | [`Flow::Edits`] | `PATCH` and `DELETE` of `/bid-jobs/{id}` and `/bids/{id}` |
//!
//! [`spec_routes`] leaves out the one route beyond §3, `GET /bid-jobs/{id}/evaluation`, so that a
//! server can act as an upstream Orcade (the local server's `--orcade-spec-routes-only`).
//!
//! Two routers may serve one path with different methods (`GET /bid-jobs/{id}` is a query,
//! `PATCH` an edit): axum merges their methods. The static paths `/bid-jobs/query` and
//! `/bid-jobs/by-tags` win over `/bid-jobs/{id}`.

use crate::body::{json_body, Body, Segment};
use crate::error::ApiError;
use crate::shell::Api;
use agora_http::access::Access;
use agora_http::envelope::{ok, ok_doc, ok_docs, ok_list};
use agora_http::Flows;
use agora_orcade_core::{BidIntake, Closer, Edits, JobCreator, Orcade, OrcadeError, Queries, TagMatch};
use agora_store::DocStream;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use axum::{Json as JsonResponse, Router};
use serde_json::json;
use std::sync::Arc;

type Reply = Result<Response, ApiError>;

/// The HTTP flows, each its own Lambda function on AWS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `POST /bid-jobs`
    CreateJob,
    /// `POST /bid-jobs/{id}/close`
    CloseJob,
    /// `POST /bid-jobs/{id}/bids`
    SubmitBid,
    /// The read routes: GET and the three `/query` routes.
    Queries,
    /// `PATCH` and `DELETE` of jobs and bids.
    Edits,
}

impl Flows for Flow {
    type Service = Orcade;
    type Api = Api;
    const ALL: &'static [Flow] = &[Flow::CreateJob, Flow::CloseJob, Flow::SubmitBid, Flow::Queries, Flow::Edits];

    /// This flow's routes over the service, without fallbacks.
    fn routes(self, orcade: &Orcade) -> Router {
        match self {
            Flow::CreateJob => create_routes(orcade.creator().clone()),
            Flow::CloseJob => close_routes(orcade.closer().clone()),
            Flow::SubmitBid => submit_routes(orcade.intake().clone()),
            Flow::Queries => query_routes(orcade.queries().clone()),
            Flow::Edits => edit_routes(orcade.edits().clone()),
        }
    }
}

/// Every route of §3, without fallbacks: for a server that mounts several services and sets the
/// fallbacks once ([`crate::SHELL`]).
pub fn routes(orcade: Arc<Orcade>) -> Router {
    Flow::all_routes(&orcade)
}

/// Every route of §3 with the fallbacks.
pub fn router(orcade: Arc<Orcade>) -> Router {
    Flow::router(&orcade)
}

/// The routes of one flow (its Lambda function), answering exactly as [`router`] does.
pub fn flow_router(orcade: Arc<Orcade>, flow: Flow) -> Router {
    flow.router_of(&orcade)
}

/// `POST /bid-jobs` over the create flow, without fallbacks.
pub fn create_routes(creator: JobCreator) -> Router {
    Router::new().route("/bid-jobs", post(create_job)).with_state(creator)
}

/// `POST /bid-jobs/{id}/close` over the close flow, without fallbacks.
pub fn close_routes(closer: Closer) -> Router {
    Router::new().route("/bid-jobs/{bid_job_id}/close", post(close_job)).with_state(closer)
}

/// `POST /bid-jobs/{id}/bids` over the bid flow, without fallbacks.
pub fn submit_routes(intake: BidIntake) -> Router {
    Router::new().route("/bid-jobs/{bid_job_id}/bids", post(submit_bid)).with_state(intake)
}

/// Every route of §3 only, without fallbacks: [`routes`] without Agora's extra read route
/// `GET /bid-jobs/{id}/evaluation`, for a server that acts as an upstream Orcade.
pub fn spec_routes(orcade: Arc<Orcade>) -> Router {
    Flow::ALL.iter().fold(Router::new(), |r, f| {
        r.merge(match f {
            Flow::Queries => spec_query_routes(orcade.queries().clone()),
            f => f.routes(&orcade),
        })
    })
}

/// The read routes over the store alone, without fallbacks: §3's and Agora's
/// `GET /bid-jobs/{id}/evaluation`.
pub fn query_routes(queries: Queries) -> Router {
    let evaluation = Router::new().route("/bid-jobs/{bid_job_id}/evaluation", get(evaluation_of_job)).with_state(queries.clone());
    spec_query_routes(queries).merge(evaluation)
}

/// The read routes of §3 only, without fallbacks.
pub fn spec_query_routes(queries: Queries) -> Router {
    Router::new()
        .route("/bid-jobs/{bid_job_id}", get(get_job))
        .route("/bid-jobs/by-tags", get(jobs_by_tags))
        .route("/bid-jobs/query", post(query_jobs))
        .route("/bid-jobs/{bid_job_id}/bids", get(bids_of_job))
        .route("/bid-jobs/{bid_job_id}/task-results", get(task_results_of_job))
        .route("/bids/{bid_id}", get(get_bid))
        .route("/bids/query", post(query_bids))
        .route("/bid-task-results/query", post(query_task_results))
        .with_state(queries)
}

/// `PATCH` and `DELETE` of jobs and bids over the edit flow, without fallbacks.
pub fn edit_routes(edits: Edits) -> Router {
    Router::new()
        .route("/bid-jobs/{bid_job_id}", patch(patch_job).delete(delete_job))
        .route("/bids/{bid_id}", patch(patch_bid).delete(delete_bid))
        .with_state(edits)
}

// Jobs.

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bid-jobs", tag = crate::openapi::TAG,
    summary = "Create a bid job",
    request_body = crate::openapi::bodies::CreateBidJobRequest,
    responses(
        (status = 201, description = "Created: the job as stored.", body = crate::openapi::bodies::EnvelopedBidJob),
        (status = 400, description = "Not a JSON object, a field missing, of the wrong type or unknown, an unavailable hook.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "`bid_job_creator_id` is not the caller (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "`bid_job_id` is taken.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn create_job(State(creator): State<JobCreator>, access: Access, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false)?;
    access.claim_field(&mut body, "bid_job_creator_id").map_err(ApiError::refused)?;
    let job = creator.create_job(&body).await?;
    Ok(ok(StatusCode::CREATED, &job))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bid-jobs/{bid_job_id}/close", tag = crate::openapi::TAG,
    summary = "Close a bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "Closed: the job as stored.", body = crate::openapi::bodies::EnvelopedBidJob),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the job's creator or an operator may close it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "The job is already closed.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn close_job(State(closer): State<Closer>, access: Access, Segment(id): Segment) -> Reply {
    let job = closer.close_job(&id, access.caller()).await?;
    Ok(ok(StatusCode::OK, &job))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bid-jobs/{bid_job_id}", tag = crate::openapi::TAG,
    summary = "A bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "The job as stored.", body = crate::openapi::bodies::EnvelopedBidJob),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn get_job(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(ok_doc(StatusCode::OK, &queries.job(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    patch, path = "/bid-jobs/{bid_job_id}", tag = crate::openapi::TAG,
    summary = "Update a bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    request_body(content = agora_http::openapi::Patch, description = "May set `bid_job_metadata`, `bid_job_description`, `bid_job_name` (or paths below them), the function ids, `bid_job_creator_id`, `bid_job_tags`, and a closed or mixed job's `bid_job_subject_ids`; fields the job does not define are stored as given."),
    responses(
        (status = 200, description = "The job as stored after the update.", body = crate::openapi::bodies::EnvelopedBidJob),
        (status = 400, description = "An id in the path is not valid UTF-8; a field that may not be set, of the wrong type, or an empty body.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the job's creator or an operator may update it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "The job is closed: its roster can no longer be replaced.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn patch_job(State(edits): State<Edits>, access: Access, Segment(id): Segment, Body(body): Body) -> Reply {
    let body = json_body(&body, false)?;
    Ok(ok_doc(StatusCode::OK, &edits.patch_job(&id, &body, access.caller()).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    delete, path = "/bid-jobs/{bid_job_id}", tag = crate::openapi::TAG,
    summary = "Delete a bid job and its bids",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "Deleted.", body = crate::openapi::bodies::EnvelopedDeleted),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the job's creator or an operator may delete it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn delete_job(State(edits): State<Edits>, access: Access, Segment(id): Segment) -> Reply {
    edits.delete_job(&id, access.caller()).await?;
    Ok(deleted())
}

/// `GET /bid-jobs/by-tags?tags=a,b&match=all|any`: `tags` comma-separated (it may be given more
/// than once: the lists are joined), `match` `all` by default.
#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bid-jobs/by-tags", tag = crate::openapi::TAG,
    summary = "Bid jobs by tags",
    params(
        ("tags" = String, Query, description = "Comma-separated tags; may be given more than once (the lists are joined)."),
        ("match" = Option<crate::openapi::bodies::TagMatch>, Query, description = "`all` (the default) or `any`."),
    ),
    responses(
        (status = 200, description = "The jobs carrying the tags.", body = crate::openapi::bodies::EnvelopedBidJobs),
        (status = 400, description = "No tag, or `match` not `all` or `any` (or given twice).", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn jobs_by_tags(State(queries): State<Queries>, RawQuery(query): RawQuery) -> Reply {
    let (mut tags, mut how) = (Vec::new(), None);
    for (name, value) in form_urlencoded::parse(query.as_deref().unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            "tags" => tags.extend(value.split(',').map(str::to_owned)),
            "match" if how.is_some() => return Err(ApiError::bad_request("match is given more than once")),
            "match" => how = Some(value.into_owned()),
            _ => {}
        }
    }
    let how = TagMatch::parse(how.as_deref())?;
    list(queries.jobs_by_tags(&tags, how).await?).await
}

// Bids.

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bid-jobs/{bid_job_id}/bids", tag = crate::openapi::TAG,
    summary = "Bid on a bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    request_body = crate::openapi::bodies::BidRequest,
    responses(
        (status = 201, description = "Stored: the bid (refused by the PQT on a closed or mixed job: kept with `bid_data.bid_rejected`).", body = crate::openapi::bodies::EnvelopedBid),
        (status = 400, description = "An id in the path is not valid UTF-8; not a JSON object, a field missing, of the wrong type or unknown.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Not on the job's roster, or not the caller (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "The job is closed or full, the subject has already bid, or the PQT refused the bid.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn submit_bid(State(intake): State<BidIntake>, access: Access, Segment(id): Segment, Body(body): Body) -> Reply {
    let mut body = json_body(&body, false)?;
    access.claim_field(&mut body, "bid_subject_id").map_err(ApiError::refused)?;
    let bid = intake.submit_bid(&id, &body).await?;
    Ok(ok(StatusCode::CREATED, &bid))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bid-jobs/{bid_job_id}/bids", tag = crate::openapi::TAG,
    summary = "The bids of a bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "The job's bids.", body = crate::openapi::bodies::EnvelopedBids),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn bids_of_job(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    list(queries.bids_of(&id).await?).await
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bids/{bid_id}", tag = crate::openapi::TAG,
    summary = "A bid",
    params(
        ("bid_id" = String, Path, description = "The bid's id.")
    ),
    responses(
        (status = 200, description = "The bid as stored.", body = crate::openapi::bodies::EnvelopedBid),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn get_bid(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    Ok(ok_doc(StatusCode::OK, &queries.bid(&id).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    patch, path = "/bids/{bid_id}", tag = crate::openapi::TAG,
    summary = "Update a bid",
    params(
        ("bid_id" = String, Path, description = "The bid's id.")
    ),
    request_body(content = agora_http::openapi::Patch, description = "May set `bid_data` (or paths below it) but not its `bid_rejected` and `pqt_reason`; fields the bid does not define are stored as given."),
    responses(
        (status = 200, description = "The bid as stored after the update.", body = crate::openapi::bodies::EnvelopedBid),
        (status = 400, description = "An id in the path is not valid UTF-8; a field that may not be set, of the wrong type, or an empty body.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the bid's subject or an operator may update it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "The job is closed or evaluated: its bids are final.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn patch_bid(State(edits): State<Edits>, access: Access, Segment(id): Segment, Body(body): Body) -> Reply {
    let body = json_body(&body, false)?;
    Ok(ok_doc(StatusCode::OK, &edits.patch_bid(&id, &body, access.caller()).await?))
}

#[cfg_attr(feature = "openapi", utoipa::path(
    delete, path = "/bids/{bid_id}", tag = crate::openapi::TAG,
    summary = "Withdraw a bid",
    params(
        ("bid_id" = String, Path, description = "The bid's id.")
    ),
    responses(
        (status = 200, description = "Deleted.", body = crate::openapi::bodies::EnvelopedDeleted),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 403, description = "Only the bid's subject or an operator may withdraw it (authentication on).", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid.", body = agora_http::openapi::EnvelopedError),
        (status = 409, description = "The job is closed or evaluated: its bids are final.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn delete_bid(State(edits): State<Edits>, access: Access, Segment(id): Segment) -> Reply {
    edits.delete_bid(&id, access.caller()).await?;
    Ok(deleted())
}

#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bid-jobs/{bid_job_id}/task-results", tag = crate::openapi::TAG,
    summary = "The task results of a bid job",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "The job's delegate round trips.", body = crate::openapi::bodies::EnvelopedBidTaskResults),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn task_results_of_job(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    list(queries.task_results_of(&id).await?).await
}

/// `GET /bid-jobs/{id}/evaluation` (beyond §3): the job's recorded decision once evaluated
/// (`winner`, `no_valid_bids` or `failed` with its error), `null` before. Xchange reads it to
/// learn a job's outcome when it has no winner.
#[cfg_attr(feature = "openapi", utoipa::path(
    get, path = "/bid-jobs/{bid_job_id}/evaluation", tag = crate::openapi::TAG,
    summary = "The evaluation of a bid job (beyond §3)",
    params(
        ("bid_job_id" = String, Path, description = "The bid job's id.")
    ),
    responses(
        (status = 200, description = "The recorded decision once evaluated, `null` before.", body = crate::openapi::bodies::EnvelopedEvaluation),
        (status = 400, description = "An id in the path is not valid UTF-8.", body = agora_http::openapi::EnvelopedError),
        (status = 404, description = "No such bid job.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn evaluation_of_job(State(queries): State<Queries>, Segment(id): Segment) -> Reply {
    let data = queries.evaluation(&id).await?.map(|r| {
        json!({"bid_job_id": r.bid_job_id, "decision": r.decision, "orcade_evaluation": r.orcade_evaluation, "decided_at": r.decided_at})
    });
    Ok(JsonResponse(json!({"ok": true, "data": data})).into_response())
}

// The three query routes: a MongoDB-style filter (an empty body: every document), `?limit=&skip=`
// paging through the matches, the answer streamed as the store reads it.

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bid-jobs/query", tag = crate::openapi::TAG,
    summary = "Query bid jobs",
    params(
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first.")
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching documents as stored, in insertion order.", body = crate::openapi::bodies::EnvelopedBidJobs),
        (status = 400, description = "An invalid filter or paging parameter.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn query_jobs(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?);
    streamed(queries.stream_jobs(&filter, page).await?).await
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bids/query", tag = crate::openapi::TAG,
    summary = "Query bids",
    params(
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first.")
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching documents as stored, in insertion order.", body = crate::openapi::bodies::EnvelopedBids),
        (status = 400, description = "An invalid filter or paging parameter.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn query_bids(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?);
    streamed(queries.stream_bids(&filter, page).await?).await
}

#[cfg_attr(feature = "openapi", utoipa::path(
    post, path = "/bid-task-results/query", tag = crate::openapi::TAG,
    summary = "Query bid task results",
    params(
        ("limit" = Option<u64>, Query, description = "At most this many documents."),
        ("skip" = Option<u64>, Query, description = "Skip this many matches first.")
    ),
    request_body(content = Option<agora_http::openapi::Filter>, description = "A MongoDB-style filter; `{}` or no body: every document."),
    responses(
        (status = 200, description = "The matching documents as stored, in insertion order.", body = crate::openapi::bodies::EnvelopedBidTaskResults),
        (status = 400, description = "An invalid filter or paging parameter.", body = agora_http::openapi::EnvelopedError),
        agora_http::openapi::Refusals<agora_http::openapi::EnvelopedError>,
    )
))]
pub(crate) async fn query_task_results(State(queries): State<Queries>, RawQuery(query): RawQuery, Body(body): Body) -> Reply {
    let (filter, page) = (json_body(&body, true)?, agora_http::page_of_query(query.as_deref()).map_err(ApiError::param)?);
    streamed(queries.stream_task_results(&filter, page).await?).await
}

// Answers.

fn deleted() -> Response {
    ok(StatusCode::OK, &json!({"deleted": true}))
}

/// Documents in the envelope's array, as the store streams them: a failure within the first
/// chunk is a 500 in the envelope, a later one breaks the body.
async fn streamed(docs: DocStream) -> Reply {
    ok_list(docs).await.map_err(|e| ApiError::from(OrcadeError::from(e)))
}

/// Documents already read, in the envelope's array (the same bytes as [`streamed`]).
async fn list(docs: Vec<agora_store::Json>) -> Reply {
    ok_docs(docs).await.map_err(|e| ApiError::from(OrcadeError::from(e)))
}
