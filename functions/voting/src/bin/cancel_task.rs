//! The `voting-cancel-task` Lambda function: API Gateway HTTP API → the shared router's CancelTask routes.

use agora_voting_api::Flow;

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_voting_functions::serve_http(Flow::CancelTask).await
}
