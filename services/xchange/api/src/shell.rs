//! Xchange as the platform's service shell knows it (`agora_http::shell`): its paths, and its
//! errors in the envelope of §3, `{"ok": false, "error": "<message>"}`.

use agora_http::shell::{refusal, Envelope, Service, Shell};

/// Xchange's marker: what its [`ApiError`](crate::ApiError) and routers are typed by.
pub enum Api {}

impl Service for Api {
    const SHELL: &'static Shell = &SHELL;
}

/// Xchange's paths and refusals.
pub const SHELL: Shell = Shell { paths: &PATHS, prefixes: &["/tasks", "/subjects"], refuse: refusal::<Envelope> };

/// Every path the service routes, in axum's syntax (as template.yaml's routes write them).
pub const PATHS: [&str; 7] =
    ["/tasks", "/tasks/query", "/tasks/{task_id}", "/tasks/{task_id}/output", "/subjects", "/subjects/query", "/subjects/{subject_id}"];
