//! Issue 30's weights over the local server's HTTP API, on any store: each vote of a weighted
//! task stores its `weight` (a task without weights stores the spec's vote documents), the
//! builtin rule's winner is the weighted tally's, computed here independently, and an external
//! evaluation hook reads the weights in its input.

use agora_e2e::*;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(15);

/// Reviewer 01 weighs 5, 03 weighs 1.5, 02 is not named (1).
fn weights() -> Value {
    json!({"agent-reviewer-01": 5, "agent-reviewer-03": 1.5})
}

const BALLOTS: [(&str, &str); 3] = [
    ("agent-reviewer-01", "agent-translator-01"),
    ("agent-reviewer-02", "agent-translator-02"),
    ("agent-reviewer-03", "agent-translator-02"),
];

/// The weighted plurality tally of `BALLOTS` under `weights()`, and its winner.
fn weighted_winner() -> String {
    let weights = weights();
    let mut tally: BTreeMap<&str, f64> = BTreeMap::new();
    for (voter, option) in BALLOTS {
        *tally.entry(option).or_default() += weights.get(voter).and_then(Value::as_f64).unwrap_or(1.0);
    }
    let (winner, _) = tally.iter().max_by(|a, b| a.1.total_cmp(b.1)).expect("a tally");
    winner.to_string()
}

async fn vote_all(server: &Server, id: &str) {
    for (voter, option) in BALLOTS {
        let (status, body) = server.vote(id, voter, json!({"selected_option": option})).await;
        assert_eq!(status, 200, "{body}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_weighted_tasks_winner_is_the_weighted_tally() {
    // Unweighted, the two votes for 02 win; weighted, 01's five count more.
    assert_eq!(weighted_winner(), "agent-translator-01");
    let server = Server::start().await;
    let mut request = example_request();
    request["social_task"]["weights"] = weights();
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    vote_all(&server, &id).await;
    server.wait_for_status(&id, "complete", WAIT).await;

    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["winners"], json!([weighted_winner()]));
    let stored: BTreeMap<String, Value> = report["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["submitter_subject_id"].as_str().unwrap().to_owned(), v["weight"].clone()))
        .collect();
    assert_eq!(
        stored,
        BTreeMap::from([
            ("agent-reviewer-01".to_owned(), json!(5.0)),
            ("agent-reviewer-02".to_owned(), json!(1.0)),
            ("agent-reviewer-03".to_owned(), json!(1.5)),
        ])
    );

    // The same ballots without weights: plurality picks 02, and the votes are the spec's.
    let plain = server.create(&example_request()).await;
    server.wait_for_status(&plain, "started", WAIT).await;
    vote_all(&server, &plain).await;
    server.wait_for_status(&plain, "complete", WAIT).await;
    let (_, report) = server.get(&format!("/get-report/{plain}")).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    for vote in report["votes"].as_array().unwrap() {
        assert!(vote.get("weight").is_none(), "an unweighted task's vote holds a weight: {vote}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_external_rule_reads_the_weights_and_a_function_gives_them() {
    // The weights function answers 3 for everyone but "light", who weighs 0.5.
    let weigh = HookServer::start(Duration::ZERO, |input| {
        // Called as the PQT is (§4.3): the voter is the addons' `submitter_subject_id`.
        let voter = input["addons"]["submitter_subject_id"].as_str().unwrap_or("");
        let weight = if voter.contains("light") { 0.5 } else { 3.0 };
        (200, json!({"weight": weight}).to_string())
    })
    .await;
    // The evaluation hook keeps the weights it is given and names the heaviest voter's option.
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let kept = seen.clone();
    let evaluation = HookServer::start(Duration::ZERO, move |input| {
        let votes = find_votes(input).expect("the evaluation input holds the votes");
        kept.lock().unwrap().extend(votes.iter().cloned());
        let heaviest =
            votes.iter().max_by(|a, b| a["weight"].as_f64().unwrap_or(0.0).total_cmp(&b["weight"].as_f64().unwrap_or(0.0))).unwrap();
        (200, json!({"winner": heaviest["vote_data"]["selected_option"]}).to_string())
    })
    .await;
    let mut request = public_request(2);
    request["social_task"]["weights"] = json!({"mode": "http", "url": weigh.url});
    request["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": evaluation.url});
    let server = Server::start().await;
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    assert_eq!(server.vote(&id, "voter-light", json!({"selected_option": "agent-translator-01"})).await.0, 200);
    assert_eq!(server.vote(&id, "voter-heavy", json!({"selected_option": "agent-translator-03"})).await.0, 200);
    server.wait_for_status(&id, "complete", WAIT).await;

    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["winners"], json!(["agent-translator-03"]));
    let mut weights: Vec<(String, f64)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|v| (v["submitter_subject_id"].as_str().unwrap().to_owned(), v["weight"].as_f64().unwrap()))
        .collect();
    weights.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(weights, [("voter-heavy".to_owned(), 3.0), ("voter-light".to_owned(), 0.5)]);
    assert_eq!(weigh.calls(), 2, "one weight per vote");
}

/// The votes array of a hook input, wherever the input nests it.
fn find_votes(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(votes)) = m.get("votes") {
                if votes.iter().all(|x| x.get("vote_id").is_some()) {
                    return Some(votes);
                }
            }
            m.values().find_map(find_votes)
        }
        _ => None,
    }
}
