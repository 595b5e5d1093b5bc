use agora_local::{start, Config};
use clap::Parser;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let running = start(&config).await?;
    println!("agora-local listening on http://{}", running.addr);
    running.wait().await;
    Ok(())
}
