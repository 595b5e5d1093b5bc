//! The `http-fallback` Lambda function: the HTTP API's `$default` route (see the crate docs).

#[tokio::main]
async fn main() -> Result<(), agora_runtime::lambda::Error> {
    agora_runtime::lambda::init_telemetry();
    lambda_http::run(agora_http_functions::router()).await
}
