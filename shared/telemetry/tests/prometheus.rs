//! The prometheus exporter installed as the process's recorder (a test binary of its own: a process has one global recorder).
#![cfg(feature = "prometheus")]

use agora_telemetry::names;
use agora_telemetry::prometheus::*;

#[tokio::test]
async fn recorded_metrics_are_rendered_with_their_labels_and_help() {
    let handle = install().unwrap();
    metrics::counter!(names::VOTES_ACCEPTED, "qualified" => "true").increment(2);
    metrics::histogram!(names::EVALUATION_SECONDS, "service" => "voting").record(0.02);
    let text = handle.render();
    assert!(text.contains("agora_votes_accepted{qualified=\"true\"} 2"), "{text}");
    assert!(text.contains("# HELP agora_votes_accepted Votes stored"), "{text}");
    assert!(text.contains("agora_evaluation_seconds_bucket{service=\"voting\",le=\"0.025\"} 1"), "{text}");
    assert!(install().is_ok(), "a second call answers the same handle");
}
