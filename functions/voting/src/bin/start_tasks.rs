//! The `start-tasks` Lambda function: one-shot EventBridge Scheduler schedules and the
//! `rate(1 minute)` sweep rule.

use agora_voting_functions::{start, wiring};
use lambda_runtime::{service_fn, LambdaEvent};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    wiring::init_tracing();
    let voting = wiring::voting_from_env().await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| {
        let voting = voting.clone();
        async move { start::handle(&voting, &event.payload).await.map_err(lambda_runtime::Error::from) }
    }))
    .await
}
