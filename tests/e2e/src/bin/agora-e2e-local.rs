//! The local server as its own process, for the tests and benches that kill it (`kill -9`) or
//! measure its memory: the `agora-local` program itself.

#[tokio::main]
async fn main() -> Result<(), agora_local::BoxError> {
    agora_local::run_from_command_line().await
}
