//! `orcade-queries`: API Gateway HTTP API → Orcade's read routes.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_orcade_functions::serve_http(agora_orcade_functions::HttpFunction::Queries).await
}
