//! The `agora` binary against the real local server, started in process on a free port: the
//! README's flows (voting, Orcade, Xchange), refusals and their exit codes, tables, `watch` on
//! the live stream and by polling, and the dead-letter routes.

use agora_local::{start, Config, Running};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long anything asynchronous (a task's start, an evaluation) is given.
const SOON: Duration = Duration::from_secs(20);

/// A local server for one test, its data folder removed afterwards.
struct Server {
    url: String,
    running: Running,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.running.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Server {
    async fn start() -> Server {
        let dir = std::env::temp_dir().join(format!("agora-cli-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let mut config = Config::ephemeral(dir.join("data"));
        config.sweep_interval_ms = 100;
        let running = start(&config).await.expect("the local server starts");
        Server { url: format!("http://{}", running.addr), running, dir }
    }

    /// Writes `content` to a file of this test's folder; returns its path.
    fn file(&self, name: &str, content: &str) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, content).expect("write a file");
        path
    }

    /// Runs `agora --url <server> args...`.
    async fn agora(&self, args: &[&str]) -> Run {
        let mut all = vec!["--url".to_owned(), self.url.clone()];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        run(all).await
    }

    /// Runs `agora -o json ...` and expects success; returns the JSON it printed.
    async fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["-o", "json"];
        all.extend_from_slice(args);
        let run = self.agora(&all).await;
        assert_eq!(run.code, 0, "agora {args:?}: {}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("agora {args:?} printed no JSON ({e}): {}", run.stdout))
    }

    /// Polls `agora -o json args` until `done` holds of its output; returns it.
    async fn until(&self, args: &[&str], done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + SOON;
        loop {
            let value = self.json(args).await;
            if done(&value) {
                return value;
            }
            assert!(Instant::now() < deadline, "agora {args:?} still {value} after {SOON:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Creates the spec's example task (private, due now), changed by `adjust`; returns its id
    /// once it has started.
    async fn started_task(&self, name: &str, adjust: impl FnOnce(&mut Value)) -> String {
        let mut task = example_task();
        adjust(&mut task);
        let path = self.file(name, &task.to_string());
        let created = self.json(&["voting", "create", path.to_str().unwrap()]).await;
        let id = created["social_task_id"].as_str().expect("an id").to_owned();
        self.until(&["voting", "status", &id], |s| s["status"] == "started").await;
        id
    }
}

/// What a run of the binary did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn run(args: Vec<String>) -> Run {
    let output = tokio::task::spawn_blocking(move || agora_command(&args).output().expect("agora runs")).await.expect("joined");
    outcome(output)
}

fn agora_command(args: &[String]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agora"));
    command.args(args).env_remove("AGORA_URL").env_remove("AGORA_TOKEN");
    command
}

fn outcome(output: Output) -> Run {
    Run {
        code: output.status.code().expect("exited"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `examples/private-task.json`, due now.
fn example_task() -> Value {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/private-task.json")).expect("the example task");
    let mut task: Value = serde_json::from_str(&text).expect("JSON");
    task["social_task"]["scheduled_time"] = json!("2020-01-01T00:00:00Z");
    task
}

const REVIEWERS: [(&str, &str); 3] = [
    ("agent-reviewer-01", "agent-translator-02"),
    ("agent-reviewer-02", "agent-translator-02"),
    ("agent-reviewer-03", "agent-translator-01"),
];

/// `--data` of a vote for `option`.
fn choice(option: &str) -> String {
    json!({"selected_option": option}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn voting_create_vote_status_and_report_from_a_yaml_task() {
    let server = Server::start().await;
    let mut task = example_task();
    task["social_task"]["enable_live_streaming"] = json!(false);
    let yaml = serde_norway::to_string(&task).expect("YAML");
    let path = server.file("task.yaml", &yaml);

    // In a table (not a terminal here, so asked for), `create` prints the bare id.
    let created = server.agora(&["-o", "table", "voting", "create", path.to_str().unwrap()]).await;
    assert_eq!(created.code, 0, "{}", created.stderr);
    let id = created.stdout.trim().to_owned();
    assert!(id.starts_with("task_"), "{id}");
    server.until(&["voting", "status", &id], |s| s["status"] == "started").await;

    for (i, (voter, option)) in REVIEWERS.iter().enumerate() {
        let answer = server.json(&["voting", "vote", &id, "--as", voter, "--data", &choice(option)]).await;
        assert_eq!(answer, json!({"status": "accepted", "qualified": true}), "vote {i}");
    }
    server.until(&["voting", "status", &id], |s| s["status"] == "complete").await;
    let report = server.json(&["voting", "report", &id]).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]));

    let table = server.agora(&["--output", "table", "voting", "report", &id]).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("winners") && table.stdout.contains("agent-translator-02"), "{}", table.stdout);
    assert!(!table.stdout.trim_start().starts_with('{'), "a table, not JSON: {}", table.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_exit_1_with_the_status_and_message_and_other_failures_have_their_own_codes() {
    let server = Server::start().await;
    // Voting's {"error"}.
    let unknown = server.agora(&["voting", "vote", "task_00000000", "--as", "a", "--data", "{}"]).await;
    assert_eq!(unknown.code, 1, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("HTTP 404") && unknown.stderr.contains("Vote rejected: Invalid social_task_id."), "{}", unknown.stderr);
    assert!(unknown.stdout.is_empty(), "{}", unknown.stdout);
    // Orcade's {"ok": false, "error"}.
    let no_job = server.agora(&["orcade", "job", "no-such-job"]).await;
    assert_eq!(no_job.code, 1, "{}", no_job.stderr);
    assert!(no_job.stderr.contains("HTTP 404"), "{}", no_job.stderr);
    // A vote by someone not on a private task's roster: 403.
    let id = server.started_task("task.json", |_| {}).await;
    let outsider = server.agora(&["voting", "vote", &id, "--as", "agent-outsider", "--data", &choice("agent-translator-01")]).await;
    assert_eq!(outsider.code, 1);
    assert!(outsider.stderr.contains("HTTP 403") && outsider.stderr.contains("not authorized"), "{}", outsider.stderr);

    // Usage: clap's, and JSON that is not an object.
    assert_eq!(server.agora(&["voting", "vote", &id]).await.code, 2);
    let bad = server.agora(&["voting", "vote", &id, "--as", "a", "--data", "[1]"]).await;
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("--data must hold an object"), "{}", bad.stderr);
    let missing = server.agora(&["voting", "create", "/nonexistent/task.json"]).await;
    assert_eq!(missing.code, 2, "{}", missing.stderr);

    // Nobody listening: 3.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let down = run(vec!["--url".into(), format!("http://127.0.0.1:{port}"), "voting".into(), "status".into(), "task_1".into()]).await;
    assert_eq!(down.code, 3, "{}", down.stderr);
    assert!(down.stderr.contains("unreachable"), "{}", down.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_follows_the_live_stream_until_complete_and_prints_the_winners() {
    let server = Server::start().await;
    let id = server.started_task("task.json", |t| t["social_task"]["enable_live_streaming"] = json!(true)).await;
    let args = vec![
        "--url".to_owned(),
        server.url.clone(),
        "-o".into(),
        "table".into(),
        "voting".into(),
        "watch".into(),
        id.clone(),
        "--interval".into(),
        "0.2".into(),
        "--timeout".into(),
        "30".into(),
    ];
    let watcher = tokio::task::spawn_blocking(move || agora_command(&args).output().expect("agora runs"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    for (voter, option) in REVIEWERS {
        server.json(&["voting", "vote", &id, "--as", voter, "--data", &choice(option)]).await;
    }
    let watched = outcome(watcher.await.expect("joined"));
    assert_eq!(watched.code, 0, "{}", watched.stderr);
    assert!(watched.stdout.starts_with("winners: agent-translator-02"), "{}", watched.stdout);
    assert!(!watched.stderr.contains("polling"), "it stayed on the live stream: {}", watched.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn watch_polls_a_public_task_that_does_not_stream_and_prints_its_report_as_json() {
    let server = Server::start().await;
    let id = server
        .started_task("public.json", |t| {
            t["social_task"]["enable_live_streaming"] = json!(false);
            t["social_task"]["access_type"] = json!("public");
            t["social_task"]["org_ids"] = json!([]);
            t["social_task"]["duration"] = json!(2);
        })
        .await;
    let args = vec![
        "--url".to_owned(),
        server.url.clone(),
        "-o".into(),
        "json".into(),
        "voting".into(),
        "watch".into(),
        id.clone(),
        "--interval".into(),
        "0.2".into(),
        "--timeout".into(),
        "30".into(),
    ];
    let watcher = tokio::task::spawn_blocking(move || agora_command(&args).output().expect("agora runs"));
    for voter in ["anyone-1", "anyone-2"] {
        server.json(&["voting", "vote", &id, "--as", voter, "--data", &choice("agent-translator-03")]).await;
    }
    let watched = outcome(watcher.await.expect("joined"));
    assert_eq!(watched.code, 0, "{}", watched.stderr);
    let report: Value = serde_json::from_str(&watched.stdout).expect("the report as JSON");
    assert_eq!(report["winners"], json!(["agent-translator-03"]));

    // A task that never completes: the timeout ends the watch (exit 3).
    let stuck = server.started_task("stuck.json", |t| t["social_task"]["enable_live_streaming"] = json!(false)).await;
    let timed_out = server.agora(&["voting", "watch", &stuck, "--interval", "0.1", "--timeout", "0.5"]).await;
    assert_eq!(timed_out.code, 3, "{}", timed_out.stderr);
    assert!(timed_out.stderr.contains("timed out"), "{}", timed_out.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn orcade_job_bids_close_and_winner() {
    let server = Server::start().await;
    let job: Value = reqwest::Client::new()
        .post(format!("{}/bid-jobs", server.url))
        .header("content-type", "application/json")
        .body(std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/closed-bid-job.json")).unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let job_id = job["data"]["bid_job_id"].as_str().expect("a job id").to_owned();

    let by_tags = server.json(&["orcade", "jobs", "--tags", "translation,fr"]).await;
    assert_eq!(by_tags["data"][0]["bid_job_id"], json!(job_id), "{by_tags}");
    let by_any = server.json(&["orcade", "jobs", "--tags", "nope,fr", "--match", "any"]).await;
    assert_eq!(by_any["data"].as_array().unwrap().len(), 1);
    let by_filter = server.json(&["orcade", "jobs", "--filter", r#"{"bid_job_status": "open"}"#]).await;
    assert_eq!(by_filter["data"].as_array().unwrap().len(), 1);

    // The PQT refuses a low confidence: 409, exit 1.
    let refused =
        server.agora(&["orcade", "bid", &job_id, "--as", "agent-translator-01", "--data", r#"{"price_usd": 90, "confidence": 0.5}"#]).await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stderr.contains("HTTP 409"), "{}", refused.stderr);
    let bid =
        server.json(&["orcade", "bid", &job_id, "--as", "agent-translator-02", "--data", r#"{"price_usd": 120, "confidence": 0.9}"#]).await;
    assert_eq!((bid["ok"].clone(), bid["data"]["bid_subject_id"].clone()), (json!(true), json!("agent-translator-02")));

    // The third never bids: the creator closes the job, and the bids on file are evaluated.
    let closed = server.json(&["orcade", "close", &job_id]).await;
    assert_eq!(closed["ok"], json!(true), "{closed}");
    let bids = server
        .until(&["orcade", "bids", &job_id], |b| b["data"].as_array().is_some_and(|b| b.iter().any(|b| b["is_winner"] == json!(true))))
        .await;
    let winner = bids["data"].as_array().unwrap().iter().find(|b| b["is_winner"] == json!(true)).unwrap();
    assert_eq!(winner["bid_subject_id"], "agent-translator-02");

    let table = server.agora(&["-o", "table", "orcade", "job", &job_id]).await;
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("winner: agent-translator-02"), "{}", table.stdout);
    let again = server.agora(&["orcade", "close", &job_id]).await;
    assert_eq!(again.code, 1, "closing twice is refused: {}", again.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn xchange_subject_task_submit_and_task() {
    let server = Server::start().await;
    let subject = server.file("subject.json", r#"{"subject_id": "agent-summarizer-01", "topics": ["minutes"]}"#);
    let added = server.json(&["xchange", "add-subject", subject.to_str().unwrap()]).await;
    assert_eq!(added["data"]["subject_id"], "agent-summarizer-01");
    let subjects = server.json(&["xchange", "subjects", "--filter", r#"{"topics": {"$in": ["minutes"]}}"#]).await;
    assert_eq!(subjects["data"].as_array().unwrap().len(), 1);

    let task = server.file(
        "task.yml",
        "task_assignment_type: direct\ntask_data:\n  text: Summarise the minutes\ntask_metadata:\n  task_assignment:\n    subject_id: agent-summarizer-01\n",
    );
    let submitted = server.json(&["xchange", "submit", task.to_str().unwrap()]).await;
    let task_id = submitted["data"]["task_id"].as_str().expect("a task id").to_owned();
    let done = server.until(&["xchange", "task", &task_id], |t| t["data"]["task_assignment_status"] == "completed").await;
    assert_eq!(done["data"]["task_output"]["success"], json!(true), "the local delegate's reply: {done}");
    let listed = server.json(&["xchange", "tasks", "--filter", &json!({"task_id": task_id}).to_string()]).await;
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    let table = server.agora(&["-o", "table", "xchange", "tasks"]).await;
    assert!(table.stdout.contains(&task_id) && table.stdout.contains("completed"), "{}", table.stdout);

    let duplicate = server.agora(&["xchange", "add-subject", subject.to_str().unwrap()]).await;
    assert_eq!(duplicate.code, 1);
    assert!(duplicate.stderr.contains("HTTP 409"), "{}", duplicate.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn dead_letters_are_listed_and_redriven() {
    let server = Server::start().await;
    let listed = server.json(&["dead-letters", "list"]).await;
    assert_eq!(listed, json!({"dead_letters": []}));
    let redriven = server.json(&["dead-letters", "redrive", "--all"]).await;
    assert_eq!(redriven, json!({"redriven": 0, "work_ids": []}));
    let unknown = server.agora(&["dead-letters", "redrive", "w-none"]).await;
    assert_eq!(unknown.code, 1);
    assert!(unknown.stderr.contains("HTTP 404") && unknown.stderr.contains("w-none"), "{}", unknown.stderr);
    let bad_queue = server.agora(&["dead-letters", "list", "--queue", ""]).await;
    assert_eq!(bad_queue.code, 1, "{}", bad_queue.stderr);
}
