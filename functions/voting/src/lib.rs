//! The Lambda functions: one binary per flow, each `main` only wiring. The handlers are the
//! shared router (HTTP flows) and thin adapters from Lambda events to the core flows.

pub mod evaluate;
pub mod live;
pub mod start;
pub mod wiring;

use agora_voting_api::Flow;
use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse};

/// Serves one HTTP flow's routes through API Gateway: the same router the local server serves.
pub async fn serve_http(flow: Flow) -> Result<(), lambda_http::Error> {
    wiring::init_tracing();
    let voting = wiring::voting_from_env().await?;
    lambda_http::run(agora_voting_api::flow_router(voting, flow)).await
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
