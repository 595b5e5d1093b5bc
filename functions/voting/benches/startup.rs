//! The cold path of each voting function: its init, its first request, and the connections
//! each opens (`agora-startup-bench`). The events reach the store (and create-task's the start
//! timer queue) wherever a cheap event does, so that a connection left to the first request shows.
//!
//! `cargo bench -p agora-voting-functions --bench startup` (env: STARTUP_RUNS,
//! STARTUP_STORE=embedded|mongodb|dynamodb, STARTUP_BIN_DIR: see `agora_startup_bench`).

use agora_startup_bench::{apigw, run, sqs, Function};
use serde_json::json;

fn main() {
    let websocket_connect = json!({"requestContext": {"routeKey": "$connect", "eventType": "CONNECT", "connectionId": "bench=",
        "connectedAt": 0, "requestTimeEpoch": 0, "identity": {"sourceIp": "127.0.0.1"}}, "isBase64Encoded": false});
    let scheduled = json!({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}});
    let vote = json!({"vote_id": "00000000-0000-4000-8000-000000000000", "social_task_id": "task_00000000",
        "submitter_subject_id": "agent-reviewer-01", "vote_data": {"selected_option": "agent-translator-02"},
        "submission_time": "2026-10-22T10:03:12", "qualified": true});
    run(vec![
        Function {
            name: "voting-create-task",
            binary: env!("CARGO_BIN_EXE_voting-create-task"),
            // The spec's example task: stored, and its start (due) sent to the start timer queue.
            event: apigw("POST", "/submit-social-choice-task", Some(include_str!("../../../examples/private-task.json"))),
        },
        Function {
            name: "voting-parse-task",
            binary: env!("CARGO_BIN_EXE_voting-parse-task"),
            event: apigw("POST", "/parse-social-choice-task", Some("{}")),
        },
        Function {
            name: "voting-cancel-task",
            binary: env!("CARGO_BIN_EXE_voting-cancel-task"),
            // A task that does not exist: the store says so.
            event: apigw("POST", "/cancel-social-task/task_00000000", None),
        },
        Function {
            name: "voting-submit-vote",
            binary: env!("CARGO_BIN_EXE_voting-submit-vote"),
            // A vote on a task that does not exist: the store says so.
            event: apigw("POST", "/submit-vote", Some(&vote.to_string())),
        },
        Function {
            name: "voting-queries",
            binary: env!("CARGO_BIN_EXE_voting-queries"),
            event: apigw("GET", "/get-status/task_00000000", None),
        },
        Function { name: "voting-start-tasks", binary: env!("CARGO_BIN_EXE_voting-start-tasks"), event: scheduled },
        Function {
            name: "voting-evaluate-task",
            binary: env!("CARGO_BIN_EXE_voting-evaluate-task"),
            event: sqs(&json!({"social_task_id": "task_00000000"})),
        },
        Function { name: "voting-live-stream", binary: env!("CARGO_BIN_EXE_voting-live-stream"), event: websocket_connect },
        Function { name: "voting-live-push", binary: env!("CARGO_BIN_EXE_voting-live-push"), event: json!({"Records": []}) },
    ]);
}
