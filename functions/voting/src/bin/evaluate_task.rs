//! `voting-evaluate-task`: the evaluation queue's SQS event source, with partial batch failures.

use agora_voting_core::EvaluationWork;
use agora_voting_functions::wiring::{self, Function};
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let voting = wiring::voting_from_env(Function::EvaluateTask).await?;
    agora_runtime::lambda::serve_sqs(Arc::new(EvaluationWork::new(voting))).await
}
