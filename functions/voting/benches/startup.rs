//! Start-up time of each voting function to its first handled event (`agora-startup-bench`).
//!
//! `cargo bench -p agora-voting-functions --bench startup` (env: STARTUP_RUNS,
//! STARTUP_STORE=embedded|mongodb, STARTUP_BIN_DIR: see `agora_startup_bench`).

use agora_startup_bench::{apigw, run, Function};
use serde_json::json;

fn main() {
    let websocket_connect = json!({"requestContext": {"routeKey": "$connect", "eventType": "CONNECT", "connectionId": "bench=",
        "connectedAt": 0, "requestTimeEpoch": 0, "identity": {"sourceIp": "127.0.0.1"}}, "isBase64Encoded": false});
    let scheduled = json!({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}});
    run(vec![
        Function {
            name: "voting-create-task",
            binary: env!("CARGO_BIN_EXE_voting-create-task"),
            event: apigw("POST", "/submit-social-choice-task", Some("{}")),
        },
        Function {
            name: "voting-parse-task",
            binary: env!("CARGO_BIN_EXE_voting-parse-task"),
            event: apigw("POST", "/parse-social-choice-task", Some("{}")),
        },
        Function {
            name: "voting-submit-vote",
            binary: env!("CARGO_BIN_EXE_voting-submit-vote"),
            event: apigw("POST", "/submit-vote", Some("{}")),
        },
        Function {
            name: "voting-queries",
            binary: env!("CARGO_BIN_EXE_voting-queries"),
            event: apigw("GET", "/get-status/task_00000000", None),
        },
        Function { name: "voting-start-tasks", binary: env!("CARGO_BIN_EXE_voting-start-tasks"), event: scheduled },
        Function { name: "voting-evaluate-task", binary: env!("CARGO_BIN_EXE_voting-evaluate-task"), event: json!({"Records": []}) },
        Function { name: "voting-live-stream", binary: env!("CARGO_BIN_EXE_voting-live-stream"), event: websocket_connect },
        Function { name: "voting-live-push", binary: env!("CARGO_BIN_EXE_voting-live-push"), event: json!({"Records": []}) },
    ]);
}
