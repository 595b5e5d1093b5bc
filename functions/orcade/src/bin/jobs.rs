//! `orcade-jobs`: API Gateway HTTP API → creating, closing, editing and deleting bid jobs, and
//! editing and deleting bids.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_orcade_functions::serve_http(agora_orcade_functions::HttpFunction::Jobs).await
}
