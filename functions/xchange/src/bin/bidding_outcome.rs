//! `xchange-bidding-outcome`: the bidding-outcome queue's SQS event source (Orcade's
//! `bid_job_resolved` events), with partial batch failures.

use agora_xchange_core::BiddingOutcomeWork;
use agora_xchange_functions::wiring;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let bidder = wiring::outcome_reader_from_env().await?;
    agora_runtime::lambda::serve_sqs(Arc::new(BiddingOutcomeWork::new(bidder))).await
}
