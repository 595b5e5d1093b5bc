//! `orcade-evaluate`: the evaluation queue's SQS event source, with partial batch failures.

use agora_orcade_core::EvaluationWork;
use agora_orcade_functions::wiring;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let evaluator = wiring::evaluator_from_env().await?;
    agora_runtime::lambda::serve_sqs(Arc::new(EvaluationWork::new(evaluator))).await
}
