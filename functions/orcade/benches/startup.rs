//! The cold path of each Orcade function: its init, its first request, and the connections each
//! opens (`agora-startup-bench`).
//!
//! `cargo bench -p agora-orcade-functions --bench startup` (env: STARTUP_RUNS,
//! STARTUP_STORE=embedded|mongodb|dynamodb, STARTUP_BIN_DIR: see `agora_startup_bench`).

use agora_startup_bench::{apigw, run, sqs, Function};
use serde_json::json;

fn main() {
    run(vec![
        Function { name: "orcade-jobs", binary: env!("CARGO_BIN_EXE_orcade-jobs"), event: apigw("POST", "/bid-jobs", Some("{}")) },
        Function {
            name: "orcade-submit-bid",
            binary: env!("CARGO_BIN_EXE_orcade-submit-bid"),
            event: apigw("POST", "/bid-jobs/job-0/bids", Some("{}")),
        },
        Function { name: "orcade-queries", binary: env!("CARGO_BIN_EXE_orcade-queries"), event: apigw("GET", "/bid-jobs/job-0", None) },
        Function {
            name: "orcade-close-due",
            binary: env!("CARGO_BIN_EXE_orcade-close-due"),
            event: json!({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}),
        },
        // A job that does not exist: the store says so.
        Function { name: "orcade-evaluate", binary: env!("CARGO_BIN_EXE_orcade-evaluate"), event: sqs(&json!({"bid_job_id": "job-0"})) },
        Function { name: "orcade-deliver", binary: env!("CARGO_BIN_EXE_orcade-deliver"), event: json!({"Records": []}) },
    ]);
}
