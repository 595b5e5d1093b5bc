//! The `voting-parse-task` Lambda function: API Gateway HTTP API → the shared router's ParseTask routes.

use agora_voting_api::Flow;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_voting_functions::serve_http(Flow::ParseTask).await
}
