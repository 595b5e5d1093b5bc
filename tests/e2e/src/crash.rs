//! What the crash tests share: a server's data that outlives the server (`kill -9`, then a
//! start on the same data), and how long recovery may take.

use crate::{temp_dir, ServerProcess};
use std::time::Duration;

/// How long recovery after a restart may take: the claims' lease is 1 s in these tests, the
/// delegate's time limit a few seconds. On MongoDB the restarted server ends the transactions
/// the kill left open (`killAllSessions`), but where the deployment refuses that (a user without
/// the `killAnySession` privilege) such a transaction holds its documents until the server's
/// transaction lifetime (60 s by default) ends it.
pub fn recovery() -> Duration {
    if std::env::var("AGORA_E2E_STORE").is_ok_and(|s| s == "mongodb") {
        Duration::from_secs(90)
    } else {
        Duration::from_secs(30)
    }
}

/// One server's data: where it is kept (a folder for the embedded store, else a namespace of
/// the store `AGORA_E2E_STORE` names), and the options that start a server on it: sweeps every
/// 100 ms, leases of 1 s, retries after 100 ms, and `extra`.
pub struct ServerData {
    program: String,
    dir: std::path::PathBuf,
    args: Vec<String>,
}

impl Drop for ServerData {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl ServerData {
    /// `program` is the local server's binary (`env!("CARGO_BIN_EXE_agora-e2e-local")`).
    pub fn new(program: &str, tag: &str, extra: &[&str]) -> ServerData {
        Self::with_lease(program, tag, 1000, extra)
    }

    /// [`ServerData::new`] with leases of `lease_ms` instead of 1 s (a test that a restart does
    /// not wait for them).
    pub fn with_lease(program: &str, tag: &str, lease_ms: u64, extra: &[&str]) -> ServerData {
        let dir = temp_dir(tag);
        let lease = lease_ms.to_string();
        let mut args: Vec<String> =
            ["--data-dir", &dir.display().to_string(), "--sweep-interval-ms", "100", "--claim-lease-ms", &lease, "--retry-delay-ms", "100"]
                .iter()
                .chain(extra)
                .map(|s| s.to_string())
                .collect();
        if let Some(kind) = std::env::var("AGORA_E2E_STORE").ok().filter(|k| !k.is_empty()) {
            args.extend(["--store".into(), kind, "--store-namespace".into(), format!("{tag}_{}", uuid::Uuid::new_v4().simple())]);
        }
        ServerData { program: program.to_owned(), dir, args }
    }

    /// A server on this data.
    pub fn start(&self) -> ServerProcess {
        self.start_with_env(&[])
    }

    /// A server on this data with `envs` added to its environment (e.g. a `MONGODB_URI` naming
    /// the server's own `appName`).
    pub fn start_with_env(&self, envs: &[(String, String)]) -> ServerProcess {
        ServerProcess::start(&self.program, &self.args, envs)
    }
}
