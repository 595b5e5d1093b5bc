//! What the Orcade flows tell an operator, through the `metrics` facade (the names and their
//! labels are `agora_telemetry::names`): bids accepted and refused, evaluations and their
//! duration, store errors. Recorded here, each in one place.

use crate::error::OrcadeError;
use crate::flows::evaluate::EvaluationOutcome;
use agora_orcade_schema::Bid;
use agora_store::StoreError;
use agora_telemetry::names;
use std::time::Duration;

/// The answer to one bid request: stored, or refused by the refusal's kind
/// ([`OrcadeError::kind`]; a bid the PQT refused on a closed or mixed job is kept on file but
/// answered as refused, and counted so).
pub(crate) fn bid_answered(answer: &Result<Bid, OrcadeError>) {
    match answer {
        Ok(_) => metrics::counter!(names::BIDS_ACCEPTED).increment(1),
        Err(e) => metrics::counter!(names::BIDS_REFUSED, "reason" => e.kind()).increment(1),
    }
}

/// One evaluation request handled, by its outcome ([`EvaluationOutcome::kind`], or `error`);
/// the seconds it took when the evaluator decided or applied the job's outcome.
pub(crate) fn evaluation_finished(outcome: &Result<EvaluationOutcome, OrcadeError>, took: Duration) {
    let kind = outcome.as_ref().map_or("error", EvaluationOutcome::kind);
    metrics::counter!(names::EVALUATIONS, "service" => "orcade", "outcome" => kind).increment(1);
    let ran = matches!(
        outcome,
        Ok(EvaluationOutcome::Resolved { .. }
            | EvaluationOutcome::NoValidBids
            | EvaluationOutcome::Failed { .. }
            | EvaluationOutcome::Retry(_))
    );
    if ran {
        metrics::histogram!(names::EVALUATION_SECONDS, "service" => "orcade").record(took.as_secs_f64());
    }
}

/// A store error a flow did not handle, by its kind ([`StoreError::kind`]).
pub(crate) fn store_error(e: &StoreError) {
    metrics::counter!(names::STORE_ERRORS, "kind" => e.kind()).increment(1);
}
