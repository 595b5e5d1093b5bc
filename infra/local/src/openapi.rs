//! The platform's OpenAPI 3.1 document: the documents of the three services (each generated from
//! its handlers and types, `agora_<service>_api::openapi`) merged into one, served at
//! `GET /openapi.json` and committed as `docs/openapi.json` (a test keeps the two equal).

use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::sync::LazyLock;
use utoipa::openapi::security::SecurityRequirement;
use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, Server};

/// Where the document is served.
pub const PATH: &str = "/openapi.json";

/// Where the local server listens by default: the document's one server.
pub const LOCAL_SERVER: &str = "http://127.0.0.1:8080";

/// Two services describe one schema name differently: the merged document would keep one of them
/// and misdescribe the other's answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("two services describe the schema {name:?} differently")]
pub struct ConflictingSchema {
    pub name: String,
}

/// The three services' documents merged into one ([`merge`]), titled "Agora", with this crate's
/// version, the local server, and the bearer scheme optional (authentication is off by default).
pub fn document() -> OpenApi {
    let services = [agora_voting_api::openapi::document(), agora_orcade_api::openapi::document(), agora_xchange_api::openapi::document()];
    merge(services).expect("the services describe each shared schema alike")
}

/// `documents` as one: their paths, schemas, security schemes and tags, a schema name given by
/// two only if they describe it alike.
pub fn merge(documents: impl IntoIterator<Item = OpenApi>) -> Result<OpenApi, ConflictingSchema> {
    let info = InfoBuilder::new()
        .title("Agora")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some("Agora's HTTP services: voting, Orcade (bidding) and Xchange (the task exchange)."))
        .build();
    let security = [SecurityRequirement::default(), SecurityRequirement::new(agora_http::openapi::BEARER_AUTH, Vec::<String>::new())];
    let mut merged = OpenApiBuilder::new().info(info).servers(Some([Server::new(LOCAL_SERVER)])).security(Some(security)).build();
    for mut document in documents {
        if let (Some(theirs), Some(ours)) = (&document.components, &merged.components) {
            if let Some(name) = theirs.schemas.iter().find(|(name, schema)| ours.schemas.get(*name).is_some_and(|s| s != *schema)) {
                return Err(ConflictingSchema { name: name.0.clone() });
            }
        }
        // The merged document says who may call: not each service's own copy of it.
        document.security = None;
        document.info = merged.info.clone();
        merged.merge(document);
    }
    Ok(merged)
}

/// The document as served and committed: pretty JSON with a trailing newline.
pub fn pretty_json() -> String {
    let mut text = document().to_pretty_json().expect("the document serializes");
    text.push('\n');
    text
}

/// `GET /openapi.json`: the document, built once.
pub fn router() -> Router {
    static DOCUMENT: LazyLock<String> = LazyLock::new(pretty_json);
    Router::new().route(PATH, get(|| async { ([(CONTENT_TYPE, "application/json")], DOCUMENT.as_str()).into_response() as Response }))
}
