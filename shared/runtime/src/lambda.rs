//! Every Lambda function's main, whatever the service: JSON logs, then one of
//!
//! - [`serve_http`]: an axum router behind API Gateway (the same router the local server serves);
//! - [`serve_sqs`]: an SQS event source whose records a [`WorkHandler`] handles one by one, with
//!   partial batch failures (a record to retry is redelivered alone, and dead-lettered after the
//!   queue's `maxReceiveCount`);
//! - [`serve_event`]: any other event (EventBridge, Scheduler), as JSON, to an async function.

use agora_ports::{WorkHandler, WorkOutcome};
use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use futures::future::join_all;
use lambda_runtime::{service_fn, LambdaEvent};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::future::Future;
use std::sync::Arc;

pub use lambda_runtime::Error;

/// JSON logs, level from `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt().json().with_env_filter(filter).with_current_span(false).without_time().try_init();
}

/// Serves `router` through API Gateway.
pub async fn serve_http(router: axum::Router) -> Result<(), Error> {
    lambda_http::run(router).await
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

/// Handles a batch: every record at once, each answered by `handler`; the records to retry are
/// the batch item failures.
pub async fn handle_batch(handler: &dyn WorkHandler, event: SqsEvent) -> SqsBatchResponse {
    let outcomes = join_all(event.records.iter().map(|r| handler.handle(r.body.as_deref().unwrap_or_default()))).await;
    let failed = event.records.iter().zip(outcomes).filter_map(|(record, outcome)| match outcome {
        // SQS redelivers either after the queue's visibility timeout, which is longer than any
        // lease a busy piece of work waits for.
        WorkOutcome::Retry(reason) | WorkOutcome::Busy { reason, .. } => {
            tracing::warn!(message_id = ?record.message_id, %reason, "work will be redelivered");
            Some(record.message_id.clone().unwrap_or_default())
        }
        WorkOutcome::Done => None,
    });
    batch_response(failed)
}

/// Serves an SQS event source with `handler` (see [`handle_batch`]).
pub async fn serve_sqs(handler: Arc<dyn WorkHandler>) -> Result<(), Error> {
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let handler = handler.clone();
        async move { Ok::<SqsBatchResponse, Error>(handle_batch(handler.as_ref(), event.payload).await) }
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
        async move { handle(event.payload).await }
    }))
    .await
}
