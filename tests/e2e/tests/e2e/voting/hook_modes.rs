//! Every hook mode end to end: whole voting tasks through the local server over HTTP, with
//! registries, workflow APIs, external functions and a Lambda endpoint played by real HTTP
//! servers on loopback, and the §4 reference implementations run unchanged by the policy
//! runner (infra/local/functions). Also the failure rules: a PQT that fails disqualifies the
//! vote (the reason in the log); an evaluation hook that fails leaves the task started with no
//! report until a retry completes it.

use agora_e2e::*;
use agora_hooks_remote::Signer;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// ---- log capture: the tests read the log lines the server writes --------------------------

#[derive(Clone)]
struct LogBuf(Arc<Mutex<Vec<u8>>>);

impl Write for LogBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn log_buffer() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let writer = LogBuf(buf.clone());
        // Warnings and errors, each with the spans it is in (and their ids): every span is
        // enabled, so that the flows' ids are on the line without repeating them by hand.
        use tracing_subscriber::filter::{filter_fn, LevelFilter};
        use tracing_subscriber::layer::SubscriberExt;
        use tracing_subscriber::util::SubscriberInitExt;
        use tracing_subscriber::Layer;
        let warnings = filter_fn(|m| m.is_span() || *m.level() <= LevelFilter::WARN);
        let lines = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(move || writer.clone()).with_filter(warnings);
        let _ = tracing_subscriber::registry().with(lines).try_init();
        buf
    })
}

/// The log lines that mention `needle`.
fn log_lines(needle: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(&log_buffer().lock().unwrap_or_else(|p| p.into_inner())).into_owned();
    text.lines().filter(|l| l.contains(needle)).map(str::to_owned).collect()
}

// ---- helpers ---------------------------------------------------------------------------------

fn local_functions() -> PathBuf {
    repo_root().join("infra/local")
}

fn function_dir(root: &Path, id: &str) -> String {
    root.join("functions").join(id.replace(':', "@")).display().to_string()
}

/// A public task due now whose hooks are the given specs.
fn task_with(duration: i64, invitation: Value, pqt: Value, evaluation: Value, tie_breaker: Value, post_award: Value) -> Value {
    let mut r = public_request(duration);
    r["subject_spec"]["voting_request"] = invitation;
    r["evaluation_spec"]["voting_pqt"] = pqt;
    r["evaluation_spec"]["evaluation"] = evaluation;
    r["evaluation_spec"]["tie_breaker"] = tie_breaker;
    r["evaluation_spec"]["post_award"] = post_award;
    r
}

