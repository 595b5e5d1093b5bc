//! `orcade-close-due`: the close timer queue (an SQS event source, with partial batch failures),
//! one-shot `close-<id>` schedules and the `rate(1 minute)` sweep (due closes, then stalled
//! jobs).

use agora_aws::TimerQueueWork;
use agora_orcade_functions::{close_due, wiring};
use serde_json::Value;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let (closer, repairer, timers) = wiring::close_due_from_env().await?;
    let queue = Arc::new(TimerQueueWork::new(timers.clone(), close_due::DueClose(closer.clone())));
    agora_runtime::lambda::serve_sqs_and_events(queue, move |event: Value| {
        let (closer, repairer, timers) = (closer.clone(), repairer.clone(), timers.clone());
        async move { close_due::handle(&closer, &repairer, &timers, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
