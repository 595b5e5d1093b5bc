//! The OpenAPI document (`agora_local::openapi`) against what it describes: the committed
//! `docs/openapi.json` is the generated document; its operations are exactly the routes the
//! services' real routers serve (each path of each service's `PATHS` asked with every method: a
//! route is what does not answer 405); and a started local server serves it at
//! `GET /openapi.json`.

use agora_local::{openapi, start, Config};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Set to rewrite `docs/openapi.json` from the generated document.
const UPDATE_ENV: &str = "AGORA_UPDATE_OPENAPI";

/// The methods a route may take.
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[test]
fn the_committed_document_is_the_generated_one() {
    let generated = openapi::pretty_json();
    let path = committed_path();
    if std::env::var_os(UPDATE_ENV).is_some() {
        std::fs::write(&path, &generated).expect("docs/openapi.json is written");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "docs/openapi.json is not the generated document: run `{UPDATE_ENV}=1 cargo test -p agora-local --test openapi` to rewrite it"
    );
}

#[test]
fn a_schema_two_services_describe_differently_is_refused() {
    let mut other = agora_xchange_api::openapi::document();
    let components = other.components.as_mut().expect("components");
    let error = components.schemas.get_mut("EnvelopedError").expect("the envelope's error");
    *error = utoipa::openapi::ObjectBuilder::new().into();
    let merged = openapi::merge([agora_orcade_api::openapi::document(), other]);
    assert_eq!(merged.err(), Some(openapi::ConflictingSchema { name: "EnvelopedError".into() }));
}

/// `path` with each `{param}` replaced by a value.
fn concrete(path: &str) -> String {
    path.split('/').map(|segment| if segment.starts_with('{') { "probe-id" } else { segment }).collect::<Vec<_>>().join("/")
}

/// Every (path, method) of the document.
fn documented() -> BTreeSet<(String, String)> {
    let document = serde_json::to_value(openapi::document()).expect("the document serializes");
    let paths = document["paths"].as_object().expect("paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("a path item")
                .keys()
                .filter(|k| METHODS.contains(&k.to_uppercase().as_str()))
                .map(|m| (path.clone(), m.to_uppercase()))
        })
        .collect()
}

#[tokio::test]
async fn the_document_describes_every_route_and_only_those_and_is_served() {
    let dir = std::env::temp_dir().join(format!("agora-openapi-{}", uuid::Uuid::new_v4().simple()));
    let running = start(&Config::ephemeral(dir.clone())).await.expect("the local server starts");
    let base = format!("http://{}", running.addr);
    let http = reqwest::Client::new();

    let mut routed = BTreeSet::new();
    let paths = agora_voting_api::PATHS.iter().chain(&agora_orcade_api::PATHS).chain(&agora_xchange_api::PATHS);
    for path in paths {
        for method in METHODS {
            let request = http.request(method.parse().expect("a method"), format!("{base}{}", concrete(path)));
            let status = request.send().await.expect("the server answers").status().as_u16();
            if status != 405 {
                routed.insert((path.to_string(), method.to_owned()));
            }
        }
    }
    let documented = documented();
    let missing: Vec<_> = routed.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&routed).collect();
    assert!(missing.is_empty() && extra.is_empty(), "routed but not documented: {missing:?}; documented but not routed: {extra:?}");
    // Every service path is asked: a path no method routes would have been missed above.
    let routed_paths: BTreeSet<_> = routed.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(routed_paths.len(), 9 + 11 + 7, "every path of PATHS has a route");

    let served = http.get(format!("{base}{}", openapi::PATH)).send().await.expect("the server answers");
    assert_eq!(served.status().as_u16(), 200);
    assert_eq!(served.headers()["content-type"], "application/json");
    assert_eq!(served.text().await.expect("a body"), openapi::pretty_json());
    running.stop();
    let _ = std::fs::remove_dir_all(dir);
}
