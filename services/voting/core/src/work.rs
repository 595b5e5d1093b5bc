//! The handler of voting's evaluation queue: the one rule that turns an evaluation's outcome into
//! done or retry, for the SQS consumer and the local queue alike. The messages it reads are in
//! [`crate::messages`].

use crate::flows::evaluate::{EvaluationOutcome, Evaluator};
use crate::messages::parse_evaluation_request;
use agora_ports::{WorkHandler, WorkOutcome};
use async_trait::async_trait;

/// Evaluates the task each evaluation request names.
#[derive(Clone)]
pub struct EvaluationWork {
    evaluator: Evaluator,
}

impl EvaluationWork {
    pub fn new(evaluator: Evaluator) -> Self {
        Self { evaluator }
    }
}

#[async_trait]
impl WorkHandler for EvaluationWork {
    /// Done when the evaluation completed, was done already or by another evaluator, or failed
    /// for good (a malformed hook output is not retried, §1.5 gap 7), and for a body that names no
    /// task (it would only fail again); retry on a transient failure. Its span names the task
    /// once the body is read.
    #[tracing::instrument(name = "evaluation_work", skip_all, fields(social_task_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = match parse_evaluation_request(body) {
            Ok(id) => id,
            Err(reason) => {
                tracing::error!(%reason, "evaluation request dropped");
                return WorkOutcome::Done;
            }
        };
        tracing::Span::current().record("social_task_id", id.as_str());
        match self.evaluator.evaluate_task(&id).await {
            Ok(EvaluationOutcome::Failed { retryable: true, reason }) => WorkOutcome::Retry(reason),
            Ok(EvaluationOutcome::Failed { retryable: false, reason }) => {
                tracing::error!(%reason, "evaluation failed for good; not retried");
                WorkOutcome::Done
            }
            Ok(outcome) => {
                tracing::info!(?outcome, "evaluation request handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}
