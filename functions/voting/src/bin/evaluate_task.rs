//! The `evaluate-task` Lambda function: SQS event source with partial batch failure reporting.

use agora_voting_functions::{evaluate, wiring};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use lambda_runtime::{service_fn, LambdaEvent};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    wiring::init_tracing();
    let voting = wiring::voting_from_env().await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let voting = voting.clone();
        async move { Ok::<SqsBatchResponse, lambda_runtime::Error>(evaluate::handle_batch(&voting, event.payload).await) }
    }))
    .await
}
