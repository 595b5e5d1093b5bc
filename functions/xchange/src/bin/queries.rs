//! `xchange-queries`: API Gateway HTTP API → Xchange's read routes.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_xchange_functions::serve_http(agora_xchange_functions::HttpFunction::Queries).await
}