async fn report_of(server: &Server, id: &str) -> Value {
    server.wait_for_status(id, "complete", WAIT).await;
    let (status, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(status, 200);
    report
}

/// Votes one after the other, a few milliseconds apart so that "earliest" is well defined.
async fn vote_all(server: &Server, id: &str, ballots: &[(&str, &str)]) -> Vec<bool> {
    let mut verdicts = Vec::new();
    for (voter, option) in ballots {
        let (status, body) = server.vote(id, voter, json!({"selected_option": option})).await;
        assert_eq!(status, 200, "{body}");
        verdicts.push(body["qualified"].as_bool().expect("qualified"));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    verdicts
}

fn goal() -> Value {
    json!({"objective": "Choose the lead translator for the Q4 handbook"})
}

fn verify(signer: &Signer, r: &StubRequest) -> bool {
    let h = |k: &str| r.headers.get(k).cloned().unwrap_or_default();
    h("webhook-id").starts_with("msg_") && signer.verify(&h("webhook-id"), &h("webhook-timestamp"), &r.body, &h("webhook-signature"))
}

// ---- the modes -------------------------------------------------------------------------------

/// The §4 reference implementations, unchanged, through the local registry and the policy
/// runner: stateless and stateful registry functions and DSL workflows (one of two modules).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reference_implementations_run_through_the_local_registry() {
    let server = Server::start_with(|c| c.functions_dir = local_functions()).await;
    let (status, entry) = server.get("/functions/voting-invite-builder:1.0-stable").await;
    assert_eq!(status, 200, "{entry}");
    assert_eq!(entry["function_name"], "voting-invite-builder");

    let request = task_with(
        3,
        json!({"mode": "function", "function_id": "voting-invite-builder:1.0-stable"}),
        json!({"mode": "function", "function_id": "voting-pqt-option-on-ballot:1.0"}),
        json!({"mode": "dsl", "workflow_id": "voting-plurality-audited:1.0"}),
        json!({"mode": "function", "function_id": "voting-tie-breaker-earliest-vote:1.0"}),
        json!({"mode": "dsl", "workflow_id": "voting-post-award:1.0"}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;

    // Invitation creator (stateless job): §4.2's output, with the vote endpoint from its settings.
    let invite = server.inbox("agent-translator-01").await;
    assert_eq!(
        invite[0]["event_data"]["custom_data"],
        json!({
            "prompt": "Please vote: Lead translator, Q4 handbook",
            "ballot_schema": {"selected_option": TRANSLATORS},
            "vote_endpoint": "http://127.0.0.1:8080/submit-vote",
        })
    );

    // PQT (stateful deployment): an option not on the ballot is disqualified; then a three-way tie.
    let verdicts = vote_all(
        &server,
        &id,
        &[
            ("voter-x", "agent-translator-09"),
            ("voter-a", "agent-translator-02"),
            ("voter-b", "agent-translator-03"),
            ("voter-c", "agent-translator-01"),
        ],
    )
    .await;
    assert_eq!(verdicts, [false, true, true, true]);

    let report = report_of(&server, &id).await;
    let outputs = &report["dsl_outputs"];
    // Choice evaluation: a two-module workflow (plurality, then an audit reading previous_outputs).
    assert_eq!(outputs["choice_evaluation_dsl"]["winners"], json!(TRANSLATORS));
    assert_eq!(
        outputs["choice_evaluation_dsl"]["tally"],
        json!({"agent-translator-02": 1, "agent-translator-03": 1, "agent-translator-01": 1})
    );
    assert_eq!(
        outputs["choice_evaluation_dsl"]["audit"],
        json!({"source": "plurality", "modules_run": ["plurality"], "votes_counted": 3, "auditor": "audit"})
    );
    // Tie-breaker (stateful): the earliest qualified vote wins.
    assert_eq!(outputs["tie_breaker_dsl"], json!({"winner": "agent-translator-02", "rule": "earliest_vote"}));
    // Post-award (DSL, one module).
    let payload = json!({"decision": "assigned", "assigned_to": "agent-translator-02", "goal": goal()});
    assert_eq!(outputs["post_awarding_dsl"], payload);
    assert_eq!(report["post_award_payload"], payload);
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
}

/// `mode: "function"` against a registry played by an HTTP server: an external function
/// (signed), a stateful deployment (created once, even for concurrent first calls) and a
/// stateless job with the spec's parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn function_modes_against_a_registry_server() {
    let signer = Signer::from_secret(SECRET).expect("secret");
    let external_signer = signer.clone();
    let external = StubServer::start(Duration::ZERO, move |r| {
        if !verify(&external_signer, r) {
            return (401, vec![], json!({"error": "bad signature"}).to_string().into_bytes());
        }
        let votes = r.json["user_input"]["votes"].as_array().cloned().unwrap_or_default();
        let mut tally = serde_json::Map::new();
        for v in &votes {
            let o = v["vote_data"]["selected_option"].as_str().unwrap_or_default().to_owned();
            let n = tally.get(&o).and_then(Value::as_i64).unwrap_or(0);
            tally.insert(o, json!(n + 1));
        }
        let top = tally.values().filter_map(Value::as_i64).max().unwrap_or(0);
        let mut winners: Vec<String> = tally.iter().filter(|(_, n)| n.as_i64() == Some(top)).map(|(k, _)| k.clone()).collect();
        winners.sort();
        (200, vec![], json!({"data": {"winners": winners, "tally": tally, "signed": true}}).to_string().into_bytes())
    })
    .await;
    let external_url = format!("{}/evaluate", external.url);
    let registry = StubServer::json(move |r| {
        let p = r.path.as_str();
        match (r.method.as_str(), p) {
            ("GET", "/functions/ext-eval:1") => {
                (200, json!({"function_name": "ext-eval", "is_external": true, "external_function_url": external_url}))
            }
            ("GET", "/functions/stateful-pqt:1") => {
                (200, json!({"data": {"function_name": "stateful-pqt", "is_external": false, "is_stateful": true}}))
            }
            ("GET", "/functions/stateless-post:1") => (200, json!({"function_name": "stateless-post", "is_stateful": false})),
            ("GET", _) => (404, json!({"error": "unknown function"})),
            ("POST", p) if p.starts_with("/function/deployments/create/") => (201, json!({"data": {"created": true}})),
            ("POST", p) if p.starts_with("/function/call_function/") => {
                let choice = r.json["user_input"]["vote_data"]["selected_option"].as_str().unwrap_or_default();
                let ok = choice.starts_with("agent-translator-0") && r.json["function_id"] == "stateful-pqt:1";
                (200, json!({"data": {"job_output_data": {"qualified": ok, "deployment": p}}}))
            }
            ("POST", p) if p.starts_with("/function/call_as_job/") => {
                let winners = r.json["inputs"]["user_input"]["winners"].clone();
                (200, json!({"data": {"job_output_data": {"assigned_to": winners[0], "parameters": r.json["parameters"], "executor": p}}}))
            }
            _ => (404, json!({"error": "no route"})),
        }
    })
    .await;
    let registry_url = registry.url.clone();
    let server = Server::start_with(|c| {
        c.hooks.functions_registry_url = Some(registry_url);
        c.hooks.executor_id = Some("executor-7".into());
        c.hooks.signing_secret = Some(SECRET.into());
    })
    .await;

    let request = task_with(
        4,
        json!({}),
        json!({"mode": "function", "function_id": "stateful-pqt:1"}),
        json!({"mode": "function", "function_id": "ext-eval:1"}),
        json!({}),
        json!({"mode": "function", "function_id": "stateless-post:1", "parameters": {"team": "fr"}}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    // Four first votes at once: the deployment is created once.
    let votes = ["agent-translator-01", "agent-translator-02", "agent-translator-02", "agent-translator-03"];
    let sends = votes.iter().enumerate().map(|(i, o)| {
        let server = &server;
        let id = &id;
        async move { server.vote(id, &format!("voter-{i}"), json!({"selected_option": o})).await }
    });
    for (status, body) in futures::future::join_all(sends).await {
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": true})));
    }
    let report = report_of(&server, &id).await;

    let deployment = format!("stateful-pqt-{id}");
    let created = registry.received("/function/deployments/create/");
    assert_eq!(created.len(), 1, "one deployment for four concurrent first calls");
    assert_eq!(created[0].path, format!("/function/deployments/create/{deployment}"));
    assert_eq!(created[0].json, json!({"function_id": "stateful-pqt:1"}));
    assert_eq!(registry.received("/function/call_function/").len(), 4);
    assert_eq!(registry.received("/functions/stateless-post:1").len(), 1);

    let outputs = &report["dsl_outputs"];
    assert_eq!(outputs["choice_evaluation_dsl"]["winners"], json!(["agent-translator-02"]));
    assert_eq!(outputs["choice_evaluation_dsl"]["tally"].as_object().map(|t| t.len()), Some(3));
    assert_eq!(outputs["choice_evaluation_dsl"]["tally"]["agent-translator-02"], 2);
    assert_eq!(outputs["choice_evaluation_dsl"]["signed"], true, "the external function verified the signature");
    assert_eq!(
        outputs["post_awarding_dsl"],
        json!({"assigned_to": "agent-translator-02", "parameters": {"team": "fr"}, "executor": "/function/call_as_job/executor-7"})
    );
    let job = &registry.received("/function/call_as_job/")[0].json;
    assert_eq!(job["function_id"], "stateless-post:1");
    assert_eq!(job["inputs"]["addons"], json!({"social_task_id": id}));
    let ext = external.requests.lock().unwrap()[0].clone();
    assert!(verify(&signer, &ext), "webhook-id, webhook-timestamp and webhook-signature are sent");
}

/// `mode: "dsl"` against a workflow API played by an HTTP server: a two-module PQT whose
/// second module is a .zip fetched over HTTP; a workflow with a cycle fails the evaluation.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dsl_workflows_from_a_workflow_api_server() {
    let dir = temp_dir("dsl");
    let gate = dir.join("gate");
    std::fs::create_dir_all(&gate).unwrap();
    std::fs::write(
        gate.join("function.py"),
        r#"
class AIOSv1PolicyRule:
    def __init__(self, rule_id, settings, parameters):
        self.rule_id = rule_id
        self.blocked = set(settings.get("blocked", []))
        self.seen = 0

    def eval(self, parameters, input_data, context):
        self.seen += 1
        ballot = input_data["previous_outputs"]["ballot"]
        voter = input_data["addons"]["submitter_subject_id"]
        ok = bool(ballot["qualified"]) and voter not in self.blocked
        return {"qualified": ok, "ballot": ballot, "voter": voter, "seen": self.seen, "context": context}
"#,
    )
    .unwrap();
    let zip = dir.join("gate.zip");
    let python = agora_hooks_remote::HooksConfig::default().python;
    let made = std::process::Command::new(&python)
        .arg("-c")
        .arg(format!(
            "import shutil; shutil.make_archive({:?}, 'zip', {:?})",
            zip.with_extension("").display().to_string(),
            gate.display().to_string()
        ))
        .status()
        .expect("python runs");
    assert!(made.success());
    let zip_bytes = std::fs::read(&zip).unwrap();
    let root = local_functions();
    let ballot_path = function_dir(&root, "voting-pqt-option-on-ballot:1.0");
    let plurality_path = function_dir(&root, "voting-plurality:1.0");
    let post_path = function_dir(&root, "voting-post-award:1.0");

    let api = StubServer::start(Duration::ZERO, move |r| {
        let base = r.headers.get("host").map(|h| format!("http://{h}")).unwrap_or_default();
        let ok = |v: Value| (200, vec![], v.to_string().into_bytes());
        match r.path.as_str() {
            "/code/gate.zip" => (200, vec![("content-type".into(), "application/zip".into())], zip_bytes.clone()),
            "/workflows/pqt-two:1" => ok(json!({"data": {
                "globalSettings": {"blocked": ["voter-blocked"]}, "globalParameters": {},
                "modules": {
                    "gate": {"codePath": format!("{base}/code/gate.zip"), "settings": {}, "parameters": {}},
                    "ballot": {"codePath": ballot_path, "settings": {}, "parameters": {}}
                },
                "graph": {"ballot": ["gate"]}
            }})),
            "/workflows/plurality:1" => ok(json!({"data": {"modules": {"count": {"codePath": plurality_path}}, "graph": {}}})),
            "/workflows/post:1" => ok(json!({"data": {"modules": {"award": {"codePath": post_path}}}})),
            "/workflows/cyclic:1" => {
                ok(json!({"data": {"modules": {"a": {"codePath": "/x"}, "b": {"codePath": "/y"}}, "graph": {"a": ["b"], "b": ["a"]}}}))
            }
            _ => (404, vec![], json!({"error": "unknown"}).to_string().into_bytes()),
        }
    })
    .await;
    let api_url = api.url.clone();
    let server = Server::start_with(|c| c.hooks.workflows_api_url = Some(api_url)).await;

    let request = task_with(
        2,
        json!({}),
        json!({"mode": "dsl", "workflow_id": "pqt-two:1"}),
        json!({"mode": "dsl", "workflow_id": "plurality:1"}),
        json!({}),
        json!({"mode": "dsl", "workflow_id": "post:1"}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let verdicts = vote_all(
        &server,
        &id,
        &[
            ("voter-blocked", "agent-translator-01"),
            ("voter-1", "nowhere"),
            ("voter-2", "agent-translator-03"),
            ("voter-3", "agent-translator-03"),
        ],
    )
    .await;
    assert_eq!(verdicts, [false, false, true, true]);
    let report = report_of(&server, &id).await;
    assert_eq!(
        report["dsl_outputs"]["choice_evaluation_dsl"],
        json!({"winners": ["agent-translator-03"], "tally": {"agent-translator-03": 2}})
    );
    assert_eq!(
        report["dsl_outputs"]["post_awarding_dsl"],
        json!({"decision": "assigned", "assigned_to": "agent-translator-03", "goal": goal()})
    );
    assert_eq!(api.received("/workflows/pqt-two:1").len(), 1, "workflows are cached");
    assert_eq!(api.received("/code/gate.zip").len(), 1, "code is fetched once");

    // A second task shares the PQT workflow (and its instances); its evaluation workflow has a cycle.
    let id2 = server
        .create(&task_with(
            1,
            json!({}),
            json!({"mode": "dsl", "workflow_id": "pqt-two:1"}),
            json!({"mode": "dsl", "workflow_id": "cyclic:1"}),
            json!({}),
            json!({"mode": "dsl", "workflow_id": "post:1"}),
        ))
        .await;
    server.wait_for_status(&id2, "started", WAIT).await;
    assert_eq!(vote_all(&server, &id2, &[("voter-9", "agent-translator-01")]).await, [true]);
    // The evaluation workflow has a cycle: no report, the task stays started, the cause is logged.
    let deadline = Instant::now() + WAIT;
    while log_lines(&id2).iter().all(|l| !l.contains("cycle")) {
        assert!(Instant::now() < deadline, "the cycle is logged");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.status_of(&id2).await.as_deref(), Some("started"));
    assert_eq!(server.get(&format!("/get-report/{id2}")).await, (200, json!({})));
    let _ = std::fs::remove_dir_all(dir);
}

/// `mode: "http"` (signed) and `mode: "builtin"` together.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_hooks_are_signed_and_builtin_rules_run_in_process() {
    let signer = Signer::from_secret(SECRET).unwrap();
    let pqt_signer = signer.clone();
    let pqt = StubServer::start(Duration::ZERO, move |r| {
        let signed = verify(&pqt_signer, r);
        let on_ballot = r.json["user_input"]["subject_spec"]["voting_options_map"]
            .get(r.json["user_input"]["vote_data"]["selected_option"].as_str().unwrap_or(""))
            .is_some();
        (200, vec![], json!({"qualified": signed && on_ballot, "signed": signed, "params": r.json["parameters"]}).to_string().into_bytes())
    })
    .await;
    let post = StubServer::json(|r| (200, json!({"data": {"job_output_data": {"winners_seen": r.json["user_input"]["winners"]}}}))).await;
    let server = Server::start_with(|c| c.hooks.signing_secret = Some(SECRET.into())).await;
    let request = task_with(
        3,
        json!({}),
        json!({"mode": "http", "url": format!("{}/pqt", pqt.url), "parameters": {"strict": true}}),
        json!({"mode": "builtin", "name": "plurality"}),
        json!({"mode": "builtin", "name": "lexicographic"}),
        json!({"mode": "http", "url": format!("{}/post", post.url)}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let verdicts = vote_all(
        &server,
        &id,
        &[("a", "agent-translator-03"), ("b", "agent-translator-02"), ("c", "agent-translator-09"), ("d", "agent-translator-01")],
    )
    .await;
    assert_eq!(verdicts, [true, true, false, true]);
    let report = report_of(&server, &id).await;
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"]["winners"], json!(TRANSLATORS));
    assert_eq!(report["dsl_outputs"]["tie_breaker_dsl"]["winner"], "agent-translator-01");
    assert_eq!(report["dsl_outputs"]["post_awarding_dsl"], json!({"winners_seen": ["agent-translator-01"]}));
    let first = &pqt.requests.lock().unwrap()[0];
    assert!(verify(&signer, first));
    assert_eq!(first.json["parameters"], json!({"strict": true}));
    assert_eq!(first.json["addons"], json!({"submitter_subject_id": "a"}));
}

/// `mode: "lambda"` against a local Lambda-API-compatible endpoint
/// (`POST /2015-03-31/functions/{name}/invocations`), reached by the real aws-sdk-lambda client
/// through its endpoint override.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lambda_mode_against_a_local_lambda_endpoint() {
    let endpoint = StubServer::start(Duration::ZERO, |r| {
        let decoded = percent_decode(&r.path);
        let name = decoded.trim_start_matches("/2015-03-31/functions/").trim_end_matches("/invocations");
        let name = name.rsplit(':').next().unwrap_or(name);
        let ui = &r.json["user_input"];
        match name {
            "pqt-fn" => {
                (200, vec![], json!({"qualified": ui["vote_data"]["selected_option"] != "agent-translator-09"}).to_string().into_bytes())
            }
            "eval-fn" => {
                (200, vec![], json!({"winner": ui["votes"][0]["vote_data"]["selected_option"], "via": "lambda"}).to_string().into_bytes())
            }
            "post-fn" => (
                200,
                vec![],
                json!({"assigned_to": ui["winners"][0], "auth": r.headers.contains_key("authorization")}).to_string().into_bytes(),
            ),
            "broken-fn" => (
                200,
                vec![("x-amz-function-error".into(), "Unhandled".into())],
                json!({"errorMessage": "boom", "errorType": "ValueError"}).to_string().into_bytes(),
            ),
            _ => (
                404,
                vec![("x-amzn-errortype".into(), "ResourceNotFoundException".into())],
                json!({"message": "Function not found"}).to_string().into_bytes(),
            ),
        }
    })
    .await;
    let url = endpoint.url.clone();
    let server = Server::start_with(|c| c.hooks.lambda_endpoint_url = Some(url)).await;
    let request = task_with(
        2,
        json!({}),
        json!({"mode": "lambda", "function_name": "pqt-fn"}),
        json!({"mode": "lambda", "function_name": "eval-fn"}),
        json!({}),
        json!({"mode": "lambda", "function_name": "arn:aws:lambda:us-east-1:123456789012:function:post-fn"}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let verdicts =
        vote_all(&server, &id, &[("a", "agent-translator-09"), ("b", "agent-translator-02"), ("c", "agent-translator-01")]).await;
    assert_eq!(verdicts, [false, true, true]);
    let report = report_of(&server, &id).await;
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"], json!({"winner": "agent-translator-02", "via": "lambda"}));
    assert_eq!(
        report["dsl_outputs"]["post_awarding_dsl"],
        json!({"assigned_to": "agent-translator-02", "auth": true}),
        "SigV4-signed invoke"
    );

    // A function error and an unknown function disqualify the vote.
    for (fn_name, expect) in [("broken-fn", "boom"), ("missing-fn", "404")] {
        let mut r = public_request(100);
        r["evaluation_spec"]["voting_pqt"] = json!({"mode": "lambda", "function_name": fn_name});
        let id = server.create(&r).await;
        server.wait_for_status(&id, "started", WAIT).await;
        assert_eq!(vote_all(&server, &id, &[("a", "agent-translator-01")]).await, [false]);
        let lines = log_lines(&id);
        assert!(lines.iter().any(|l| l.contains(expect) && l.contains("mode=\"lambda\"")), "{fn_name}: {lines:?}");
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

// ---- failures ----------------------------------------------------------------------------------

/// A PQT that times out, answers 500, answers non-JSON or lacks `qualified`: the vote is stored
/// with `qualified = false` and the reason is in the log.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pqt_failures_disqualify_the_vote_and_log_the_reason() {
    log_buffer();
    let slow = HookServer::start(Duration::from_secs(3), |_| (200, json!({"qualified": true}).to_string())).await;
    let status_500 = HookServer::start(Duration::ZERO, |_| (500, "boom".into())).await;
    let not_json = HookServer::start(Duration::ZERO, |_| (200, "<html>hello</html>".into())).await;
    let no_verdict = HookServer::start(Duration::ZERO, |_| (200, json!({"reason": "forgot the verdict"}).to_string())).await;
    let server = Server::start_with(|c| c.hook_timeout_ms = 500).await;

    for (hook, reason) in
        [(&slow, "timed out after 500ms"), (&status_500, "HTTP 500: boom"), (&not_json, "not JSON"), (&no_verdict, "no \"qualified\"")]
    {
        let mut r = public_request(100);
        r["evaluation_spec"]["voting_pqt"] = json!({"mode": "http", "url": hook.url});
        let id = server.create(&r).await;
        server.wait_for_status(&id, "started", WAIT).await;
        let started = Instant::now();
        let (status, body) = server.vote(&id, "voter", json!({"selected_option": "agent-translator-01"})).await;
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": false})), "{reason}");
        assert!(started.elapsed() < Duration::from_millis(2500), "the time limit holds: the hook takes 3 s");
        let (_, votes) = server.post("/generic-query/votes", &json!({"social_task_id": id})).await;
        assert_eq!(votes.as_array().map(Vec::len), Some(1), "the vote is stored");
        assert_eq!(votes[0]["qualified"], false);
        let lines = log_lines(&id);
        assert!(
            lines.iter().any(|l| l.contains(reason) && l.contains("mode=\"http\"") && l.contains("hook=\"voting_pqt_dsl\"")),
            "{reason}: {lines:?}"
        );
        assert!(lines.iter().any(|l| l.contains("PQT failed; vote disqualified")), "{lines:?}");
    }
}

/// A policy that runs over the time limit disqualifies that vote and does not wedge the runner:
/// the next vote is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stuck_policy_times_out_and_the_runner_recovers() {
    log_buffer();
    let dir = temp_dir("slow-fn");
    let f = dir.join("functions").join("slow-pqt@1");
    std::fs::create_dir_all(&f).unwrap();
    std::fs::write(f.join("entry.json"), r#"{"function_name": "slow-pqt", "is_stateful": true}"#).unwrap();
    std::fs::write(
        f.join("function.py"),
        r#"
import time

class AIOSv1PolicyRule:
    def __init__(self, rule_id, settings, parameters):
        pass

    def eval(self, parameters, input_data, context):
        time.sleep(input_data["user_input"]["vote_data"].get("sleep", 0))
        return {"qualified": True}
"#,
    )
    .unwrap();
    let root = dir.clone();
    let server = Server::start_with(move |c| {
        c.functions_dir = root;
        c.hook_timeout_ms = 1500;
    })
    .await;
    let mut r = public_request(100);
    r["evaluation_spec"]["voting_pqt"] = json!({"mode": "function", "function_id": "slow-pqt:1"});
    let id = server.create(&r).await;
    server.wait_for_status(&id, "started", WAIT).await;
    assert_eq!(server.vote(&id, "v1", json!({"selected_option": "agent-translator-01"})).await.1["qualified"], true);
    let started = Instant::now();
    assert_eq!(server.vote(&id, "v2", json!({"selected_option": "agent-translator-01", "sleep": 30})).await.1["qualified"], false);
    assert!(started.elapsed() < Duration::from_secs(5));
    let mut next = false;
    for i in 0..20 {
        next = server.vote(&id, &format!("v3-{i}"), json!({"selected_option": "agent-translator-01"})).await.1["qualified"] == true;
        if next {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(next, "the runner answers again after a stuck call");
    assert!(log_lines(&id).iter().any(|l| l.contains("timed out") && l.contains("mode=\"function\"")));
    let _ = std::fs::remove_dir_all(dir);
}

/// An evaluation hook that fails (500 once) leaves the task started with no report; the queue's
/// retry then completes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failing_evaluation_hook_leaves_the_task_started_until_a_retry() {
    log_buffer();
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = calls.clone();
    let evaluation = StubServer::json(move |_| {
        if counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            (500, json!({"error": "warming up"}))
        } else {
            (200, json!({"winners": ["agent-translator-02"], "tally": {"agent-translator-02": 1}}))
        }
    })
    .await;
    let server = Server::start_with(|c| c.retry_delay_ms = 1500).await;
    let mut r = public_request(1);
    r["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": evaluation.url});
    let id = server.create(&r).await;
    server.wait_for_status(&id, "started", WAIT).await;
    assert_eq!(vote_all(&server, &id, &[("v", "agent-translator-02")]).await, [true]);

    let deadline = Instant::now() + WAIT;
    while calls.load(std::sync::atomic::Ordering::SeqCst) < 1 {
        assert!(Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.status_of(&id).await.as_deref(), Some("started"), "no report after the failure");
    assert_eq!(server.get(&format!("/get-report/{id}")).await, (200, json!({})));
    assert!(log_lines(&id).iter().any(|l| l.contains("HTTP 500") && l.contains("choice_evaluation_dsl")));

    let report = report_of(&server, &id).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// A mode whose setting is missing is refused at creation, naming the setting.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn modes_without_their_setting_are_refused_at_creation() {
    let server = Server::start().await;
    for (spec, setting) in [
        (json!({"mode": "function", "function_id": "f:1"}), "FUNCTIONS_REGISTRY_URL"),
        (json!({"mode": "dsl", "workflow_id": "w:1"}), "WORKFLOWS_API_URL"),
        (json!({"mode": "lambda", "function_name": "f"}), "AWS_REGION"),
    ] {
        let mut r = public_request(3);
        r["evaluation_spec"]["voting_pqt"] = spec;
        let (status, body) = server.post("/submit-social-choice-task", &r).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["error"].as_str().unwrap_or_default().contains(setting), "{body}");
    }
}

/// DSL modules run by the policy-runner Lambda (functions/policy-runner/handler.py) instead of
/// a local process: a local Lambda endpoint runs the real handler in Python for each invoke.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dsl_modules_run_in_the_policy_runner_lambda() {
    let dir = temp_dir("policy-lambda");
    let root = repo_root();
    std::fs::copy(root.join("functions/policy-runner/handler.py"), dir.join("handler.py")).unwrap();
    std::fs::copy(root.join("shared/hooks-remote/python/policy_runner.py"), dir.join("policy_runner.py")).unwrap();
    let python = agora_hooks_remote::HooksConfig::default().python;
    let (lambda_dir, cache) = (dir.clone(), dir.join("cache"));
    let endpoint = StubServer::start(Duration::ZERO, move |r| {
        assert!(r.path.contains("/functions/policy-runner/invocations"), "{}", r.path);
        let mut child = std::process::Command::new(&python)
            .arg("-c")
            .arg("import json, sys; import handler; print(json.dumps(handler.handler(json.load(sys.stdin), None)))")
            .current_dir(&lambda_dir)
            .env("AGORA_POLICY_CACHE_DIR", &cache)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        child.stdin.take().expect("stdin").write_all(&r.body).expect("event written");
        let out = child.wait_with_output().expect("handler answers");
        (200, vec![], out.stdout)
    })
    .await;
    let url = endpoint.url.clone();
    let server = Server::start_with(move |c| {
        c.functions_dir = local_functions();
        c.hooks.lambda_endpoint_url = Some(url);
        c.hooks.policy_runner_lambda = Some("policy-runner".into());
    })
    .await;
    let request = task_with(
        2,
        json!({}),
        json!({"mode": "dsl", "workflow_id": "voting-pqt-option-on-ballot:1.0"}),
        json!({"mode": "dsl", "workflow_id": "voting-plurality-audited:1.0"}),
        json!({}),
        json!({"mode": "dsl", "workflow_id": "voting-post-award:1.0"}),
    );
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let verdicts =
        vote_all(&server, &id, &[("a", "agent-translator-07"), ("b", "agent-translator-01"), ("c", "agent-translator-01")]).await;
    assert_eq!(verdicts, [false, true, true]);
    let report = report_of(&server, &id).await;
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"]["winners"], json!(["agent-translator-01"]));
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"]["audit"]["modules_run"], json!(["plurality"]));
    assert_eq!(report["dsl_outputs"]["post_awarding_dsl"]["assigned_to"], "agent-translator-01");
    assert_eq!(
        endpoint.received("/2015-03-31/functions/policy-runner/invocations").len(),
        6,
        "3 PQT + 2 evaluation modules + 1 post-award"
    );
    let _ = std::fs::remove_dir_all(dir);
}
