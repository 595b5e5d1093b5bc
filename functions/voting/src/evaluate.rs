//! `evaluate-task`: the SQS consumer. Each record is one evaluation request; a record whose
//! evaluation may succeed on a retry is reported as a batch item failure, so SQS redelivers
//! that record alone (and dead-letters it after the queue's maxReceiveCount), never the others.

use agora_voting_core::{EvaluationOutcome, Voting};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent, SqsMessage};
use futures::future::join_all;

/// What to do with one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordResult {
    /// Done: completed, already complete, handled by another evaluator, or a permanent failure
    /// (a malformed hook output is not retried, §1.5 gap 7).
    Done,
    /// Let SQS deliver it again.
    Retry(String),
}

/// Evaluates one record's task.
pub async fn evaluate_record(voting: &Voting, record: &SqsMessage) -> RecordResult {
    let body = record.body.as_deref().unwrap_or_default();
    let id = match agora_aws::parse_evaluation_message(body) {
        Ok(id) => id,
        Err(reason) => {
            // Redelivering a message that cannot be read would only fail again.
            tracing::error!(message_id = ?record.message_id, %reason, "evaluation request dropped");
            return RecordResult::Done;
        }
    };
    match voting.evaluate_task(&id).await {
        Ok(EvaluationOutcome::Failed { retryable: true, reason }) => RecordResult::Retry(reason),
        Ok(EvaluationOutcome::Failed { retryable: false, reason }) => {
            tracing::error!(social_task_id = %id, %reason, "evaluation failed for good; not retried");
            RecordResult::Done
        }
        Ok(outcome) => {
            tracing::info!(social_task_id = %id, ?outcome, "evaluation request handled");
            RecordResult::Done
        }
        Err(e) => RecordResult::Retry(e.to_string()),
    }
}

/// Handles a batch: every record at once, failures reported per record.
pub async fn handle_batch(voting: &Voting, event: SqsEvent) -> SqsBatchResponse {
    let results = join_all(event.records.iter().map(|r| evaluate_record(voting, r))).await;
    let failed = event.records.iter().zip(results).filter_map(|(record, result)| match result {
        RecordResult::Retry(reason) => {
            tracing::warn!(message_id = ?record.message_id, %reason, "evaluation request will be redelivered");
            Some(record.message_id.clone().unwrap_or_default())
        }
        RecordResult::Done => None,
    });
    crate::batch_response(failed)
}
