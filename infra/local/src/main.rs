#[tokio::main]
async fn main() -> Result<(), agora_local::BoxError> {
    agora_local::run_from_command_line().await
}
