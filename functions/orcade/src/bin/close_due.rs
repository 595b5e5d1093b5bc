//! `orcade-close-due`: one-shot `close-<id>` schedules and the `rate(1 minute)` sweep (due
//! closes, then stalled jobs).

use agora_orcade_functions::{close_due, wiring};
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let (closer, repairer) = wiring::sweeps_from_env().await?;
    agora_runtime::lambda::serve_event(move |event: Value| {
        let (closer, repairer) = (closer.clone(), repairer.clone());
        async move { close_due::handle(&closer, &repairer, &event).await.map_err(agora_runtime::lambda::Error::from) }
    })
    .await
}
