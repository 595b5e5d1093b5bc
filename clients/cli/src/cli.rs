//! The command line: global options and every command, as clap reads them.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

/// What `agora --help` says after the commands.
const AFTER_HELP: &str = "\
Output: --output table (the default when standard output is a terminal) prints readable tables;
--output json (the default otherwise: pipes, files) prints each answer's body as the service sent it.

Exit codes:
  0  success
  1  the service refused the request (a 4xx answer; its status and message are on stderr)
  2  usage: bad arguments, or an input file or JSON argument that cannot be read
  3  the server is unreachable, or failed (a 5xx answer, or one that is not JSON); `voting watch --timeout` passed";

/// Agora from a terminal: voting, Orcade (bidding), Xchange (task exchange), the local
/// server's dead letters, and an MCP server for agents (`agora mcp`).
#[derive(Debug, Parser)]
#[command(name = "agora", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// Base URL of the Agora API.
    #[arg(long, global = true, env = "AGORA_URL", default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// Bearer token sent as `Authorization: Bearer <token>` (when the API has authentication on).
    #[arg(long, global = true, env = "AGORA_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// How answers are printed: `table` or `json` (default: table on a terminal, json otherwise).
    #[arg(long, short = 'o', global = true, value_enum)]
    pub output: Option<OutputFormat>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Json,
    Table,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Social choice voting: tasks, votes, status, reports and the live stream.
    #[command(subcommand)]
    Voting(VotingCommand),
    /// Orcade: bid jobs and bids.
    #[command(subcommand)]
    Orcade(OrcadeCommand),
    /// Xchange: exchange tasks and subjects.
    #[command(subcommand)]
    Xchange(XchangeCommand),
    /// The local server's dead letters: work its queues gave up on (an operator's token when
    /// authentication is on).
    #[command(subcommand, name = "dead-letters")]
    DeadLetters(DeadLettersCommand),
    /// Serve Agora's tools to agents over MCP: on stdio, or Streamable HTTP with --listen.
    Mcp(McpArgs),
}

