//! Voting's Lambda functions: one binary per flow (`voting-<flow>`), each `main` only wiring.
//! The handlers are voting's router (HTTP flows), the platform's SQS consumer with voting's
//! evaluation work, and thin adapters from Lambda events to the core flows.

pub mod live;
pub mod start;
pub mod wiring;

use agora_voting_api::Flow;
use wiring::Function;

/// Serves one HTTP flow's routes through API Gateway: the same router the local server serves.
pub async fn serve_http(flow: Flow) -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_tracing();
    let router = match flow {
        Flow::ParseTask => agora_voting_api::parse_router(wiring::parser_from_env()?),
        Flow::CreateTask => agora_voting_api::flow_router(wiring::voting_from_env(Function::CreateTask).await?, flow),
        Flow::SubmitVote => agora_voting_api::flow_router(wiring::voting_from_env(Function::SubmitVote).await?, flow),
        Flow::Queries => agora_voting_api::query_router(wiring::queries_from_env().await?),
    };
    agora_runtime::lambda::serve_http(router).await
}
