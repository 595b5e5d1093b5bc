//! `xchange-deadline`: the deadline timer queue (an SQS event source, with partial batch
//! failures) and a bidding task's one-shot `xchange-bidding-<task_id>` schedule.

use agora_aws::TimerQueueWork;
use agora_xchange_functions::{deadline, wiring};
use serde_json::Value;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let (bidder, timers) = wiring::deadline_from_env().await?;
    let queue = Arc::new(TimerQueueWork::new(timers.clone(), deadline::DueDeadline(bidder.clone())));
    agora_runtime::lambda::serve_sqs_and_events(queue, move |event: Value| {
        let (bidder, timers) = (bidder.clone(), timers.clone());
        async move { deadline::handle(&bidder, &timers, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
