//! The console: the static single-page app of `infra/console/site`, embedded in the
//! binary and served under `/console/` (`/console` redirects there). Every file is answered with
//! its content type, `cache-control: no-cache` (the browser revalidates, so a rebuilt server is
//! seen at once) and a content security policy that lets the page load only its own files.
//!
//! `GET /console/config.json` is answered by the server itself rather than from the embedded
//! file (which is the template for a static host, naming the API by hand): it names this server's
//! own origin as the API base URL and its `/live-stream` as the live stream, as the request
//! reached it (its `Host`), and whether authentication is on, so that the console asks for a
//! token before its first call. The routes are open to every caller: the files hold no data, and
//! the console sends its token on each API call itself.

use crate::config::Config;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Json, Router};
use include_dir::{include_dir, Dir};
use serde_json::json;

/// The console's files, as they were when the server was built.
static SITE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../console/site");

/// The path the console is served under.
pub const PREFIX: &str = "/console/";

/// What the console's page may load: its own files, and calls to any HTTP or WebSocket origin
/// (a static host's `config.json` may name an API elsewhere).
const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
connect-src 'self' http: https: ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The console's routes; `config` tells whether authentication is on.
pub fn router(config: &Config) -> Router {
    let auth = config.auth_jwks_url.is_some() || config.auth_public_key_file.is_some();
    Router::new()
        .route("/console", get(|| async { Redirect::permanent(PREFIX) }))
        .route("/console/", get(|| async { file("index.html") }))
        .route("/console/config.json", get(site_config))
        .route("/console/{*path}", get(|Path(path): Path<String>| async move { file(&path) }))
        .with_state(auth)
}

/// `GET /console/config.json`: this server's origin as the request named it, its live stream,
/// and whether authentication is on.
async fn site_config(State(auth): State<bool>, headers: HeaderMap) -> Response {
    let origin = headers.get(HOST).and_then(|h| h.to_str().ok()).filter(|h| plain_host(h));
    // A missing or odd Host: empty URLs, which the console reads as "the page's own origin".
    let (api, live) = match origin {
        Some(host) => (format!("http://{host}"), format!("ws://{host}/live-stream")),
        None => (String::new(), String::new()),
    };
    let body = json!({"api_base_url": api, "live_stream_url": live, "auth": auth, "served_by": "agora-local"});
    with_headers(Json(body).into_response())
}

/// Whether `host` is a host name or address with an optional port, and nothing else.
fn plain_host(host: &str) -> bool {
    !host.is_empty() && host.len() <= 255 && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]_".contains(&b))
}

/// The embedded file at `path`, or a 404.
fn file(path: &str) -> Response {
    match SITE.get_file(path) {
        Some(file) => {
            let mut response = file.contents().into_response();
            response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type(path)));
            with_headers(response)
        }
        None => (StatusCode::NOT_FOUND, format!("no console file {path:?}")).into_response(),
    }
}

/// The headers of every console answer.
fn with_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    response
}

/// The content type of a console file, by its extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    async fn get(app: Router, uri: &str, host: Option<&str>) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut request = Request::get(uri);
        if let Some(host) = host {
            request = request.header(HOST, host);
        }
        let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        let (parts, body) = response.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
        (parts.status, parts.headers, bytes.to_vec())
    }

    fn app(auth: bool) -> Router {
        let mut config = Config::ephemeral(std::path::PathBuf::from("unused"));
        if auth {
            config.auth_jwks_url = Some("http://127.0.0.1:1/jwks.json".into());
        }
        router(&config)
    }

    #[tokio::test]
    async fn serves_the_page_and_its_modules_with_their_types() {
        let (status, headers, body) = get(app(false), "/console/", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers[CONTENT_TYPE], "text/html; charset=utf-8");
        assert!(String::from_utf8(body).unwrap().contains("<title>"));
        let (status, headers, _) = get(app(false), "/console/app.js", None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers[CONTENT_TYPE], "text/javascript; charset=utf-8");
        assert_eq!(headers[CACHE_CONTROL], "no-cache");
        let (status, headers, _) = get(app(false), "/console/style.css", None).await;
        assert_eq!((status, &headers[CONTENT_TYPE]), (StatusCode::OK, &HeaderValue::from_static("text/css; charset=utf-8")));
    }

    #[tokio::test]
    async fn redirects_the_bare_path_and_refuses_unknown_files() {
        let (status, headers, _) = get(app(false), "/console", None).await;
        assert_eq!(status, StatusCode::PERMANENT_REDIRECT);
        assert_eq!(headers["location"], "/console/");
        let (status, _, _) = get(app(false), "/console/no-such-file.js", None).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        let (status, _, _) = get(app(false), "/console/../Cargo.toml", None).await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }

    #[tokio::test]
    async fn config_names_the_servers_own_origin_and_whether_auth_is_on() {
        let (status, _, body) = get(app(true), "/console/config.json", Some("127.0.0.1:9123")).await;
        assert_eq!(status, StatusCode::OK);
        let config: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(config["api_base_url"], "http://127.0.0.1:9123");
        assert_eq!(config["live_stream_url"], "ws://127.0.0.1:9123/live-stream");
        assert_eq!(config["auth"], true);
        let (_, _, body) = get(app(false), "/console/config.json", Some("evil\"host")).await;
        let config: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!((config["api_base_url"].as_str(), config["auth"].as_bool()), (Some(""), Some(false)));
    }
}
