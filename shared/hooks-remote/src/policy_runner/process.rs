//! One runner process: started with its pipes, fed request lines by a writer task, its answers
//! matched to the waiting callers by a reader task, which is also the watchdog that kills the
//! process when its oldest call runs over the time limit; its stderr forwarded to the log.

use super::lock;
use super::protocol::Reply;
use crate::truncate;
use agora_hooks::HookError;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

/// One running Python process.
pub(crate) struct Process {
    pid: Option<u32>,
    pub(crate) tx: mpsc::UnboundedSender<Vec<u8>>,
    pub(crate) pending: Arc<Pending>,
    pub(crate) loaded: Mutex<HashSet<String>>,
}

/// When a call was sent, and the caller's sender while the caller still waits.
pub(crate) type InFlight = (Instant, Option<oneshot::Sender<Reply>>);

/// Calls sent and not answered yet, by id (ids grow, so the first is the oldest), with the
/// caller's sender while the caller still waits; and why the process ended once it has.
pub(crate) struct Pending {
    pub(crate) waiting: Mutex<BTreeMap<u64, InFlight>>,
    pub(crate) alive: AtomicBool,
    exit_reason: Mutex<Option<String>>,
}

/// Forgets the caller's sender when the caller stops waiting (answered, timed out or dropped).
/// The call stays in the map until the runner answers it, so that the watchdog still sees it.
pub(crate) struct PendingGuard<'a> {
    pub(crate) pending: &'a Pending,
    pub(crate) id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Some(entry) = lock(&self.pending.waiting).get_mut(&self.id) {
            entry.1 = None;
        }
    }
}

/// Starts a runner process on `script` with `python`; its reader kills it when a call runs over
/// `timeout`.
pub(crate) fn spawn(python: &str, cache_dir: &Path, script: &Path, timeout: Duration) -> Result<Process, HookError> {
    // Python logs at INFO only when they would be shown (they are forwarded at debug level):
    // formatting and writing every rule's `logging.info` costs more than the call itself.
    let level = std::env::var("AGORA_POLICY_LOG_LEVEL")
        .unwrap_or_else(|_| if tracing::enabled!(target: "policy_runner", tracing::Level::DEBUG) { "INFO" } else { "WARNING" }.to_owned());
    let mut child = Command::new(python)
        .arg(script)
        .env("AGORA_POLICY_CACHE_DIR", cache_dir)
        .env("AGORA_POLICY_LOG_LEVEL", level)
        .env("PYTHONUNBUFFERED", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| HookError::Unreachable(format!("cannot start the policy runner ({} {}): {e}", python, script.display())))?;
    let pid = child.id();
    let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
        (Some(i), Some(o), Some(e)) => (i, o, e),
        _ => return Err(HookError::Unreachable("the policy runner's pipes are missing".into())),
    };
    tracing::info!(pid, python = %python, "policy runner started");
    let pending = Arc::new(Pending { waiting: Mutex::new(BTreeMap::new()), alive: AtomicBool::new(true), exit_reason: Mutex::new(None) });
    let (tx, rx) = mpsc::unbounded_channel();
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    tokio::spawn(write_requests(stdin, rx));
    tokio::spawn(forward_stderr(stderr, pid, stderr_tail.clone()));
    tokio::spawn(read_replies(child, stdout, pending.clone(), timeout, stderr_tail));
    Ok(Process { pid, tx, pending, loaded: Mutex::new(HashSet::new()) })
}

impl Process {
    pub(crate) fn gone(&self) -> HookError {
        let reason = lock(&self.pending.exit_reason).clone().unwrap_or_else(|| "it stopped".into());
        HookError::Unreachable(format!("policy runner (pid {:?}) is gone: {reason}", self.pid))
    }
}

/// Writes request lines, flushing once the queue is drained (several lines per write under load).
async fn write_requests(stdin: ChildStdin, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    let mut out = BufWriter::with_capacity(1 << 16, stdin);
    while let Some(line) = rx.recv().await {
        if out.write_all(&line).await.is_err() {
            return;
        }
        while let Ok(more) = rx.try_recv() {
            if out.write_all(&more).await.is_err() {
                return;
            }
        }
        if out.flush().await.is_err() {
            return;
        }
    }
}

/// Python's stderr to the log; the last lines are kept to explain an exit.
async fn forward_stderr(stderr: tokio::process::ChildStderr, pid: Option<u32>, last: Arc<Mutex<VecDeque<String>>>) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if ["ERROR", "CRITICAL", "WARNING", "Traceback"].iter().any(|p| line.starts_with(p)) {
            tracing::warn!(target: "policy_runner", pid, "{line}");
        } else {
            tracing::debug!(target: "policy_runner", pid, "{line}");
        }
        let mut last = lock(&last);
        if last.len() == 20 {
            last.pop_front();
        }
        last.push_back(line);
    }
}

/// Completes callers from answer lines, and kills the process when its oldest call has waited
/// longer than the time limit (a stuck rule).
async fn read_replies(
    mut child: Child,
    stdout: tokio::process::ChildStdout,
    pending: Arc<Pending>,
    timeout: Duration,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
) {
    let mut lines = BufReader::with_capacity(1 << 16, stdout).lines();
    let mut watchdog = tokio::time::interval((timeout / 4).clamp(Duration::from_millis(5), Duration::from_secs(1)));
    watchdog.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let reason = loop {
        tokio::select! {
            line = lines.next_line() => match line {
                Ok(Some(line)) => deliver(&pending, &line),
                Ok(None) => break None,
                Err(e) => break Some(format!("reading its output failed: {e}")),
            },
            _ = watchdog.tick() => {
                let oldest = lock(&pending.waiting).values().next().map(|(sent, _)| *sent);
                if oldest.is_some_and(|sent| sent.elapsed() > timeout) {
                    break Some(format!("restarted after a call ran over the time limit of {timeout:?}"));
                }
            }
        }
    };
    pending.alive.store(false, Ordering::Release);
    let _ = child.start_kill();
    let status = child.wait().await.ok();
    let reason = reason.unwrap_or_else(|| {
        let last: Vec<String> = lock(&stderr_tail).iter().cloned().collect();
        format!(
            "exited ({}); last stderr lines: {}",
            status.map_or("unknown status".into(), |s| s.to_string()),
            truncate(&last.join(" | "))
        )
    });
    tracing::warn!(pid = child.id(), %reason, "policy runner stopped");
    *lock(&pending.exit_reason) = Some(reason);
    // Dropping the senders wakes every caller still waiting.
    lock(&pending.waiting).clear();
}

fn deliver(pending: &Pending, line: &str) {
    match serde_json::from_str::<Reply>(line) {
        Ok(reply) => match reply.id.and_then(|id| lock(&pending.waiting).remove(&id)) {
            Some((_, Some(tx))) => {
                let _ = tx.send(reply);
            }
            Some((_, None)) => tracing::debug!(id = ?reply.id, "policy runner answered a call nobody waits for any more"),
            None => tracing::warn!(id = ?reply.id, "policy runner answered an unknown call"),
        },
        Err(e) => tracing::error!(error = %e, line = %truncate(line), "policy runner wrote a line that is not an answer"),
    }
}
