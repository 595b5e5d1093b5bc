//! Orcade as the platform's service shell knows it (`agora_http::shell`): its paths, and its
//! errors in the envelope of §3, `{"ok": false, "error": "<message>"}`.

use agora_http::shell::{refusal, Envelope, Service, Shell};

/// Orcade's marker: what its [`ApiError`](crate::ApiError) and routers are typed by.
pub enum Api {}

impl Service for Api {
    const SHELL: &'static Shell = &SHELL;
}

/// Orcade's paths and refusals.
pub const SHELL: Shell = Shell { paths: &PATHS, prefixes: &["/bid-jobs", "/bids", "/bid-task-results"], refuse: refusal::<Envelope> };

/// Every path the service routes, in axum's syntax (as template.yaml's routes write them).
pub const PATHS: [&str; 11] = [
    "/bid-jobs",
    "/bid-jobs/query",
    "/bid-jobs/by-tags",
    "/bid-jobs/{bid_job_id}",
    "/bid-jobs/{bid_job_id}/close",
    "/bid-jobs/{bid_job_id}/bids",
    "/bid-jobs/{bid_job_id}/task-results",
    "/bid-jobs/{bid_job_id}/evaluation",
    "/bids/query",
    "/bids/{bid_id}",
    "/bid-task-results/query",
];
