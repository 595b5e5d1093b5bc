//! What the voting flows tell an operator, through the `metrics` facade (the names and their
//! labels are `agora_telemetry::names`): votes accepted and refused, evaluations and their
//! duration, store errors. Recorded here, each in one place, so that a flow reads as its
//! specification and a label's values come from one table.

use crate::error::VotingError;
use crate::flows::evaluate::EvaluationOutcome;
use crate::flows::vote::VoteAccepted;
use agora_store::StoreError;
use agora_telemetry::names;
use std::time::Duration;

/// The answer to one vote request: accepted, by the PQT's verdict, or refused, by the refusal's
/// kind ([`VotingError::kind`]).
pub(crate) fn vote_answered(answer: &Result<VoteAccepted, VotingError>) {
    match answer {
        Ok(VoteAccepted { qualified }) => {
            metrics::counter!(names::VOTES_ACCEPTED, "qualified" => if *qualified { "true" } else { "false" }).increment(1)
        }
        Err(e) => metrics::counter!(names::VOTES_REFUSED, "reason" => e.kind()).increment(1),
    }
}

/// One evaluation request handled, by its outcome ([`EvaluationOutcome::kind`], or `error`);
/// the seconds it took when the evaluator ran the hooks (completed or failed).
pub(crate) fn evaluation_finished(outcome: &Result<EvaluationOutcome, VotingError>, took: Duration) {
    let kind = outcome.as_ref().map_or("error", EvaluationOutcome::kind);
    metrics::counter!(names::EVALUATIONS, "service" => "voting", "outcome" => kind).increment(1);
    if matches!(outcome, Ok(EvaluationOutcome::Completed { .. } | EvaluationOutcome::Failed { .. })) {
        metrics::histogram!(names::EVALUATION_SECONDS, "service" => "voting").record(took.as_secs_f64());
    }
}

/// A store error a flow did not handle, by its kind ([`StoreError::kind`]).
pub(crate) fn store_error(e: &StoreError) {
    metrics::counter!(names::STORE_ERRORS, "kind" => e.kind()).increment(1);
}
