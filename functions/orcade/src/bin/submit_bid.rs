//! `orcade-submit-bid`: API Gateway HTTP API → `POST /bid-jobs/{id}/bids`, its PQT inline.

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_orcade_functions::serve_http(agora_orcade_functions::HttpFunction::SubmitBid).await
}
