//! `xchange-submit-task`: API Gateway HTTP API → `POST /tasks`, function mode's selector inline.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_xchange_functions::serve_http(agora_xchange_functions::HttpFunction::SubmitTask).await
}
