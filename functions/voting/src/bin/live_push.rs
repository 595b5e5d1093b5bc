//! `voting-live-push`: the live queue's SQS event source (changes to push, refreshes due), with
//! partial batch failures.

use agora_voting_functions::live;
use agora_voting_functions::wiring;
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let streams = wiring::live_streams_from_env().await?;
    agora_runtime::lambda::serve_event(move |event: SqsEvent| {
        let streams = streams.clone();
        async move { Ok::<SqsBatchResponse, agora_runtime::lambda::Error>(live::handle_batch(&streams, event).await) }
    })
    .await
}
