//! The `live-push` Lambda function: the live queue's SQS event source (changes to push,
//! refreshes due), with partial batch failure reporting.

use agora_voting_functions::{live, wiring};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use lambda_runtime::{service_fn, LambdaEvent};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    wiring::init_tracing();
    let streams = wiring::live_streams_from_env().await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let streams = streams.clone();
        async move { Ok::<SqsBatchResponse, lambda_runtime::Error>(live::handle_batch(&streams, event.payload).await) }
    }))
    .await
}