#[derive(Debug, Subcommand)]
pub enum VotingCommand {
    /// Create a task from a JSON or YAML file (the body of POST /submit-social-choice-task);
    /// prints its id.
    Create {
        /// `task.json`, `task.yaml` or `task.yml` (`-` reads JSON or YAML from stdin).
        file: PathBuf,
    },
    /// Vote on a task as a subject.
    Vote {
        /// The task's social_task_id.
        task: String,
        /// The voter's subject id (submitter_subject_id).
        #[arg(long = "as", value_name = "SUBJECT")]
        subject: String,
        /// The vote_data, a JSON object, e.g. '{"selected_option": "agent-translator-02"}'.
        #[arg(long, value_name = "JSON")]
        data: String,
        /// The vote's id (default: a new UUID); give the same one to retry a vote safely.
        #[arg(long)]
        vote_id: Option<String>,
    },
    /// A task's status.
    Status { id: String },
    /// A task's report (`{}` before it is complete).
    Report { id: String },
    /// Follow a task until it is complete (the live stream, else polling), then print its winners.
    Watch(WatchArgs),
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    pub id: String,
    /// Seconds between updates (the live stream's refresh_interval, or the polling interval).
    #[arg(long, default_value_t = 2.0)]
    pub interval: f64,
    /// Give up after this many seconds (default: wait as long as it takes).
    #[arg(long)]
    pub timeout: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub enum OrcadeCommand {
    /// List bid jobs: by tags, or matching a filter (all of them without either).
    Jobs {
        /// Comma-separated tags (GET /bid-jobs/by-tags).
        #[arg(long, value_delimiter = ',', conflicts_with = "filter")]
        tags: Vec<String>,
        /// With --tags: a job must carry all of them, or any.
        #[arg(long = "match", value_enum, default_value = "all", requires = "tags")]
        match_: TagMatch,
        /// A MongoDB-style filter, e.g. '{"bid_job_status": "open"}' (POST /bid-jobs/query).
        #[arg(long, value_name = "JSON")]
        filter: Option<String>,
    },
    /// A bid job (with --output table, also its bids and winner).
    Job { id: String },
    /// The bids of a job (each with is_winner).
    Bids { id: String },
    /// Bid on a job as a subject.
    Bid {
        /// The bid_job_id.
        job: String,
        /// The bidder's subject id (bid_subject_id).
        #[arg(long = "as", value_name = "SUBJECT")]
        subject: String,
        /// The bid_data, a JSON object, e.g. '{"price_usd": 120, "confidence": 0.9}'.
        #[arg(long, value_name = "JSON")]
        data: String,
    },
    /// Close a job (its creator): its bids on file are evaluated.
    Close { job: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TagMatch {
    All,
    Any,
}

impl TagMatch {
    pub fn as_str(self) -> &'static str {
        match self {
            TagMatch::All => "all",
            TagMatch::Any => "any",
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum XchangeCommand {
    /// List tasks matching a filter (all without one).
    Tasks {
        /// A MongoDB-style filter, e.g. '{"task_assignment_status": "completed"}'.
        #[arg(long, value_name = "JSON")]
        filter: Option<String>,
    },
    /// A task.
    Task { id: String },
    /// Submit a task from a JSON or YAML file (the body of POST /tasks).
    Submit { file: PathBuf },
    /// List the exchange's subjects matching a filter (all without one).
    Subjects {
        /// A MongoDB-style filter, e.g. '{"topics": {"$in": ["translation"]}}'.
        #[arg(long, value_name = "JSON")]
        filter: Option<String>,
    },
    /// Register a subject from a JSON or YAML file (the body of POST /subjects).
    AddSubject { file: PathBuf },
}

#[derive(Debug, Subcommand)]
pub enum DeadLettersCommand {
    /// List the dead letters, oldest first.
    List {
        /// Only this queue's.
        #[arg(long)]
        queue: Option<String>,
    },
    /// Put dead letters back on their queues: every one (--all) or those named.
    Redrive {
        /// Every dead letter (of --queue, if given).
        #[arg(long, conflicts_with = "work_ids", required_unless_present = "work_ids")]
        all: bool,
        /// Only this queue's.
        #[arg(long)]
        queue: Option<String>,
        /// The work_id of each dead letter to put back.
        #[arg(value_name = "WORK_ID")]
        work_ids: Vec<String>,
    },
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio; each request's Authorization
    /// header is what the tools call the API with.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,
    /// With --listen: a further Host the server answers (loopback names are always allowed;
    /// others are refused against DNS rebinding).
    #[arg(long, value_name = "HOST", requires = "listen")]
    pub allow_host: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn redrive_needs_all_or_ids_not_both() {
        assert!(Cli::try_parse_from(["agora", "dead-letters", "redrive"]).is_err());
        assert!(Cli::try_parse_from(["agora", "dead-letters", "redrive", "--all", "w1"]).is_err());
        assert!(Cli::try_parse_from(["agora", "dead-letters", "redrive", "w1", "w2"]).is_ok());
        assert!(Cli::try_parse_from(["agora", "dead-letters", "redrive", "--all"]).is_ok());
    }

    #[test]
    fn tags_and_a_filter_exclude_each_other() {
        assert!(Cli::try_parse_from(["agora", "orcade", "jobs", "--tags", "a", "--filter", "{}"]).is_err());
        let cli = Cli::try_parse_from(["agora", "orcade", "jobs", "--tags", "a,b", "--match", "any"]).unwrap();
        let Command::Orcade(OrcadeCommand::Jobs { tags, match_, .. }) = cli.command else { panic!("jobs") };
        assert_eq!((tags, match_), (vec!["a".to_owned(), "b".to_owned()], TagMatch::Any));
    }
}
