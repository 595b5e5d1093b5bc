//! `voting-start-tasks`: the start timer queue (an SQS event source, with partial batch
//! failures), one-shot EventBridge Scheduler schedules and the `rate(1 minute)` sweep (due
//! starts, then stalled evaluations).

use agora_aws::TimerQueueWork;
use agora_voting_functions::start;
use agora_voting_functions::wiring;
use serde_json::Value;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let (starter, repairer, timers) = wiring::start_tasks_from_env().await?;
    let queue = Arc::new(TimerQueueWork::new(
        timers.clone(),
        start::DueTimer { start: start::DueStart(starter.clone()), repairer: repairer.clone() },
    ));
    agora_runtime::lambda::serve_sqs_and_events(queue, move |event: Value| {
        let (starter, repairer, timers) = (starter.clone(), repairer.clone(), timers.clone());
        async move { start::handle(&starter, &repairer, &timers, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
