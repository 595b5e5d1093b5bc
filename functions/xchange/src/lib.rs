//! Xchange's Lambda functions: one binary per flow (`xchange-<flow>`), each `main` only wiring.
//!
//! | Function | Serves |
//! |---|---|
//! | `xchange-submit-task` | `POST /tasks`, function mode's selector inline |
//! | `xchange-subjects` | `POST /subjects`, `PATCH` and `DELETE /subjects/{id}` |
//! | `xchange-queries` | the read routes: `GET /tasks/{id}`, `GET /tasks/{id}/output`, `GET /subjects/{id}`, the two `POST …/query` |
//! | `xchange-assign` | the assignment queue (SQS): direct, function and open round trips, bidding mode's job creation and polls |
//! | `xchange-bidding-outcome` | the bidding-outcome queue (SQS): Orcade's resolution events |
//! | `xchange-deadline` | the deadline timer queue (a bidding task's `xchange-bidding-<task_id>` timer) and its one-shot schedules ([`deadline`]) |
//!
//! The HTTP functions serve Xchange's own routers (`agora-xchange-api`), the queue consumers the
//! core's work handlers, through the platform's Lambda mains (`agora_runtime::lambda`).

pub mod deadline;
pub mod wiring;

use agora_xchange_api::{query_routes, subject_routes, submit_routes};

/// The HTTP functions, each a set of routes on the HTTP API (template.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpFunction {
    /// `xchange-submit-task`.
    SubmitTask,
    /// `xchange-subjects`: the subject writes.
    Subjects,
    /// `xchange-queries`.
    Queries,
}

impl HttpFunction {
    /// Which function API Gateway sends a request to, by method and path (as the template's
    /// routes say).
    pub fn of(method: &str, path: &str) -> HttpFunction {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (method, segments.as_slice()) {
            ("POST", ["tasks"]) => HttpFunction::SubmitTask,
            ("POST", ["subjects"]) | ("PATCH" | "DELETE", ["subjects", _]) => HttpFunction::Subjects,
            _ => HttpFunction::Queries,
        }
    }

    /// This function's router, with the fallbacks and limits: what its Lambda serves.
    pub async fn router(self) -> Result<axum::Router, agora_runtime::BoxError> {
        let routes = match self {
            HttpFunction::SubmitTask => submit_routes(wiring::intake_from_env().await?),
            HttpFunction::Subjects => subject_routes(wiring::subjects_from_env().await?),
            HttpFunction::Queries => query_routes(wiring::queries_from_env().await?),
        };
        Ok(agora_xchange_api::SHELL.with_fallbacks(routes))
    }
}

/// Serves one HTTP function's routes through API Gateway.
pub async fn serve_http(function: HttpFunction) -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    agora_runtime::lambda::serve_http(function.router().await?).await
}

#[cfg(test)]
mod tests {
    use super::HttpFunction::{self, *};

    #[test]
    fn each_route_has_its_function() {
        let cases = [
            ("POST", "/tasks", SubmitTask),
            ("GET", "/tasks/t1", Queries),
            ("GET", "/tasks/t1/output", Queries),
            ("POST", "/tasks/query", Queries),
            ("POST", "/subjects", Subjects),
            ("PATCH", "/subjects/s1", Subjects),
            ("DELETE", "/subjects/s1", Subjects),
            ("GET", "/subjects/s1", Queries),
            ("POST", "/subjects/query", Queries),
        ];
        for (method, path, want) in cases {
            assert_eq!(HttpFunction::of(method, path), want, "{method} {path}");
        }
    }
}
