//! The `live-stream` Lambda function: the routes of the WebSocket API (`$connect`,
//! `$disconnect`, `$default`).

use agora_voting_functions::{live, wiring};
use aws_lambda_events::event::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use lambda_runtime::{service_fn, LambdaEvent};

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    wiring::init_tracing();
    let streams = wiring::live_streams_from_env().await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<ApiGatewayWebsocketProxyRequest>| {
        let streams = streams.clone();
        async move { Ok::<ApiGatewayProxyResponse, lambda_runtime::Error>(live::handle_websocket(&streams, event.payload).await) }
    }))
    .await
}
