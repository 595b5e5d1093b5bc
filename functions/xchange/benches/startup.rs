//! The cold path of each Xchange function: its init, its first request, and the connections
//! each opens (`agora-startup-bench`).
//!
//! `cargo bench -p agora-xchange-functions --bench startup` (env: STARTUP_RUNS,
//! STARTUP_STORE=embedded|mongodb|dynamodb, STARTUP_BIN_DIR: see `agora_startup_bench`).

use agora_startup_bench::{apigw, run, Function};
use serde_json::json;

fn main() {
    run(vec![
        Function {
            name: "xchange-submit-task",
            binary: env!("CARGO_BIN_EXE_xchange-submit-task"),
            event: apigw("POST", "/tasks", Some("{}")),
        },
        Function {
            name: "xchange-subjects",
            binary: env!("CARGO_BIN_EXE_xchange-subjects"),
            event: apigw("POST", "/subjects", Some("[]")),
        },
        Function { name: "xchange-queries", binary: env!("CARGO_BIN_EXE_xchange-queries"), event: apigw("GET", "/tasks/task-0", None) },
        Function { name: "xchange-assign", binary: env!("CARGO_BIN_EXE_xchange-assign"), event: json!({"Records": []}) },
        Function { name: "xchange-bidding-outcome", binary: env!("CARGO_BIN_EXE_xchange-bidding-outcome"), event: json!({"Records": []}) },
        Function { name: "xchange-deadline", binary: env!("CARGO_BIN_EXE_xchange-deadline"), event: json!({"task_id": "task-0"}) },
    ]);
}
