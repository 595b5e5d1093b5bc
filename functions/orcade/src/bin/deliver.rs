//! `orcade-deliver`: the delivery queue's SQS event source (the delegate round trips of §5),
//! with partial batch failures.

use agora_orcade_core::DeliveryWork;
use agora_orcade_functions::wiring;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let deliverer = wiring::deliverer_from_env().await?;
    agora_runtime::lambda::serve_sqs(Arc::new(DeliveryWork::new(deliverer))).await
}
