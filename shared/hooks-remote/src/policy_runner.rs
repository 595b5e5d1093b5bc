//! The local policy runner: long-lived Python processes that run `AIOSv1PolicyRule` classes
//! (python/policy_runner.py), spoken to in newline-delimited JSON over stdin/stdout.
//!
//! - One instance per key, built once with `(rule_id, settings, parameters)` and reused for every
//!   call (stateful semantics). The first call of a key on a process carries the load spec.
//! - Many calls in flight: each request has an id; a reader task completes the caller's
//!   oneshot when the answer with that id arrives. Requests to one process are pipelined.
//! - Up to `policy_workers` processes; a key always goes to the same one.
//! - A call that runs over the time limit gets [`HookError::Timeout`], and its process is killed
//!   by a watchdog (the reader task) so that later calls are not stuck behind it; the next call
//!   starts a fresh process, and instances are built again from their load specs (their
//!   in-memory state is lost). Calls queued behind the stuck one fail as unreachable.
//! - Python's stderr (logging, print) goes to `tracing` (target `policy_runner`): warnings and
//!   errors at warn, the rest at debug; Python logs at INFO only when that debug level is on
//!   (or as `AGORA_POLICY_LOG_LEVEL` says).

use crate::config::HooksConfig;
use crate::truncate;
use agora_hooks::HookError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, oneshot};

/// The runner script, shipped inside the binary and written to the cache folder on first use.
pub const RUNNER_SCRIPT: &str = include_str!("../python/policy_runner.py");

/// How to build an instance: the code and the constructor's arguments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LoadSpec {
    pub code_path: String,
    pub rule_id: String,
    pub settings: Value,
    pub parameters: Value,
}

/// One `eval` call of the instance `key`.
#[derive(Debug, Serialize)]
pub struct PolicyCall<'a, I: Serialize + ?Sized> {
    /// Identifies the instance; calls with the same key share it.
    pub key: &'a str,
    /// Used when the key has no instance yet.
    pub load: &'a LoadSpec,
    /// `eval`'s `parameters`.
    pub parameters: &'a Value,
    /// `eval`'s `input_data`.
    pub input: &'a I,
    /// `eval`'s `context`.
    pub context: &'a Value,
}

/// A request line: the call, with its id and whether the load spec is needed.
#[derive(Serialize)]
struct Request<'a, I: Serialize + ?Sized> {
    id: u64,
    op: &'static str,
    key: &'a str,
    load: Option<&'a LoadSpec>,
    parameters: &'a Value,
    input: &'a I,
    context: &'a Value,
}

/// An answer of the runner (a line locally, a Lambda result in AWS).
#[derive(Debug, Deserialize)]
pub(crate) struct Reply {
    #[serde(default)]
    id: Option<u64>,
    ok: bool,
    #[serde(default)]
    output: Option<Value>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    traceback: Option<String>,
}

impl Reply {
    /// Whether the instance exists after this answer (the load step passed).
    fn loaded(&self) -> bool {
        self.ok || matches!(self.kind.as_deref(), Some("eval" | "output"))
    }

    pub(crate) fn into_result(self, key: &str) -> Result<Value, HookError> {
        if self.ok {
            return match self.output {
                Some(out @ Value::Object(_)) => Ok(out),
                other => Err(HookError::Malformed(format!("policy {key} returned {}, not an object", other.unwrap_or(Value::Null)))),
            };
        }
        let error = self.error.unwrap_or_else(|| "unknown error".into());
        let tb = self.traceback.filter(|t| !t.trim().is_empty()).map(|t| format!("\n{}", tail(t.trim_end(), 1500))).unwrap_or_default();
        Err(match self.kind.as_deref() {
            Some("output") => HookError::Malformed(format!("policy {key}: {error}")),
            Some("load") => HookError::Rule(format!("policy {key} could not be loaded: {error}{tb}")),
            _ => HookError::Rule(format!("policy {key} raised {error}{tb}")),
        })
    }
}

