//! The HTTP API's `$default` route (template.yaml's `HttpFallbackFunction`): API Gateway sends
//! here every request that no route of the template took, which it would otherwise answer
//! itself with `{"message":"Not Found"}`. A path one service routes, with a method it does not
//! take there, is that service's 405 in that service's shape (voting's `{"error"}`, Orcade's and
//! Xchange's `{"ok": false, "error"}`); any other path is a 404 that reads in every service's
//! shape (`{"ok": false, "error"}`). It opens no store: the services' path tables
//! (`agora_*_api::PATHS`) and their answers are all it needs.

use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::Router;
use serde_json::json;

/// Every service's paths, each taking any method to its service's 405; the rest a 404.
pub fn router() -> Router {
    let mut router = Router::new();
    for shell in [&agora_voting_api::SHELL, &agora_orcade_api::SHELL, &agora_xchange_api::SHELL] {
        for path in shell.paths {
            router = router.route(path, any(move |method: Method, uri: Uri| async move { shell.wrong_method(&method, &uri) }));
        }
    }
    router.fallback(no_route)
}

/// A path no service routes: a 404 whose body every service's clients read (`error`, and `ok`
/// false for Orcade's and Xchange's envelope).
async fn no_route(method: Method, uri: Uri) -> Response {
    (StatusCode::NOT_FOUND, axum::Json(json!({"ok": false, "error": format!("No route for {method} {}", uri.path())}))).into_response()
}
