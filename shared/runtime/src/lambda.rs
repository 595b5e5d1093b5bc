//! Every Lambda function's main, whatever the service: JSON logs and EMF metrics
//! ([`init_telemetry`]), then one of
//!
//! - [`serve_http`]: an axum router behind API Gateway (the same router the local server serves),
//!   its callers named by the JWT authorizer's claims when `AGORA_AUTH` is `jwt-authorizer`
//!   ([`http_app`]);
//! - [`serve_sqs`]: an SQS event source whose records a [`WorkHandler`] handles one by one, with
//!   partial batch failures (a record to retry is redelivered alone; on its last receive, the
//!   queue's `maxReceiveCount`, it is dead-lettered with its reason: [`crate::dead_letters`]);
//! - [`serve_event`]: any other event (EventBridge, Scheduler), as JSON, to an async function;
//! - [`serve_sqs_and_events`]: both, for a function with an SQS event source that is invoked
//!   otherwise too (a service's timer queue and its one-shot schedules and sweep).
//!
//! Each request runs in its trace ([`agora_http::trace`], the trace id API Gateway's request id)
//! and each SQS record in the trace its sender gave it (the message attribute
//! [`agora_telemetry::trace::ATTRIBUTE`]), inside a `work` span; every log line is JSON with the
//! fields of its spans, the Lambda runtime's `requestId` among them. The metrics recorded during an
//! invocation are written as CloudWatch EMF lines when it ends.

use agora_auth::{AuthError, ClaimRules};
use agora_http::access::Identity;
use agora_ports::{WorkHandler, WorkOutcome};
use agora_telemetry::{names, trace};
use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent, SqsMessage};
use futures::future::join_all;
use lambda_runtime::{service_fn, LambdaEvent};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::sync::Arc;
use tracing::Instrument;

pub use lambda_runtime::Error;

/// JSON logs, level from `RUST_LOG` (default `info`), each line with the fields of every span it
/// is in (`spans`: the runtime's `requestId`, the work's `trace_id`, the flow's ids); and the
/// EMF recorder of the metrics ([`flush_metrics`] after each invocation).
pub fn init_telemetry() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ =
        tracing_subscriber::fmt().json().with_env_filter(filter).with_current_span(false).with_span_list(true).without_time().try_init();
    if let Err(e) = agora_telemetry::emf::install() {
        tracing::warn!(error = %e, "metrics are off");
    }
}

/// Writes the metrics recorded since the last flush as EMF lines on stdout (nothing when the
/// recorder is not installed or nothing was recorded).
pub fn flush_metrics() {
    if let Ok(emf) = agora_telemetry::emf::install() {
        emf.flush();
    }
}

/// Environment variable: `jwt-authorizer` when API Gateway's JWT authorizer guards every route
/// (the template sets it when `AuthEnabled` is true), `off` or unset when it does not.
pub const AUTH_ENV: &str = "AGORA_AUTH";

/// How a function learns who is calling, from `AGORA_AUTH`: the claim rules
/// (`AGORA_AUTH_SUBJECT_CLAIM`, `AGORA_AUTH_ADMIN_SCOPE`) when the authorizer is on, `None` when
/// it is off.
pub fn auth_from_env() -> Result<Option<ClaimRules>, Error> {
    match agora_support::env::var(AUTH_ENV).as_deref() {
        None | Some("off") => Ok(None),
        Some("jwt-authorizer") => Ok(Some(ClaimRules::from_env())),
        Some(other) => Err(format!("{AUTH_ENV} must be \"jwt-authorizer\" or \"off\", got {other:?}").into()),
    }
}

/// `router` as a function serves it: with `rules`, each request's caller is read from the JWT
/// authorizer's claims in its API Gateway request context ([`identity_of`]); without, the
/// routes trust the ids in requests (logged once).
pub fn http_app(router: axum::Router, rules: Option<ClaimRules>) -> axum::Router {
    let router = match rules {
        Some(rules) => router.layer(axum::middleware::from_fn_with_state(Arc::new(rules), identify)),
        None => {
            tracing::warn!("{AUTH_ENV} is off: the routes trust the subject ids in requests");
            router
        }
    };
    // Outermost first: the request id read, then the request in its trace, then the route.
    router.layer(axum::middleware::from_fn(agora_http::trace::trace_requests)).layer(axum::middleware::from_fn(front_door_id))
}

