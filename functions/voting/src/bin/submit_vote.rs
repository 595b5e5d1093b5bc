//! The `voting-submit-vote` Lambda function: API Gateway HTTP API → the shared router's SubmitVote routes.

use agora_voting_api::Flow;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_voting_functions::serve_http(Flow::SubmitVote).await
}
