//! `xchange-deadline`: a bidding task's one-shot `xchange-bidding-<task_id>` schedule.

use agora_xchange_functions::{deadline, wiring};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let bidder = wiring::outcome_reader_from_env().await?;
    agora_runtime::lambda::serve_event(move |event: Value| {
        let bidder = bidder.clone();
        async move { deadline::handle(&bidder, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
