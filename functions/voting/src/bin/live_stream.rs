//! `voting-live-stream`: the routes of the WebSocket API (`$connect`, `$disconnect`, `$default`).

use agora_voting_functions::live;
use agora_voting_functions::wiring;
use aws_lambda_events::event::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    let (streams, verifier) = tokio::try_join!(wiring::live_streams_from_env(), live::connect_verifier_from_env())?;
    let verifier = std::sync::Arc::new(verifier);
    agora_runtime::lambda::serve_event(move |event: ApiGatewayWebsocketProxyRequest| {
        let (streams, verifier) = (streams.clone(), verifier.clone());
        async move {
            Ok::<ApiGatewayProxyResponse, agora_runtime::lambda::Error>(
                live::handle_websocket(&streams, verifier.as_ref().as_ref(), event).await,
            )
        }
    })
    .await
}
