//! The handlers of Orcade's queues: the rule that turns each outcome into done or retry, for the
//! SQS consumer and the local queue alike. The messages they read are in [`crate::messages`].

use crate::flows::deliver::{Deliverer, DeliveryOutcome};
use crate::flows::evaluate::{EvaluationOutcome, Evaluator};
use crate::messages::{parse_evaluation_request, BidRequests, Delivery};
use agora_ports::{WorkHandler, WorkOutcome};
use async_trait::async_trait;

/// Evaluates the job each evaluation request names.
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
    /// Done when the evaluation was applied, found applied, failed for good (recorded), or is
    /// held by another evaluator (whose lease the repair sweep watches), and for a body that
    /// names no job; retry on a transient failure. Its span names the job once the body is read.
    #[tracing::instrument(name = "evaluation_work", skip_all, fields(bid_job_id = tracing::field::Empty))]
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = match parse_evaluation_request(body) {
            Ok(id) => id,
            Err(reason) => {
                tracing::error!(%reason, "evaluation request dropped");
                return WorkOutcome::Done;
            }
        };
        tracing::Span::current().record("bid_job_id", id.as_str());
        match self.evaluator.evaluate_job(&id).await {
            Ok(EvaluationOutcome::Retry(reason)) => WorkOutcome::Retry(reason),
            Ok(outcome) => {
                tracing::info!(?outcome, "evaluation request handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

/// Makes the delegate round trip each delivery names.
#[derive(Clone)]
pub struct DeliveryWork {
    deliverer: Deliverer,
}

impl DeliveryWork {
    pub fn new(deliverer: Deliverer) -> Self {
        Self { deliverer }
    }
}

#[async_trait]
impl WorkHandler for DeliveryWork {
    /// Done once the result (a reply or a failure) is stored, or was; busy while another worker
    /// holds the delivery (a dead worker's lease runs out, and this one makes it then); retry
    /// when the store failed. Its span names the job, and the delivery, once the body is read.
    #[tracing::instrument(
        name = "delivery_work",
        skip_all,
        fields(bid_job_id = tracing::field::Empty, delivery_id = tracing::field::Empty, subject_id = tracing::field::Empty)
    )]
    async fn handle(&self, body: &str) -> WorkOutcome {
        if let Some(fan_out) = BidRequests::parse(body) {
            return self.fan_out(fan_out).await;
        }
        let delivery = match Delivery::parse(body) {
            Ok(d) => d,
            Err(reason) => {
                tracing::error!(%reason, "delivery dropped");
                return WorkOutcome::Done;
            }
        };
        let span = tracing::Span::current();
        span.record("bid_job_id", delivery.bid_job_id.as_str());
        span.record("delivery_id", delivery.delivery_id.as_str());
        span.record("subject_id", delivery.subject_id.as_str());
        match self.deliverer.deliver(&delivery).await {
            Ok(DeliveryOutcome::InProgress) => WorkOutcome::Busy {
                reason: format!("delivery {} is held by another worker", delivery.delivery_id),
                after: self.deliverer.busy_retry(),
            },
            Ok(outcome) => {
                tracing::info!(?outcome, "delivery handled");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(e.to_string()),
        }
    }
}

impl DeliveryWork {
    /// Queues a fan-out item's deliveries on the deliverer's queue (in the handler's span, which
    /// names the job once the item is read).
    async fn fan_out(&self, item: Result<BidRequests, String>) -> WorkOutcome {
        let item = match item {
            Ok(item) => item,
            Err(reason) => {
                tracing::error!(%reason, "fan-out item dropped");
                return WorkOutcome::Done;
            }
        };
        tracing::Span::current().record("bid_job_id", item.bid_job_id.as_str());
        let Some(deliveries) = self.deliverer.deliveries() else {
            return WorkOutcome::Retry("no delivery queue to fan the bid_requests out to".into());
        };
        let subjects = match &item.subjects {
            Some(subjects) => subjects.clone(),
            None => match self.deliverer.roster_of(&item.bid_job_id, &item.job_key).await {
                Ok(Some(roster)) => roster,
                Ok(None) => {
                    tracing::info!("the job is gone (or was created again): no bid_requests");
                    return WorkOutcome::Done;
                }
                Err(e) => return WorkOutcome::Retry(format!("the job's roster not read: {e}")),
            },
        };
        match item.queue(&subjects, deliveries.as_ref()).await {
            Ok(()) => {
                tracing::info!(subjects = subjects.len(), "bid_requests queued");
                WorkOutcome::Done
            }
            Err(e) => WorkOutcome::Retry(format!("bid_requests not queued: {e}")),
        }
    }
}
