//! The emf exporter installed as the process's recorder (a test binary of its own: a process has one global recorder).
#![cfg(feature = "emf")]

use agora_telemetry::emf::*;
use agora_telemetry::names;

#[test]
fn an_invocation_s_metrics_are_one_write_of_emf_documents_then_nothing() {
    let emf = install().unwrap();
    metrics::counter!(names::BIDS_ACCEPTED).increment(1);
    metrics::counter!(names::VOTES_REFUSED, "reason" => "conflict").increment(3);
    metrics::histogram!(names::HOOK_CALL_SECONDS, "mode" => "http").record(0.5);
    let mut out = Vec::new();
    emf.flush_to(&mut out).unwrap();
    let docs: Vec<serde_json::Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let find = |name: &str| docs.iter().find(|d| d.get(name).is_some()).unwrap_or_else(|| panic!("{name} in {docs:?}"));
    let refused = find(names::VOTES_REFUSED);
    assert_eq!(refused[names::VOTES_REFUSED], 3);
    assert_eq!(refused["reason"], "conflict");
    let directive = &refused["_aws"]["CloudWatchMetrics"][0];
    assert_eq!(directive["Namespace"], names::NAMESPACE);
    assert_eq!(directive["Dimensions"], serde_json::json!([["reason"]]));
    assert_eq!(find(names::BIDS_ACCEPTED)[names::BIDS_ACCEPTED], 1);
    assert_eq!(find(names::HOOK_CALL_SECONDS)[names::HOOK_CALL_SECONDS], serde_json::json!([0.5]));
    let mut again = Vec::new();
    emf.flush_to(&mut again).unwrap();
    assert!(again.is_empty(), "counters are deltas: a flush with nothing new writes nothing");
}
