//! The `$default` route's answers, and its path tables against template.yaml's routes.

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use serde_json::Value;
use std::collections::BTreeSet;
use tower::ServiceExt;

async fn answer(method: &str, path: &str) -> (u16, Value) {
    let request = Request::builder().method(method).uri(path).body(Body::empty()).expect("request");
    let response = agora_http_functions::router().oneshot(request).await.expect("answers");
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await.expect("body").to_bytes();
    (status, serde_json::from_slice(&bytes).expect("JSON"))
}

#[tokio::test]
async fn a_routed_path_with_another_method_is_its_service_s_405() {
    let (status, body) = answer("PUT", "/bid-jobs").await;
    assert_eq!((status, &body["ok"]), (405, &Value::Bool(false)), "{body}");
    assert_eq!(body["error"], "Method PUT is not allowed on /bid-jobs");
    let (status, body) = answer("DELETE", "/tasks/t-1/output").await;
    assert_eq!((status, &body["ok"]), (405, &Value::Bool(false)), "{body}");
    let (status, body) = answer("GET", "/submit-vote").await;
    assert_eq!(status, 405, "{body}");
    assert_eq!(body, serde_json::json!({"error": "Method GET is not allowed on /submit-vote"}), "voting's shape");
    // A static path wins over a parameter, as in API Gateway.
    assert_eq!(answer("PUT", "/bid-jobs/by-tags").await.0, 405);
}

#[tokio::test]
async fn any_other_path_is_a_404_every_client_reads() {
    let (status, body) = answer("GET", "/no/such/route").await;
    assert_eq!(status, 404);
    assert_eq!(body, serde_json::json!({"ok": false, "error": "No route for GET /no/such/route"}));
}

#[test]
fn the_path_tables_are_the_template_s_routes() {
    for (prefix, paths) in
        [("voting-", &agora_voting_api::PATHS[..]), ("orcade-", &agora_orcade_api::PATHS[..]), ("xchange-", &agora_xchange_api::PATHS[..])]
    {
        let routed: BTreeSet<String> = agora_e2e::template::http_routes(prefix).into_iter().map(|(_, _, path)| path).collect();
        let listed: BTreeSet<String> = paths.iter().map(|p| p.to_string()).collect();
        assert_eq!(listed, routed, "{prefix}: the service's PATHS and its routes in template.yaml");
    }
}