/// Middleware: API Gateway's request id as the request's trace id
/// ([`agora_http::trace::FrontDoorId`]); and the invocation's metrics flushed once it is answered.
async fn front_door_id(mut request: axum::extract::Request, next: axum::middleware::Next) -> axum::response::Response {
    let id = match request.extensions().get::<lambda_http::request::RequestContext>() {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(c)) => c.request_id.clone(),
        Some(lambda_http::request::RequestContext::ApiGatewayV1(c)) => c.request_id.clone(),
        _ => None,
    };
    if let Some(id) = id {
        request.extensions_mut().insert(agora_http::trace::FrontDoorId(id));
    }
    let response = next.run(request).await;
    flush_metrics();
    response
}

/// Serves `router` through API Gateway ([`http_app`] with [`auth_from_env`]).
pub async fn serve_http(router: axum::Router) -> Result<(), Error> {
    lambda_http::run(http_app(router, auth_from_env()?)).await
}

/// Middleware: the caller of the request, from its request context.
async fn identify(
    axum::extract::State(rules): axum::extract::State<Arc<ClaimRules>>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let identity = identity_of(&rules, request.extensions().get::<lambda_http::request::RequestContext>());
    request.extensions_mut().insert(identity);
    next.run(request).await
}

/// Who is calling, by the JWT authorizer's claims in an HTTP API request context. API Gateway
/// has verified the token; a request without claims (a route left without the authorizer) is
/// refused as one without a token. The claims come as strings: a list claim (`scp`) reads
/// `[a b]`, split here into its items.
pub fn identity_of(rules: &ClaimRules, context: Option<&lambda_http::request::RequestContext>) -> Identity {
    let jwt = match context {
        Some(lambda_http::request::RequestContext::ApiGatewayV2(c)) => c.authorizer.as_ref().and_then(|a| a.jwt.as_ref()),
        _ => None,
    };
    let Some(jwt) = jwt else { return Identity::Refused(AuthError::Missing) };
    let claims = jwt
        .claims
        .iter()
        .map(|(name, value)| {
            let value = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                Some(items) => serde_json::Value::Array(items.split([' ', ',']).filter(|i| !i.is_empty()).map(|i| i.into()).collect()),
                None => serde_json::Value::String(value.clone()),
            };
            (name.clone(), value)
        })
        .collect();
    match rules.caller(&claims, jwt.scopes.as_deref().unwrap_or_default()) {
        Ok(caller) => Identity::Caller(caller.into()),
        Err(error) => Identity::Refused(error),
    }
}

/// The answer to an SQS batch: the message ids SQS must deliver again (each alone), none when
/// the whole batch is done.
pub fn batch_response(failed: impl IntoIterator<Item = String>) -> SqsBatchResponse {
    let mut response = SqsBatchResponse::default();
    response.batch_item_failures = failed
        .into_iter()
        .map(|id| {
            let mut failure = BatchItemFailure::default();
            failure.item_identifier = id;
            failure
        })
        .collect();
    response
}

/// Handles a batch: every record at once, each answered by `handler` in its trace and span
/// ([`handle_record`]); the records to retry are the batch item failures.
pub async fn handle_batch(handler: &dyn WorkHandler, event: SqsEvent) -> SqsBatchResponse {
    let outcomes = join_all(event.records.iter().map(|record| handle_record(handler, record))).await;
    let redeliver = event.records.iter().zip(outcomes).filter(|(_, redeliver)| *redeliver);
    batch_response(redeliver.map(|(record, _)| record.message_id.clone().unwrap_or_default()))
}

/// Handles one record in the trace its sender gave it (a new one when it has none), inside a
/// `work` span with the trace id, the queue's name and the message id; counts it by queue and
/// outcome. True when SQS must deliver it again. A record to retry on its last receive goes to the
/// dead-letter queue with its reason ([`crate::dead_letters::set_aside`]) and is done.
async fn handle_record(handler: &dyn WorkHandler, record: &SqsMessage) -> bool {
    let trace_id = record
        .message_attributes
        .get(trace::ATTRIBUTE)
        .and_then(|a| a.string_value.as_deref())
        .and_then(trace::accept)
        .map(str::to_owned)
        .unwrap_or_else(trace::new_id);
    let queue = queue_name(record.event_source_arn.as_deref());
    let span = tracing::info_span!("work", trace_id = %trace_id, queue, message_id = record.message_id.as_deref().unwrap_or_default());
    let work = async {
        let outcome = handler.handle(record.body.as_deref().unwrap_or_default()).await;
        // SQS redelivers work to retry after the queue's visibility timeout, which is longer than
        // any lease a busy piece of work waits for; on its last receive, the consumer sets it
        // aside on the dead-letter queue itself, with its reason.
        let (counted, redeliver) = match &outcome {
            WorkOutcome::Done => ("done", false),
            WorkOutcome::Retry(reason) if crate::dead_letters::set_aside(record, reason).await => ("dead_lettered", false),
            WorkOutcome::Retry(reason) => {
                tracing::warn!(%reason, "work will be redelivered");
                ("retried", true)
            }
            WorkOutcome::Busy { reason, .. } => {
                tracing::warn!(%reason, "work will be redelivered");
                ("busy", true)
            }
        };
        metrics::counter!(names::WORK_ITEMS, "queue" => queue.to_owned(), "outcome" => counted).increment(1);
        redeliver
    };
    trace::scope(&trace_id, work.instrument(span)).await
}