/// The last `max` bytes of `s` (tracebacks end with what matters).
fn tail(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut start = s.len() - max;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// The local policy runner (a small pool of Python processes). Cheap to clone.
#[derive(Clone)]
pub struct PolicyRunner {
    inner: Arc<Inner>,
}

struct Inner {
    python: String,
    cache_dir: PathBuf,
    timeout: Duration,
    workers: Vec<Mutex<Option<Arc<Process>>>>,
    next_id: AtomicU64,
    script: Mutex<Option<PathBuf>>,
}

/// One running Python process.
struct Process {
    pid: Option<u32>,
    tx: mpsc::UnboundedSender<Vec<u8>>,
    pending: Arc<Pending>,
    loaded: Mutex<HashSet<String>>,
}

/// When a call was sent, and the caller's sender while the caller still waits.
type InFlight = (Instant, Option<oneshot::Sender<Reply>>);

/// Calls sent and not answered yet, by id (ids grow, so the first is the oldest), with the
/// caller's sender while the caller still waits; and why the process ended once it has.
struct Pending {
    waiting: Mutex<BTreeMap<u64, InFlight>>,
    alive: AtomicBool,
    exit_reason: Mutex<Option<String>>,
}

/// Forgets the caller's sender when the caller stops waiting (answered, timed out or dropped).
/// The call stays in the map until the runner answers it, so that the watchdog still sees it.
struct PendingGuard<'a> {
    pending: &'a Pending,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        if let Some(entry) = lock(&self.pending.waiting).get_mut(&self.id) {
            entry.1 = None;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl PolicyRunner {
    pub fn new(config: &HooksConfig) -> Self {
        let workers = (0..config.policy_workers.max(1)).map(|_| Mutex::new(None)).collect();
        Self {
            inner: Arc::new(Inner {
                python: config.python.clone(),
                cache_dir: config.policy_cache_dir.clone(),
                timeout: config.timeout,
                workers,
                next_id: AtomicU64::new(1),
                script: Mutex::new(None),
            }),
        }
    }

    /// The time limit of one call.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// Runs `instance.eval(parameters, input, context)` on the instance `call.key`, building it
    /// first when needed.
    pub async fn call<I: Serialize + ?Sized>(&self, call: &PolicyCall<'_, I>) -> Result<Value, HookError> {
        let worker = &self.inner.workers[shard(call.key, self.inner.workers.len())];
        let process = self.process(worker)?;
        let needs_load = !lock(&process.loaded).contains(call.key);
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let request = Request {
            id,
            op: "eval",
            key: call.key,
            load: needs_load.then_some(call.load),
            parameters: call.parameters,
            input: call.input,
            context: call.context,
        };
        let mut line = serde_json::to_vec(&request).map_err(|e| HookError::Malformed(format!("policy input is not JSON: {e}")))?;
        line.push(b'\n');

        let (tx, rx) = oneshot::channel();
        lock(&process.pending.waiting).insert(id, (Instant::now(), Some(tx)));
        let _guard = PendingGuard { pending: &process.pending, id };
        if process.tx.send(line).is_err() {
            lock(&process.pending.waiting).remove(&id);
            return Err(process.gone());
        }
        match tokio::time::timeout(self.inner.timeout, rx).await {
            Ok(Ok(reply)) => {
                if needs_load && reply.loaded() {
                    lock(&process.loaded).insert(call.key.to_owned());
                }
                reply.into_result(call.key)
            }
            Ok(Err(_)) => Err(process.gone()),
            Err(_) => Err(HookError::Timeout(self.inner.timeout)),
        }
    }

    /// The worker's live process, started when there is none.
    fn process(&self, worker: &Mutex<Option<Arc<Process>>>) -> Result<Arc<Process>, HookError> {
        let mut slot = lock(worker);
        if let Some(p) = slot.as_ref().filter(|p| p.pending.alive.load(Ordering::Acquire)) {
            return Ok(p.clone());
        }
        let process = Arc::new(self.spawn()?);
        *slot = Some(process.clone());
        Ok(process)
    }

    /// Writes the runner script once (its name carries its content's hash).
    fn script(&self) -> Result<PathBuf, HookError> {
        let mut script = lock(&self.inner.script);
        if let Some(path) = script.as_ref() {
            return Ok(path.clone());
        }
        use sha2::Digest;
        let hash = sha2::Sha256::digest(RUNNER_SCRIPT.as_bytes());
        let name: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
        let dir = self.inner.cache_dir.join("runner");
        let path = dir.join(format!("policy_runner_{name}.py"));
        if !path.exists() {
            let unavailable =
                |e: std::io::Error| HookError::Unavailable(format!("cannot write the policy runner to {}: {e}", dir.display()));
            std::fs::create_dir_all(&dir).map_err(unavailable)?;
            let tmp = dir.join(format!(".policy_runner_{name}.{}.tmp", std::process::id()));
            std::fs::write(&tmp, RUNNER_SCRIPT).map_err(unavailable)?;
            std::fs::rename(&tmp, &path).map_err(unavailable)?;
        }
        *script = Some(path.clone());
        Ok(path)
    }

    fn spawn(&self) -> Result<Process, HookError> {
        let script = self.script()?;
        // Python logs at INFO only when they would be shown (they are forwarded at debug level):
        // formatting and writing every rule's `logging.info` costs more than the call itself.
        let level = std::env::var("AGORA_POLICY_LOG_LEVEL").unwrap_or_else(|_| {
            if tracing::enabled!(target: "policy_runner", tracing::Level::DEBUG) { "INFO" } else { "WARNING" }.to_owned()
        });
        let mut child = Command::new(&self.inner.python)
            .arg(&script)
            .env("AGORA_POLICY_CACHE_DIR", &self.inner.cache_dir)
            .env("AGORA_POLICY_LOG_LEVEL", level)
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| {
                HookError::Unreachable(format!("cannot start the policy runner ({} {}): {e}", self.inner.python, script.display()))
            })?;
        let pid = child.id();
        let (stdin, stdout, stderr) = match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
            (Some(i), Some(o), Some(e)) => (i, o, e),
            _ => return Err(HookError::Unreachable("the policy runner's pipes are missing".into())),
        };
        tracing::info!(pid, python = %self.inner.python, "policy runner started");
        let pending =
            Arc::new(Pending { waiting: Mutex::new(BTreeMap::new()), alive: AtomicBool::new(true), exit_reason: Mutex::new(None) });
        let (tx, rx) = mpsc::unbounded_channel();
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        tokio::spawn(write_requests(stdin, rx));
        tokio::spawn(forward_stderr(stderr, pid, stderr_tail.clone()));
        tokio::spawn(read_replies(child, stdout, pending.clone(), self.inner.timeout, stderr_tail));
        Ok(Process { pid, tx, pending, loaded: Mutex::new(HashSet::new()) })
    }
}

