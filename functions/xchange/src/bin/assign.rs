//! `xchange-assign`: the assignment queue's SQS event source (a task's assignment and delegate
//! round trip, bidding mode's job and polls), with partial batch failures.

use agora_xchange_core::AssignmentWork;
use agora_xchange_functions::wiring;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let (assigner, bidder) = wiring::assignment_from_env().await?;
    agora_runtime::lambda::serve_sqs(Arc::new(AssignmentWork::new(assigner, bidder))).await
}
