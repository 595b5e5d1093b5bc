//! `voting-start-tasks`: one-shot EventBridge Scheduler schedules and the `rate(1 minute)` sweep.

use agora_voting_functions::start;
use agora_voting_functions::wiring::{self, Function};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let voting = wiring::voting_from_env(Function::StartTasks).await?;
    agora_runtime::lambda::serve_event(move |event: Value| {
        let voting = voting.clone();
        async move { start::handle(&voting, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
