//! `xchange-subjects`: API Gateway HTTP API → creating, editing and deleting subjects.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_xchange_functions::serve_http(agora_xchange_functions::HttpFunction::Subjects).await
}
