//! `agora`: Agora's voting, Orcade and Xchange APIs from a terminal, and an MCP server
//! (`agora mcp`) that gives agents the same calls as tools.

mod cli;
mod dead_letters;
mod error;
mod http;
mod input;
mod mcp;
mod orcade;
mod output;
mod voting;
mod watch;
mod xchange;

use clap::Parser;
use cli::{Cli, Command};
use error::CliError;
use http::Api;
use output::Output;
use std::process::ExitCode;

fn main() -> ExitCode {
    // clap exits 2 on a usage error, 0 for --help and --version.
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&CliError::Mcp(format!("cannot start the async runtime: {e}"))),
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(error: &CliError) -> ExitCode {
    eprintln!("agora: {error}");
    ExitCode::from(error.exit_code())
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let api = Api::new(&cli.url, cli.token)?;
    let out = Output::new(cli.output);
    match cli.command {
        Command::Voting(command) => voting::run(&api, &out, command).await,
        Command::Orcade(command) => orcade::run(&api, &out, command).await,
        Command::Xchange(command) => xchange::run(&api, &out, command).await,
        Command::DeadLetters(command) => dead_letters::run(&api, &out, command).await,
        Command::Mcp(args) => mcp::serve(api, &args).await,
    }
}
