//! What an operator sees, over the real local server as its own process: one trace per unit of
//! work in its JSON logs and in the requests it makes ([`traces`]), and its `/metrics`
//! ([`metrics`]).

mod metrics;
mod traces;

use agora_e2e::{temp_dir, wait_until, ServerProcess};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// How long a unit of work may take here.
const SOON: Duration = Duration::from_secs(20);

/// The local server as its own process, logging JSON at `info` to a file.
pub struct Logged {
    pub server: ServerProcess,
    logs: PathBuf,
}

impl Logged {
    /// Starts it with `args` added (a delegate system's URL, say).
    pub fn start(tag: &str, args: &[String]) -> Logged {
        let dir = temp_dir(tag);
        let logs = dir.join("server.log");
        let file = std::fs::File::create(&logs).expect("log file");
        let mut all = vec!["--data-dir".to_owned(), dir.join("data").display().to_string()];
        all.extend_from_slice(args);
        let envs = [("AGORA_LOG_FORMAT".to_owned(), "json".to_owned()), ("RUST_LOG".to_owned(), "info".to_owned())];
        Logged { server: ServerProcess::start_logging_to(env!("CARGO_BIN_EXE_agora-e2e-local"), &all, &envs, file), logs }
    }

    /// Every log line so far, each a JSON object (panics on a line that is not).
    pub fn lines(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.logs).expect("the log file");
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a log line that is not JSON ({e}): {l}"))).collect()
    }

    /// POSTs `body` with the trace id `trace` (when given); returns the status, the JSON answer
    /// and the trace id the server answered with.
    pub async fn post(&self, path: &str, body: &Value, trace: Option<&str>) -> (u16, Value, String) {
        let mut request = self.server.http.post(self.server.url(path)).json(body);
        if let Some(trace) = trace {
            request = request.header(agora_telemetry::trace::HEADER, trace);
        }
        let response = request.send().await.expect("the server answers");
        let trace = response.headers().get(agora_telemetry::trace::HEADER).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let (status, body) = agora_e2e::documented("POST", path, response).await;
        (status, body, trace)
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.server.get(path).await
    }

    /// Polls `GET path` until `done` holds for its answer; returns it.
    pub async fn wait_for(&self, what: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
        wait_until(what, SOON, || async {
            let (status, body) = self.get(path).await;
            (status == 200 && done(&body)).then_some(body)
        })
        .await
    }
}

/// The value of `field` in the innermost span of `line` that has it.
pub fn span_field<'a>(line: &'a Value, field: &str) -> Option<&'a Value> {
    line["spans"].as_array()?.iter().rev().find_map(|span| span.get(field))
}

/// The names of the spans `line` is in, outermost first.
pub fn span_names(line: &Value) -> Vec<String> {
    line["spans"].as_array().map(|s| s.iter().filter_map(|s| s["name"].as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

/// The public task of the example with `hooks` merged into its `evaluation_spec`, `duration`
/// qualified votes to its trigger, due now.
pub fn public_task(duration: i64, hooks: Value) -> Value {
    let mut request = agora_e2e::public_request(duration);
    if let (Some(spec), Value::Object(hooks)) = (request["evaluation_spec"].as_object_mut(), hooks) {
        spec.extend(hooks);
    }
    request
}

/// A JSON hook or delegate played by a real HTTP server (it keeps each request's headers).
pub async fn stub(reply: Value) -> agora_e2e::StubServer {
    agora_e2e::StubServer::json(move |_| (200, reply.clone())).await
}

pub fn with_delegate(url: &str) -> Vec<String> {
    vec!["--delegate-api-url".to_owned(), url.to_owned()]
}
