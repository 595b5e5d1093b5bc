//! Voting as the platform's service shell knows it (`agora_http::shell`): its paths, and its
//! errors written as `{"error": "<message>"}` (§3).

use agora_http::shell::{refusal, Bare, Service, Shell};

/// Voting's marker: what its [`ApiError`](crate::ApiError) and routers are typed by.
pub enum Api {}

impl Service for Api {
    const SHELL: &'static Shell = &SHELL;
}

/// Voting's paths and refusals.
pub const SHELL: Shell = Shell {
    paths: &PATHS,
    prefixes: &[
        "/submit-social-choice-task",
        "/parse-social-choice-task",
        "/submit-vote",
        "/cancel-social-task",
        "/get-status",
        "/get-report",
        "/get-full-task-bundle",
        "/is-live-streaming-enabled",
        "/generic-query",
    ],
    refuse: refusal::<Bare>,
};

/// Every path the service routes, in axum's syntax (as template.yaml's routes write them).
pub const PATHS: [&str; 9] = [
    "/submit-social-choice-task",
    "/parse-social-choice-task",
    "/submit-vote",
    "/cancel-social-task/{social_task_id}",
    "/get-status/{social_task_id}",
    "/get-report/{social_task_id}",
    "/get-full-task-bundle/{social_task_id}",
    "/is-live-streaming-enabled/{social_task_id}",
    "/generic-query/{collection}",
];