impl Process {
    fn gone(&self) -> HookError {
        let reason = lock(&self.pending.exit_reason).clone().unwrap_or_else(|| "it stopped".into());
        HookError::Unreachable(format!("policy runner (pid {:?}) is gone: {reason}", self.pid))
    }
}

/// A stable shard for a key (FNV-1a), so that a key always meets its instance.
fn shard(key: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    (agora_support::fnv1a(key.as_bytes()) % n as u64) as usize
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn runner(timeout: Duration) -> (PolicyRunner, PathBuf) {
        let dir = std::env::temp_dir().join(format!("agora-policy-test-{}", uuid::Uuid::new_v4().simple()));
        let config = HooksConfig { timeout, policy_cache_dir: dir.join("cache"), ..HooksConfig::default() };
        (PolicyRunner::new(&config), dir)
    }

    fn write_rule(dir: &std::path::Path, name: &str, code: &str) -> String {
        let folder = dir.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("function.py"), code).unwrap();
        folder.display().to_string()
    }

    const COUNTER: &str = r#"
import logging, time

class AIOSv1PolicyRule:
    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.start = settings.get("start", 0)
        self.calls = 0

    def eval(self, parameters, input_data, context):
        logging.info("call %s", input_data)
        print("print goes to stderr, not the protocol")
        if input_data.get("sleep"):
            time.sleep(input_data["sleep"])
        if input_data.get("raise"):
            raise ValueError("asked to fail")
        if input_data.get("bad"):
            return {"x": object()}
        self.calls += 1
        return {"rule_id": self.rule_id, "n": self.start + self.calls, "parameters": parameters, "context": context}
