//! Orcade's Lambda functions: one binary per flow (`orcade-<flow>`), each `main` only wiring.
//!
//! | Function | Serves |
//! |---|---|
//! | `orcade-jobs` | `POST /bid-jobs`, `POST /bid-jobs/{id}/close`, `PATCH` and `DELETE` of jobs and bids |
//! | `orcade-submit-bid` | `POST /bid-jobs/{id}/bids` |
//! | `orcade-queries` | the read routes: every `GET` and the three `POST …/query` |
//! | `orcade-close-due` | the close timer queue (a job's `close-<id>` timer) and its one-shot schedules, and the `rate(1 minute)` sweep ([`close_due`]) |
//! | `orcade-evaluate` | the evaluation queue (SQS) |
//! | `orcade-deliver` | the delivery queue (SQS): the delegate round trips of §5 |
//!
//! The HTTP functions serve Orcade's own routers (`agora-orcade-api`), the queue consumers the
//! core's work handlers, through the platform's Lambda mains (`agora_runtime::lambda`).

pub mod close_due;
pub mod wiring;

use agora_orcade_api::{close_routes, create_routes, edit_routes, query_routes, submit_routes};

/// The HTTP functions, each a set of routes on the HTTP API (template.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpFunction {
    /// `orcade-jobs`: a job's life (create, close, edit, delete) and the edits of bids.
    Jobs,
    /// `orcade-submit-bid`.
    SubmitBid,
    /// `orcade-queries`.
    Queries,
}

impl HttpFunction {
    /// Which function API Gateway sends a request to, by method and path (as the template's
    /// routes say).
    pub fn of(method: &str, path: &str) -> HttpFunction {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        match (method, segments.as_slice()) {
            ("POST", ["bid-jobs", _, "bids"]) => HttpFunction::SubmitBid,
            ("POST", ["bid-jobs"]) | ("POST", ["bid-jobs", _, "close"]) | ("PATCH" | "DELETE", _) => HttpFunction::Jobs,
            _ => HttpFunction::Queries,
        }
    }

    /// This function's router, with the fallbacks and limits: what its Lambda serves.
    pub async fn router(self) -> Result<axum::Router, agora_runtime::BoxError> {
        let routes = match self {
            HttpFunction::Jobs => {
                let (creator, closer, edits) = wiring::jobs_from_env().await?;
                create_routes(creator).merge(close_routes(closer)).merge(edit_routes(edits))
            }
            HttpFunction::SubmitBid => submit_routes(wiring::intake_from_env().await?),
            HttpFunction::Queries => query_routes(wiring::queries_from_env().await?),
        };
        Ok(agora_orcade_api::SHELL.with_fallbacks(routes))
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
            ("POST", "/bid-jobs", Jobs),
            ("POST", "/bid-jobs/j1/close", Jobs),
            ("PATCH", "/bid-jobs/j1", Jobs),
            ("DELETE", "/bid-jobs/j1", Jobs),
            ("PATCH", "/bids/b1", Jobs),
            ("DELETE", "/bids/b1", Jobs),
            ("POST", "/bid-jobs/j1/bids", SubmitBid),
            ("GET", "/bid-jobs/j1/bids", Queries),
            ("GET", "/bid-jobs/j1", Queries),
            ("GET", "/bid-jobs/by-tags", Queries),
            ("POST", "/bid-jobs/query", Queries),
            ("GET", "/bid-jobs/j1/task-results", Queries),
            ("GET", "/bids/b1", Queries),
            ("POST", "/bids/query", Queries),
            ("POST", "/bid-task-results/query", Queries),
        ];
        for (method, path, want) in cases {
            assert_eq!(HttpFunction::of(method, path), want, "{method} {path}");
        }
    }
}
