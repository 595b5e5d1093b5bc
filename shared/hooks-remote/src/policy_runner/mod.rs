//! The local policy runner: long-lived Python processes that run `AIOSv1PolicyRule` classes
//! ([`script`]: python/policy_runner.py), spoken to in newline-delimited JSON over stdin/stdout
//! ([`protocol`]), each process with its writer, reader and watchdog ([`process`]); this module
//! is the pool.
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

mod process;
mod protocol;
mod script;

pub(crate) use protocol::Reply;
pub use protocol::{LoadSpec, PolicyCall};
pub use script::RUNNER_SCRIPT;

use crate::config::HooksConfig;
use agora_hooks::HookError;
use process::{PendingGuard, Process};
use protocol::Request;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

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

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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

    /// The runner script's path, written on first use.
    fn script(&self) -> Result<PathBuf, HookError> {
        let mut script = lock(&self.inner.script);
        if let Some(path) = script.as_ref() {
            return Ok(path.clone());
        }
        let path = script::write(&self.inner.cache_dir)?;
        *script = Some(path.clone());
        Ok(path)
    }

    /// The worker's live process, started when there is none.
    fn process(&self, worker: &Mutex<Option<Arc<Process>>>) -> Result<Arc<Process>, HookError> {
        let mut slot = lock(worker);
        if let Some(p) = slot.as_ref().filter(|p| p.pending.alive.load(Ordering::Acquire)) {
            return Ok(p.clone());
        }
        let script = self.script()?;
        let process = Arc::new(process::spawn(&self.inner.python, &self.inner.cache_dir, &script, self.inner.timeout)?);
        *slot = Some(process.clone());
        Ok(process)
    }
}

/// A stable shard for a key (FNV-1a), so that a key always meets its instance.
fn shard(key: &str, n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    (agora_support::fnv1a(key.as_bytes()) % n as u64) as usize
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
