//! Voting's Lambda functions: one binary per flow (`voting-<flow>`), each `main` only wiring.
//! The handlers are voting's router (HTTP flows), the platform's SQS consumer with voting's
//! evaluation work, and thin adapters from Lambda events to the core flows.

pub mod live;
pub mod start;
pub mod wiring;

use agora_voting_api::Flow;

/// Serves one HTTP flow's routes through API Gateway: the same router the local server serves.
pub async fn serve_http(flow: Flow) -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let routes = match flow {
        Flow::ParseTask => agora_voting_api::parse_routes(wiring::parser_from_env()?),
        Flow::CreateTask => agora_voting_api::create_routes(wiring::creator_from_env().await?),
        Flow::SubmitVote => agora_voting_api::vote_routes(wiring::intake_from_env().await?),
        Flow::CancelTask => agora_voting_api::cancel_routes(wiring::canceller_from_env().await?),
        Flow::Queries => agora_voting_api::query_routes(wiring::queries_from_env().await?),
    };
    agora_runtime::lambda::serve_http(agora_voting_api::SHELL.with_fallbacks(routes)).await
}