"#;

    fn spec(path: &str) -> LoadSpec {
        LoadSpec { code_path: path.into(), rule_id: "counter".into(), settings: json!({"start": 10}), parameters: json!({}) }
    }

    async fn eval(runner: &PolicyRunner, key: &str, load: &LoadSpec, input: Value) -> Result<Value, HookError> {
        runner.call(&PolicyCall { key, load, parameters: &json!({"p": 1}), input: &input, context: &json!({"c": 2}) }).await
    }

    #[tokio::test]
    async fn instances_keep_state_and_errors_are_typed() {
        let (runner, dir) = runner(Duration::from_secs(20));
        let load = spec(&write_rule(&dir, "counter", COUNTER));
        let out = eval(&runner, "a", &load, json!({})).await.unwrap();
        assert_eq!(out, json!({"rule_id": "counter", "n": 11, "parameters": {"p": 1}, "context": {"c": 2}}));
        assert_eq!(eval(&runner, "a", &load, json!({})).await.unwrap()["n"], 12, "same instance");
        assert_eq!(eval(&runner, "b", &load, json!({})).await.unwrap()["n"], 11, "another key, another instance");

        let e = eval(&runner, "a", &load, json!({"raise": true})).await.unwrap_err();
        assert!(matches!(&e, HookError::Rule(m) if m.contains("ValueError: asked to fail") && m.contains("Traceback")), "{e}");
        let e = eval(&runner, "a", &load, json!({"bad": true})).await.unwrap_err();
        assert!(matches!(&e, HookError::Malformed(m) if m.contains("not JSON")), "{e}");
        let missing = spec(&dir.join("nope").display().to_string());
        let e = eval(&runner, "c", &missing, json!({})).await.unwrap_err();
        assert!(matches!(&e, HookError::Rule(m) if m.contains("does not exist")), "{e}");
        assert_eq!(eval(&runner, "a", &load, json!({})).await.unwrap()["n"], 13, "errors do not lose the instance");

        // Many calls in flight at once.
        let calls = (0..200).map(|_| eval(&runner, "a", &load, json!({})));
        let outs = futures::future::join_all(calls).await;
        assert!(outs.iter().all(Result::is_ok));
        assert_eq!(eval(&runner, "a", &load, json!({})).await.unwrap()["n"], 214);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn a_stuck_call_times_out_and_the_runner_recovers() {
        let (runner, dir) = runner(Duration::from_millis(1500));
        let load = spec(&write_rule(&dir, "counter", COUNTER));
        assert_eq!(eval(&runner, "a", &load, json!({})).await.unwrap()["n"], 11);
        let started = Instant::now();
        let e = eval(&runner, "a", &load, json!({"sleep": 30})).await.unwrap_err();
        assert_eq!(e, HookError::Timeout(Duration::from_millis(1500)));
        assert!(started.elapsed() < Duration::from_secs(3));
        // The next call gets a fresh process (and a fresh instance).
        let mut out = eval(&runner, "a", &load, json!({})).await;
        for _ in 0..20 {
            if out.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            out = eval(&runner, "a", &load, json!({})).await;
        }
        assert_eq!(out.unwrap()["n"], 11);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn archives_and_single_files_load() {
        let (runner, dir) = runner(Duration::from_secs(20));
        let folder = write_rule(&dir, "src", COUNTER);
        // A .tar.gz and a .zip made by Python's own tools, and a lone .py file.
        let tgz = dir.join("rule.tar.gz").display().to_string();
        let zip = dir.join("rule.zip").display().to_string();
        let py = dir.join("rule.py").display().to_string();
        std::fs::copy(format!("{folder}/function.py"), &py).unwrap();
        let script = format!(
            "import shutil, tarfile\nwith tarfile.open({tgz:?}, 'w:gz') as t: t.add({folder:?}, arcname='pkg')\nshutil.make_archive({:?}, 'zip', {folder:?})\n",
            zip.trim_end_matches(".zip")
        );
        let python = HooksConfig::default().python;
        let ok = std::process::Command::new(&python).arg("-c").arg(&script).status().unwrap();
        assert!(ok.success());
        for (key, path) in [("tgz", &tgz), ("zip", &zip), ("py", &py)] {
            let out = eval(&runner, key, &spec(path), json!({})).await.unwrap_or_else(|e| panic!("{key}: {e}"));
            assert_eq!(out["n"], 11, "{key}");
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}
