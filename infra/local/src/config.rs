//! Command-line options and their environment variables.

use agora_hooks_remote::HooksConfig;
use agora_runtime::StoreKind;
use clap::Parser;
use std::path::PathBuf;

/// Agora on one machine: every service's HTTP API, their sweeps and work queues, a message inbox
/// and a local delegate system in one process, on the embedded store.
#[derive(Debug, Clone, Parser)]
#[command(name = "agora-local", version, about)]
pub struct Config {
    /// Port of the HTTP API (0 picks a free one).
    #[arg(long, env = "AGORA_PORT", default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, env = "AGORA_BIND", default_value = "127.0.0.1")]
    pub bind: String,
    /// Folder of the embedded store's database file.
    #[arg(long, env = "AGORA_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
    /// Where tasks and votes are stored: `embedded` (a SQLite file in the data folder),
    /// `mongodb` (MONGODB_URI, else MONGO_URL, else mongodb://localhost:27017) or `dynamodb` (the AWS environment, AGORA_DYNAMODB_ENDPOINT,
    /// AGORA_DYNAMODB_TABLE).
    #[arg(long, env = "AGORA_STORE", default_value = "embedded")]
    pub store: StoreKind,
    /// The MongoDB database (default `voting_db`) or DynamoDB table (default
    /// AGORA_DYNAMODB_TABLE or `agora`) to use instead.
    #[arg(long, env = "AGORA_STORE_NAMESPACE")]
    pub store_namespace: Option<String>,
    /// Take votes from the NATS subject `vote.submit` on this server as well (§5.3).
    #[arg(long, env = "AGORA_NATS_INTAKE_URL")]
    pub nats_intake_url: Option<String>,
    /// How often the sweeps run, in milliseconds: the backstop that starts due tasks and closes
    /// due jobs whose timer did not (each has a timer of its own, done at its time), and requests
    /// stalled evaluations again.
    #[arg(long, env = "AGORA_SWEEP_INTERVAL_MS", default_value_t = 1000)]
    pub sweep_interval_ms: u64,
    /// Time limit of one hook call, in milliseconds.
    #[arg(long, env = "AGORA_HOOK_TIMEOUT_MS", default_value_t = 30_000)]
    pub hook_timeout_ms: u64,
    /// Time limit on reading a request's head (headers), in milliseconds; a client slower than
    /// that has its connection closed.
    #[arg(long, env = "AGORA_HEADER_READ_TIMEOUT_MS", default_value_t = 10_000)]
    pub header_read_timeout_ms: u64,
    /// Time limit on reading a request's body once its head is in, in milliseconds; slower is
    /// answered 400.
    #[arg(long, env = "AGORA_BODY_READ_TIMEOUT_MS", default_value_t = 30_000)]
    pub body_read_timeout_ms: u64,
    /// Lease of the claims on a task's start, evaluation request and evaluation, in
    /// milliseconds: how long a crashed worker can block a task before another takes over (a
    /// live evaluator renews its lease every third of it).
    #[arg(long, env = "AGORA_CLAIM_LEASE_MS", default_value_t = 60_000)]
    pub claim_lease_ms: u64,
    /// Delay before an evaluation attempt is retried (multiplied by the attempt number), in milliseconds.
    #[arg(long, env = "AGORA_RETRY_DELAY_MS", default_value_t = 2_000)]
    pub retry_delay_ms: u64,
    /// Base URL of the delegate system that Orcade's (and Xchange's) round trips to subjects go
    /// to (`POST {url}/api/submit-and-wait`); unset, the local delegate records each call in the
    /// inbox and acknowledges it.
    #[arg(long, env = "DELEGATE_API_URL")]
    pub delegate_api_url: Option<String>,
    /// Time limit of one delegate call, in milliseconds.
    #[arg(long, env = "AGORA_DELEGATE_TIMEOUT_MS", default_value_t = 30_000)]
    pub delegate_timeout_ms: u64,
    /// The exchange this deployment is: Xchange's documents live in database
    /// `exchange_{EXCHANGE_ID}`.
    #[arg(long, env = "EXCHANGE_ID", default_value = "default")]
    pub exchange_id: String,
    /// Bidding mode's time limit, in milliseconds: a bidding task whose bid job has no winner by
    /// then is failed, saying so.
    #[arg(long, env = "AGORA_BIDDING_TIMEOUT_MS", default_value_t = 86_400_000)]
    pub bidding_timeout_ms: u64,
    /// Base URL of an Orcade running elsewhere for Xchange's bidding mode; unset, the Orcade of
    /// this server is used, in process.
    #[arg(long, env = "ORCADE_URL")]
    pub orcade_url: Option<String>,
    /// Serve Orcade's routes of orcade-1-3-5.md §3 only, without Agora's extra
    /// `GET /bid-jobs/{id}/evaluation` (an Xchange elsewhere then reads outcomes from §3's
    /// routes alone): this server acts as an upstream Orcade. `true`/`false`, off by default.
    #[arg(
        long,
        env = "AGORA_ORCADE_SPEC_ROUTES_ONLY",
        num_args = 0..=1,
        default_value_t = false,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub orcade_spec_routes_only: bool,
    /// On MongoDB, end at start-up the transactions a killed predecessor left open, by killing
    /// the sessions of the user the server connects as (`killAllSessions`; every session when
    /// the URI has no credentials): without it, such a transaction holds its task's or job's
    /// counter until the server's transaction lifetime ends it (60 s by default). Turn it off
    /// when other programs work on the same MongoDB deployment under the same user.
    #[arg(
        long,
        env = "AGORA_END_ABANDONED_TRANSACTIONS",
        num_args = 0..=1,
        default_value_t = true,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub end_abandoned_transactions: bool,
    /// Folder of local functions and workflows (`functions/<id>/function.py`,
    /// `workflows/<id>.json`), served as the function registry and the workflow API; the hook
    /// modes `function` and `dsl` then use them unless FUNCTIONS_REGISTRY_URL / WORKFLOWS_API_URL
    /// are set. Off when the folder has neither subfolder (or is "": `--functions-dir ""`).
    #[arg(long, env = "AGORA_FUNCTIONS_DIR", default_value = "infra/local", value_parser = any_path)]
    pub functions_dir: PathBuf,
    /// URL of the identity provider's JWKS (e.g. `https://<issuer>/.well-known/jwks.json`):
    /// authentication is on, every service route needs a bearer token signed by one of its keys
    /// (RS256 or ES256). Unset (and no public key file), authentication is off and the ids in
    /// requests are trusted.
    #[arg(long, env = "AGORA_AUTH_JWKS_URL")]
    pub auth_jwks_url: Option<String>,
    /// A PEM file holding the one public key tokens are signed with, instead of a JWKS URL.
    #[arg(long, env = "AGORA_AUTH_PUBLIC_KEY_FILE")]
    pub auth_public_key_file: Option<String>,
    /// The issuer (`iss`) tokens must name; required when authentication is on.
    #[arg(long, env = "AGORA_AUTH_ISSUER")]
    pub auth_issuer: Option<String>,
    /// The audience (`aud`) tokens must name; required when authentication is on.
    #[arg(long, env = "AGORA_AUTH_AUDIENCE")]
    pub auth_audience: Option<String>,
    /// The claim whose value is the caller's subject id.
    #[arg(long, env = "AGORA_AUTH_SUBJECT_CLAIM", default_value = agora_auth::DEFAULT_SUBJECT_CLAIM)]
    pub auth_subject_claim: String,
    /// The scope that makes a caller an operator, who may act as any subject.
    #[arg(long, env = "AGORA_AUTH_ADMIN_SCOPE", default_value = agora_auth::DEFAULT_ADMIN_SCOPE)]
    pub auth_admin_scope: String,
    /// Hook settings from the environment (FUNCTIONS_REGISTRY_URL, WORKFLOWS_API_URL,
    /// EXECUTOR_ID, AGORA_HOOK_SIGNING_SECRET, AGORA_PYTHON, ...: see agora_hooks_remote::config).
    /// Its timeout is replaced by `hook_timeout_ms`.
    #[arg(skip = HooksConfig::from_env())]
    pub hooks: HooksConfig,
}