/// A queue's name from its ARN (`arn:aws:sqs:<region>:<account>:<name>`): the last part.
fn queue_name(arn: Option<&str>) -> &str {
    arn.and_then(crate::dead_letters::queue_of_arn).map_or("unknown", |(_, name)| name)
}

/// Serves an SQS event source with `handler` (see [`handle_batch`]).
pub async fn serve_sqs(handler: Arc<dyn WorkHandler>) -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let handler = handler.clone();
        async move {
            let response = handle_batch(handler.as_ref(), event.payload).await;
            flush_metrics();
            Ok::<SqsBatchResponse, Error>(response)
        }
    }))
    .await
}

/// The SQS batch `event` is, if it is one: a `Records` list whose records all come from SQS
/// (`"eventSource": "aws:sqs"`). `Err` for such an event that is no SQS event after all.
pub fn sqs_batch(event: &serde_json::Value) -> Option<Result<SqsEvent, serde_json::Error>> {
    let records = event.get("Records")?.as_array()?;
    let from_sqs = |r: &serde_json::Value| r.get("eventSource").and_then(serde_json::Value::as_str) == Some("aws:sqs");
    if records.is_empty() || !records.iter().all(from_sqs) {
        return None;
    }
    Some(serde_json::from_value(event.clone()))
}

/// Serves a function invoked by an SQS event source and by other events: an SQS batch
/// ([`sqs_batch`]) goes to `queue` as [`serve_sqs`] serves it, any other event to `handle` as
/// [`serve_event`] serves it.
pub async fn serve_sqs_and_events<R, F, Fut>(queue: Arc<dyn WorkHandler>, handle: F) -> Result<(), Error>
where
    R: Serialize + Send + 'static,
    F: Fn(serde_json::Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, Error>> + Send,
{
    let handle = Arc::new(handle);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<serde_json::Value>| {
        let (queue, handle) = (queue.clone(), handle.clone());
        async move {
            let answer = match sqs_batch(&event.payload) {
                Some(batch) => Ok(serde_json::to_value(handle_batch(queue.as_ref(), batch?).await)?),
                None => Ok::<serde_json::Value, Error>(serde_json::to_value(handle(event.payload).await?)?),
            };
            flush_metrics();
            answer
        }
    }))
    .await
}

/// Serves events of type `E` with `handle`, whose answer is the invocation's result.
pub async fn serve_event<E, R, F, Fut>(handle: F) -> Result<(), Error>
where
    E: DeserializeOwned + Send + 'static,
    R: Serialize + Send + 'static,
    F: Fn(E) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, Error>> + Send,
{
    let handle = Arc::new(handle);
    lambda_runtime::run(service_fn(move |event: LambdaEvent<E>| {
        let handle = handle.clone();
        async move {
            let answer = handle(event.payload).await;
            flush_metrics();
            answer
        }
    }))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sqs_batches_are_told_from_other_events() {
        let record = json!({"messageId": "m1", "receiptHandle": "r1", "body": "{}", "attributes": {}, "messageAttributes": {},
            "eventSource": "aws:sqs", "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:timers", "awsRegion": "us-east-1"});
        let batch = sqs_batch(&json!({"Records": [record]})).expect("an SQS batch").expect("parses");
        assert_eq!(batch.records[0].message_id.as_deref(), Some("m1"));
        for other in [
            json!({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}),
            json!({"timer": {"name": "start-task_1", "due": "2026-10-22T10:00:00Z"}, "body": {"social_task_id": "task_1"}}),
            json!({"Records": []}),
            json!({"Records": [{"eventSource": "aws:s3"}]}),
            json!({"social_task_id": "task_1"}),
            json!(null),
        ] {
            assert!(sqs_batch(&other).is_none(), "{other}");
        }
    }
}
