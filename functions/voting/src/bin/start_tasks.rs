//! `voting-start-tasks`: one-shot EventBridge Scheduler schedules and the `rate(1 minute)` sweep
//! (due starts, then stalled evaluations).

use agora_voting_functions::start;
use agora_voting_functions::wiring;
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let (starter, repairer) = wiring::sweeps_from_env().await?;
    agora_runtime::lambda::serve_event(move |event: Value| {
        let (starter, repairer) = (starter.clone(), repairer.clone());
        async move { start::handle(&starter, &repairer, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
