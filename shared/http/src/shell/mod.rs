//! The service shell: what every service's HTTP API is wrapped in, written once. A service
//! describes itself in one [`Shell`] (the paths it routes and the shape its errors take) and its
//! errors through [`ServiceError`]; the shell gives it, in its own shape:
//!
//! * [`ApiError`]: the error every route answers with, from the service's one table;
//! * the checks before every route ([`Shell::with_limits`], [`Shell::with_fallbacks`]): the
//!   head's limits (414, 431), the caller (401), the body's size (413);
//! * the fallbacks: a path no route serves (404) and a method a path does not take (405);
//! * the router of one flow or of every flow ([`Flows`]), so that each Lambda function serves
//!   only its flow and the local server all of them;
//! * [`Mounted`]: a service's routes as a server of several services mounts them, each
//!   service's fallbacks answering the paths it owns.

mod error;
mod flows;
mod mount;

pub use error::{refusal, ApiError, Bare, Envelope, ErrorShape, Service, ServiceError};
pub use flows::Flows;
pub use mount::{Mounted, Services};

use crate::body::Refusal;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;

/// What the shell knows of a service: the paths it routes and how its errors read.
#[derive(Debug, Clone, Copy)]
pub struct Shell {
    /// Every path the service routes, in axum's syntax (as template.yaml's routes write them):
    /// a front door that answers requests no route took (the HTTP API's `$default`) says 405
    /// for these, in this service's shape.
    pub paths: &'static [&'static str],
    /// The first segments of the service's paths: a path equal to one, or under one, is the
    /// service's (its 404 and 405 answers are in the service's shape).
    pub prefixes: &'static [&'static str],
    /// A refusal (status and message) written in the service's error shape ([`refusal`]).
    pub refuse: fn(Refusal) -> Response,
}

impl Shell {
    /// Whether `path` is one of the service's.
    pub fn serves(&self, path: &str) -> bool {
        self.prefixes.iter().any(|p| path == *p || path.strip_prefix(p).is_some_and(|rest| rest.starts_with('/')))
    }

    /// The answer to a path no route serves: a 404.
    pub fn no_route(&self, method: &Method, uri: &Uri) -> Response {
        (self.refuse)((StatusCode::NOT_FOUND, format!("No route for {method} {}", uri.path())))
    }

    /// The answer to a method the path does not take: a 405.
    pub fn wrong_method(&self, method: &Method, uri: &Uri) -> Response {
        (self.refuse)((StatusCode::METHOD_NOT_ALLOWED, format!("Method {method} is not allowed on {}", uri.path())))
    }

    /// `router` with the service's 404 and 405 answers, the body limit and the checks of
    /// [`Shell::check_request`] on every route and fallback: a server of this service alone (a
    /// Lambda function). Set once per server: axum refuses to merge two routers that both have a
    /// fallback.
    pub fn with_fallbacks(&'static self, router: Router) -> Router {
        router
            .fallback(move |method: Method, uri: Uri| async move { self.no_route(&method, &uri) })
            .method_not_allowed_fallback(move |method: Method, uri: Uri| async move { self.wrong_method(&method, &uri) })
            .layer(DefaultBodyLimit::max(crate::body::body_limit()))
            .layer(axum::middleware::from_fn_with_state(self, checked))
    }

    /// The body limit and the checks of [`Shell::check_request`] on `router`'s routes only (not
    /// on a fallback): for a server of several services, each with its own error shape.
    pub fn with_limits(&'static self, router: Router) -> Router {
        router
            .route_layer(DefaultBodyLimit::max(crate::body::body_limit()))
            .route_layer(axum::middleware::from_fn_with_state(self, checked))
    }

    /// Refuses a request whose head is over the limits, whose caller the front door refused or
    /// whose body is over the limit (`crate::limits::check_request`), in the service's shape;
    /// passes the others on.
    pub async fn check_request(&self, request: Request, next: Next) -> Response {
        crate::limits::check_request(request, next, self.refuse).await
    }
}

/// [`Shell::check_request`] as axum middleware.
async fn checked(State(shell): State<&'static Shell>, request: Request, next: Next) -> Response {
    shell.check_request(request, next).await
}