impl Config {
    /// Defaults for a server on a free port with its data in `data_dir` (tests and benches): no
    /// local registry, and hook settings not read from the environment (except `AGORA_PYTHON`).
    pub fn ephemeral(data_dir: PathBuf) -> Self {
        Self {
            port: 0,
            bind: "127.0.0.1".into(),
            data_dir,
            store: StoreKind::Embedded,
            store_namespace: None,
            nats_intake_url: None,
            sweep_interval_ms: 5000,
            hook_timeout_ms: 30_000,
            retry_delay_ms: 200,
            claim_lease_ms: 60_000,
            header_read_timeout_ms: 10_000,
            body_read_timeout_ms: 30_000,
            delegate_api_url: None,
            delegate_timeout_ms: 30_000,
            exchange_id: "default".into(),
            bidding_timeout_ms: 86_400_000,
            orcade_url: None,
            orcade_spec_routes_only: false,
            // Many test servers share one MongoDB deployment at once: none kills the others'
            // sessions (the tests that kill a server run the program, where it is on).
            end_abandoned_transactions: false,
            functions_dir: PathBuf::new(),
            auth_jwks_url: None,
            auth_public_key_file: None,
            auth_issuer: None,
            auth_audience: None,
            auth_subject_claim: agora_auth::DEFAULT_SUBJECT_CLAIM.into(),
            auth_admin_scope: agora_auth::DEFAULT_ADMIN_SCOPE.into(),
            hooks: HooksConfig::default(),
        }
    }
}

/// A path, "" included (clap's own path parser refuses an empty value).
fn any_path(value: &str) -> Result<PathBuf, std::convert::Infallible> {
    Ok(PathBuf::from(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_functions_dir_turns_the_local_registry_off() {
        let config = Config::try_parse_from(["agora-local", "--functions-dir", ""]).expect("an empty folder is accepted");
        assert_eq!(config.functions_dir, PathBuf::new());
        let config = Config::try_parse_from(["agora-local", "--functions-dir", "elsewhere"]).expect("a folder");
        assert_eq!(config.functions_dir, PathBuf::from("elsewhere"));
    }

    #[test]
    fn orcade_serves_its_extra_route_unless_told_not_to() {
        let spec_only = |args: &[&str]| Config::try_parse_from(["agora-local"].iter().chain(args)).expect("parses").orcade_spec_routes_only;
        assert!(!spec_only(&[]));
        assert!(spec_only(&["--orcade-spec-routes-only"]));
        assert!(spec_only(&["--orcade-spec-routes-only", "true"]));
        assert!(!spec_only(&["--orcade-spec-routes-only", "false"]));
    }
}
