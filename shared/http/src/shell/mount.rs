//! Several services on one server (the local server): each mounted with its own limits, and the
//! answers no route gives (404, 405, a head over the limits) in the shape of the service whose
//! path it is, or of the default service for every other path.

use super::Shell;
use axum::extract::Request;
use axum::http::{Method, Uri};
use axum::response::Response;
use axum::Router;

/// One service's routes, without fallbacks, and its shell.
pub struct Mounted {
    pub shell: &'static Shell,
    pub routes: Router,
}

impl Mounted {
    pub fn new(shell: &'static Shell, routes: Router) -> Self {
        Mounted { shell, routes }
    }
}

/// The services of one server, the first its default: a path no service owns is answered in the
/// default's shape.
pub struct Services {
    shells: Vec<&'static Shell>,
    router: Router,
}

impl Services {
    /// `services`, each with its limits on its own routes.
    pub fn new(services: impl IntoIterator<Item = Mounted>) -> Self {
        let (mut shells, mut router) = (Vec::new(), Router::new());
        for Mounted { shell, routes } in services {
            shells.push(shell);
            router = router.merge(shell.with_limits(routes));
        }
        assert!(!shells.is_empty(), "a server mounts at least one service");
        Services { shells, router }
    }

    /// Every service's routes, `platform` (the server's own routes, without a service's limits)
    /// beside them, and the fallbacks: a head over the limits is refused as such, else a 404, and
    /// a method a path does not take a 405, in the shape of the path's service.
    pub fn into_router(self, platform: Router) -> Router {
        let shells = std::sync::Arc::new(self.shells);
        let (for_route, for_method) = (shells.clone(), shells);
        self.router
            .merge(platform)
            .fallback(move |request: Request| async move { no_route(&for_route, request) })
            .method_not_allowed_fallback(move |method: Method, uri: Uri| async move {
                shell_of(&for_method, uri.path()).wrong_method(&method, &uri)
            })
    }
}

/// The shell whose shape answers `path`: the service that owns it, else the default (the first).
fn shell_of(shells: &[&'static Shell], path: &str) -> &'static Shell {
    shells.iter().copied().find(|s| s.serves(path)).unwrap_or(shells[0])
}

fn no_route(shells: &[&'static Shell], request: Request) -> Response {
    let shell = shell_of(shells, request.uri().path());
    match crate::limits::head_problem(&request) {
        Some(problem) => (shell.refuse)(problem),
        None => shell.no_route(request.method(), request.uri()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::{refusal, Bare, Envelope};
    use axum::body::Body;
    use axum::http::StatusCode;
    use axum::routing::get;
    use tower::ServiceExt;

    const PLAIN: Shell = Shell { paths: &["/plain/{id}"], prefixes: &["/plain"], refuse: refusal::<Bare> };
    const ENVELOPED: Shell = Shell { paths: &["/jobs", "/jobs/{id}"], prefixes: &["/jobs"], refuse: refusal::<Envelope> };

    fn server() -> Router {
        let services = Services::new([
            Mounted::new(&PLAIN, Router::new().route("/plain/{id}", get(|| async { "plain" }))),
            Mounted::new(&ENVELOPED, Router::new().route("/jobs/{id}", get(|| async { "job" }))),
        ]);
        services.into_router(Router::new().route("/healthz", get(|| async { "ok" })))
    }

    async fn answer(method: &str, uri: &str) -> (StatusCode, String) {
        let request = Request::builder().method(method).uri(uri).body(Body::empty()).unwrap();
        let response = server().oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn each_path_is_refused_in_the_shape_of_the_service_that_owns_it() {
        assert_eq!(answer("GET", "/jobs/1").await, (StatusCode::OK, "job".into()));
        assert_eq!(answer("GET", "/healthz").await, (StatusCode::OK, "ok".into()));
        let (status, body) = answer("GET", "/jobs/1/nothing").await;
        assert_eq!((status, body.as_str()), (StatusCode::NOT_FOUND, r#"{"ok":false,"error":"No route for GET /jobs/1/nothing"}"#));
        let (status, body) = answer("DELETE", "/jobs/1").await;
        assert_eq!(
            (status, body.as_str()),
            (StatusCode::METHOD_NOT_ALLOWED, r#"{"ok":false,"error":"Method DELETE is not allowed on /jobs/1"}"#)
        );
        // A path no service owns is the default's (the first).
        let (status, body) = answer("GET", "/elsewhere").await;
        assert_eq!((status, body.as_str()), (StatusCode::NOT_FOUND, r#"{"error":"No route for GET /elsewhere"}"#));
        // `/jobsx` is not under `/jobs`.
        assert!(!ENVELOPED.serves("/jobsx") && ENVELOPED.serves("/jobs") && ENVELOPED.serves("/jobs/a/b"));
    }

    #[tokio::test]
    async fn a_head_over_the_limits_is_refused_as_such_on_a_path_no_route_serves() {
        let long = format!("/jobs/x?{}", "a".repeat(crate::limits::MAX_URI_BYTES));
        let (status, body) = answer("GET", &long).await;
        assert_eq!(status, StatusCode::URI_TOO_LONG);
        assert!(body.contains(r#""ok":false"#), "{body}");
    }
}
