//! Each assignment mode of §4 from `POST /tasks` to a final status, over HTTP: delegate systems,
//! selectors and acceptance functions played by real HTTP servers (or the local delegate and its
//! inbox), bidding through this server's Orcade with a delegate stub that plays the agents, and
//! the two time limits.

use super::*;
use agora_e2e::HookServer;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_direct_task_completes_with_the_delegates_whole_reply() {
    let delegate = delegate_stub(Duration::ZERO).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let task_data = json!({
        "instruction": "summarize this document",
        "doc_url": "https://example.org/q3.pdf",
        "pages": [1, 2.5, {"x": null, "deep": [true, "é ✓"]}],
    });
    let stored = post_task(&server, &direct_task("agent-summarizer-01", task_data.clone())).await;
    let id = id_of(&stored);
    assert!(!id.trim().is_empty(), "a generated task_id: {stored}");
    assert_eq!(stored["task_assignment_status"], json!("pending"), "the snapshot before assignment: {stored}");
    assert_eq!((&stored["task_data"], &stored["task_output"]), (&task_data, &json!({})), "{stored}");
    assert!(stored["taski_creation_time"].as_str().is_some_and(|t| t.starts_with("20")), "{stored}");

    let output = final_output(&server, &id, "completed").await;
    let calls = delegate_calls(&delegate);
    assert_eq!(calls.len(), 1, "one round trip: {calls:?}");
    let call = &calls[0];
    assert_eq!(keys(call), ["session_id", "subject_id", "task_data", "task_id"], "{call}");
    assert_eq!(call["task_id"], json!(id), "the delegate's task_id is the task's");
    assert_eq!(call["subject_id"], json!("agent-summarizer-01"));
    assert_eq!(call["task_data"], task_data, "task_data verbatim");
    assert!(call["session_id"].as_str().is_some_and(|s| !s.is_empty()), "{call}");
    assert_eq!(output, delegate_reply(call), "task_output is the delegate's whole reply");

    let stored = task(&server, &id).await;
    assert_eq!(stored["task_assignment_status"], json!("completed"));
    assert_eq!(stored["task_output"], output);
    assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!("agent-summarizer-01"), "{stored}");
    assert_eq!(stored["task_metadata"]["task_assignment"], json!({"subject_id": "agent-summarizer-01"}));
    assert!(server.inbox("agent-summarizer-01").await.is_empty(), "a configured delegate system, not the inbox");

    // Any JSON but null is task_data; each round trip has a session of its own.
    let second = id_of(&post_task(&server, &direct_task("agent-summarizer-01", json!("just a string"))).await);
    let output = final_output(&server, &second, "completed").await;
    let calls = delegate_calls(&delegate);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!((&calls[1]["task_id"], &calls[1]["task_data"]), (&json!(second), &json!("just a string")));
    assert_ne!(calls[0]["session_id"], calls[1]["session_id"], "a new session_id for each call");
    assert_eq!(output, delegate_reply(&calls[1]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_direct_task_to_the_local_delegate_lands_in_the_subjects_inbox() {
    let server = Server::start().await;
    // Direct mode sends to any subject_id, registered here or not.
    let task_data = json!({"doc": "q3.pdf"});
    let id = id_of(&post_task(&server, &direct_task("agent-unregistered", task_data.clone())).await);
    let output = final_output(&server, &id, "completed").await;
    let inbox = inbox_for(&server, "agent-unregistered", &id).await;
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    assert_eq!(inbox[0]["task_data"], task_data);
    assert_eq!(output["success"], json!(true), "{output}");
    assert_eq!(output["ack"]["task_id"], json!(id), "{output}");
    assert_eq!(output["ack"]["session_id"], inbox[0]["session_id"], "the reply of this very call");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn function_mode_builtins_choose_first_by_capability_and_in_turn() {
    let server = Server::start().await;
    // Registered out of order: the selectors see them sorted by subject_id.
    post_subject(&server, &json!({"subject_id": "fn-c", "subject_capabilities": {"ocr": true, "gpu": 1}})).await;
    post_subject(&server, &json!({"subject_id": "fn-a", "subject_capabilities": {"ocr": false}})).await;
    post_subject(&server, &json!({"subject_id": "fn-b", "subject_capabilities": {"ocr": "yes", "gpu": 0}})).await;
    let subjects = ["fn-a", "fn-b", "fn-c"];

    let mut cases = vec![
        ("builtin:first-subject", json!({}), "fn-a"),
        ("builtin:by-capability", json!({"require": ["ocr"]}), "fn-b"),
        ("builtin:by-capability", json!({"require": ["ocr", "gpu"]}), "fn-c"),
    ];
    for want in ["fn-a", "fn-b", "fn-c", "fn-a"] {
        cases.push(("builtin:round-robin", json!({}), want));
    }
    for (n, (function_id, parameters, want)) in cases.into_iter().enumerate() {
        let task_data = json!({"n": n});
        let stored = post_task(&server, &function_task(function_id, parameters.clone(), task_data.clone())).await;
        let id = id_of(&stored);
        assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!(want), "{function_id} {parameters}: {stored}");
        assert_eq!(final_output(&server, &id, "completed").await["success"], json!(true));
        for subject in subjects {
            let got = inbox_for(&server, subject, &id).await;
            assert_eq!(got.len(), usize::from(subject == want), "{function_id} {parameters}: {subject}'s inbox {got:?}");
        }
        assert_eq!(inbox_for(&server, want, &id).await[0]["task_data"], task_data);
    }

    // No subject has the capability: a 400, the task stored failed, nobody told.
    let request = {
        let mut r = function_task("builtin:by-capability", json!({"require": ["tpu"]}), json!({}));
        r["task_id"] = json!("fn-no-tpu");
        r
    };
    let (status, body) = server.post("/tasks", &request).await;
    assert_eq!((status, &body["ok"]), (400, &json!(false)), "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.contains("capability")), "{body}");
    let output = final_output(&server, "fn-no-tpu", "failed").await;
    assert!(output["error"].as_str().is_some_and(|e| e.contains("capability")), "{output}");
    for subject in subjects {
        assert!(inbox_for(&server, subject, "fn-no-tpu").await.is_empty(), "{subject} was told");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_http_selector_gets_exactly_the_task_every_subject_sorted_and_the_parameters() {
    // The selector picks the subject the task's data names.
    let selector =
        StubServer::json(|r| (200, json!({"selected_subject_id": r.json["task"]["task_data"]["pick"], "reason": "asked"}))).await;
    let function_id = format!("{}/select", selector.url);
    let server = Server::start().await;
    let mut registered = BTreeMap::new();
    for (id, topics) in [("sel-c", json!(["x"])), ("sel-a", json!([])), ("sel-b", json!(["y", "z"]))] {
        let subject = post_subject(&server, &json!({"subject_id": id, "topics": topics, "subject_metadata": {"owner": id}})).await;
        registered.insert(id.to_owned(), subject);
    }

    let mut request = function_task(&function_id, json!({"k": 1}), json!({"pick": "sel-b", "doc": [1, 2]}));
    request["task_id"] = json!("sel-task-1");
    let stored = post_task(&server, &request).await;
    assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!("sel-b"), "{stored}");
    let calls = selector.received("/select");
    assert_eq!(calls.len(), 1, "the selector runs once, inline");
    let input = &calls[0].json;
    assert_eq!(calls[0].method, "POST");
    assert_eq!(keys(input), ["parameters", "subjects", "task"], "§4's input and the task's parameters: {input}");
    assert_eq!(input["parameters"], json!({"k": 1}), "as a builtin selector gets them");
    let sorted: Vec<Value> = registered.values().cloned().collect();
    assert_eq!(input["subjects"], json!(sorted), "every subject, sorted by subject_id, as stored");
    assert_eq!(input["task"]["task_id"], json!("sel-task-1"));
    assert_eq!(input["task"]["task_assignment_type"], json!("function"));
    assert_eq!(input["task"]["task_data"], json!({"pick": "sel-b", "doc": [1, 2]}));
    assert_eq!(input["task"]["task_metadata"]["task_assignment"]["function_id"], json!(function_id));
    assert_eq!(final_output(&server, "sel-task-1", "completed").await["ack"]["task_id"], json!("sel-task-1"));
    assert_eq!(inbox_for(&server, "sel-b", "sel-task-1").await.len(), 1);

    // A selector that names a stranger, or nobody: a 400, the task stored failed saying why.
    for (id, pick, needle) in [("sel-task-2", json!("nobody-here"), "nobody-here"), ("sel-task-3", Value::Null, "no subject")] {
        let mut request = function_task(&function_id, json!({}), json!({"pick": pick}));
        request["task_id"] = json!(id);
        let (status, body) = server.post("/tasks", &request).await;
        assert_eq!((status, &body["ok"]), (400, &json!(false)), "{body}");
        assert!(body["error"].as_str().is_some_and(|e| e.contains(needle) && e.contains(id)), "{body}");
        let stored = task(&server, id).await;
        assert_eq!(stored["task_assignment_status"], json!("failed"), "{stored}");
        assert!(stored["task_output"]["error"].as_str().is_some_and(|e| e.contains(needle)), "{stored}");
        assert_eq!(wait_for_final(&server, id).await["task_assignment_status"], json!("failed"));
        for subject in registered.keys().map(String::as_str).chain(["nobody-here"]) {
            assert!(inbox_for(&server, subject, id).await.is_empty(), "{subject} was told of {id}");
        }
    }
    assert_eq!(selector.received("/select").len(), 3);
}

/// An acceptance function played by a real HTTP server: answers `reply` and keeps each input.
async fn acceptance(reply: (u16, Value)) -> (HookServer, Arc<Mutex<Vec<Value>>>) {
    let inputs = Arc::new(Mutex::new(Vec::new()));
    let seen = inputs.clone();
    let hook = HookServer::start(Duration::ZERO, move |input| {
        seen.lock().expect("inputs").push(input.clone());
        (reply.0, reply.1.to_string())
    })
    .await;
    (hook, inputs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn open_mode_asks_each_subject_in_turn_and_the_first_to_accept_gets_the_task() {
    let (failing, failing_in) = acceptance((500, json!({"error": "boom"}))).await;
    let (declining, declining_in) = acceptance((200, json!({"accepted": false, "reason": "busy"}))).await;
    let (accepting, accepting_in) = acceptance((200, json!({"status": "accepted"}))).await;
    let (also, _) = acceptance((200, json!({"accepted": true}))).await;
    let server = Server::start().await;
    let mut subjects = BTreeMap::new();
    for (id, function) in
        [("op-4", &also.url), ("op-2", &declining.url), ("op-0", &String::new()), ("op-3", &accepting.url), ("op-1", &failing.url)]
    {
        let subject = post_subject(&server, &json!({"subject_id": id, "task_evaluation_function": function})).await;
        subjects.insert(id, subject);
    }

    let task_data = json!({"job": "translate", "words": 4200});
    let request = json!({"task_assignment_type": "open", "task_data": task_data, "task_metadata": {"note": "any"}});
    let id = id_of(&post_task(&server, &request).await);
    let output = final_output(&server, &id, "completed").await;
    assert_eq!(output["ack"]["task_id"], json!(id), "{output}");
    let stored = task(&server, &id).await;
    assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!("op-3"), "{stored}");
    assert_eq!(inbox_for(&server, "op-3", &id).await.len(), 1);
    for other in ["op-0", "op-1", "op-2", "op-4"] {
        assert!(inbox_for(&server, other, &id).await.is_empty(), "{other} was told");
    }
    // op-1 (failing: a refusal), op-2 (declining), op-3 asked once each with exactly §4's input;
    // op-0 has no function; op-4 comes after the taker.
    for (subject, inputs) in [("op-1", &failing_in), ("op-2", &declining_in), ("op-3", &accepting_in)] {
        let inputs = inputs.lock().expect("inputs").clone();
        assert_eq!(inputs.len(), 1, "{subject}: {inputs:?}");
        assert_eq!(keys(&inputs[0]), ["subject", "task"], "{subject}: {}", inputs[0]);
        assert_eq!(inputs[0]["subject"], subjects[subject], "{subject} is shown itself");
        assert_eq!((&inputs[0]["task"]["task_id"], &inputs[0]["task"]["task_data"]), (&json!(id), &task_data));
    }
    assert_eq!(also.calls(), 0, "no subject is asked after one accepted");

    // The taker stops taking and op-4 declines too: nobody accepts, the task is rejected.
    let clear = server.send(reqwest::Method::PATCH, "/subjects/op-3", Some(&json!({"task_evaluation_function": ""}))).await;
    assert_eq!(clear.0, 200, "{clear:?}");
    let decline = server.send(reqwest::Method::PATCH, "/subjects/op-4", Some(&json!({"task_evaluation_function": declining.url}))).await;
    assert_eq!(decline.0, 200, "{decline:?}");
    let id = id_of(&post_task(&server, &request).await);
    let output = final_output(&server, &id, "rejected").await;
    assert_eq!(output["error"], json!("no subject accepted the task"), "{output}");
    assert_eq!(output["asked"], json!(["op-1", "op-2", "op-4"]), "{output}");
    assert_eq!(declining.calls(), 3, "op-2 twice, op-4 once");
    assert_eq!(accepting.calls(), 1, "op-3 is skipped once its function is empty");
    for subject in subjects.keys() {
        assert!(inbox_for(&server, subject, &id).await.is_empty(), "{subject} was told of a rejected task");
    }
}

/// A delegate system that plays agents: it answers every call with [`delegate_reply`], and on a
/// `bid_request` the subject bids `bids[subject]` on the job, on this server, once `gate` opens.
/// The bid answers' statuses are kept by subject.
struct Agents {
    stub: StubServer,
    server_base: Arc<OnceLock<String>>,
    answers: Arc<Mutex<BTreeMap<String, u16>>>,
}

impl Agents {
    async fn start(bids: BTreeMap<String, Value>, gate: tokio::sync::watch::Receiver<bool>) -> Agents {
        let server_base: Arc<OnceLock<String>> = Arc::new(OnceLock::new());
        let answers = Arc::new(Mutex::new(BTreeMap::new()));
        let (base, answered, http) = (server_base.clone(), answers.clone(), reqwest::Client::new());
        let stub = StubServer::start(Duration::ZERO, move |r| {
            let call = &r.json;
            let subject = call["subject_id"].as_str().unwrap_or_default().to_owned();
            if call["task_data"]["event_type"] == json!("bid_request") {
                if let (Some(bid_data), Some(job), Some(base)) = (bids.get(&subject), call["task_data"]["bid_job_id"].as_str(), base.get())
                {
                    let url = format!("{base}/bid-jobs/{job}/bids");
                    let body = json!({"bid_subject_id": subject, "bid_data": bid_data});
                    let (mut gate, http, answered) = (gate.clone(), http.clone(), answered.clone());
                    tokio::spawn(async move {
                        let _ = gate.wait_for(|open| *open).await;
                        let status = match http.post(url).json(&body).send().await {
                            Ok(r) => r.status().as_u16(),
                            Err(_) => 0,
                        };
                        answered.lock().expect("answers").insert(subject, status);
                    });
                }
            }
            (200, Vec::new(), delegate_reply(call).to_string().into_bytes())
        })
        .await;
        Agents { stub, server_base, answers }
    }

    fn answers(&self) -> BTreeMap<String, u16> {
        self.answers.lock().expect("answers").clone()
    }
}

fn prices(bids: &[(&str, f64, f64)]) -> BTreeMap<String, Value> {
    bids.iter().map(|(s, price, confidence)| (s.to_string(), json!({"price_usd": price, "confidence": confidence}))).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bidding_task_goes_through_orcade_to_the_cheapest_agent() {
    let (open_gate, gate) = tokio::sync::watch::channel(false);
    let agents = Agents::start(prices(&[("bid-a", 120.0, 0.9), ("bid-b", 90.0, 0.85), ("bid-d", 150.0, 0.99)]), gate).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(agents.stub.url.clone())).await;
    agents.server_base.set(server.base.clone()).expect("set once");
    for (id, topics) in [
        ("bid-a", json!(["translation", "fr"])),
        ("bid-b", json!(["translation"])),
        ("bid-c", json!(["legal"])),
        ("bid-d", json!(["translation"])),
    ] {
        post_subject(&server, &json!({"subject_id": id, "topics": topics})).await;
    }
    let secret = "SECRET-PAYLOAD-3d9f";
    let description = json!({"task_type": "translate_document", "word_count": 4200});
    let request = json!({
        "task_assignment_type": "bidding",
        "task_data": {"document": secret},
        "task_metadata": {"task_assignment": {
            "bid_job_evaluator_id": "builtin:lowest-price",
            "bid_job_pqt_id": "builtin:min-confidence",
            "bid_job_metadata": {"parameters": {"min": 0.8}},
            "bid_job_description": description,
            "bid_job_name": {"en": "Translate Q3"},
            "topics": ["translation", "nlp"],
        }},
    });
    let id = id_of(&post_task(&server, &request).await);

    // The bid job is open, its id on the task; the agents have their bid_requests.
    let bidding = wait_until("the task bidding", SOON, || async {
        let t = task(&server, &id).await;
        assert!(!FINAL.contains(&t["task_assignment_status"].as_str().unwrap_or_default()), "final before any bid: {t}");
        (t["task_assignment_status"] == json!("bidding")).then_some(t)
    })
    .await;
    let job = bidding["task_metadata"]["bid_job_id"].as_str().unwrap_or_else(|| panic!("a bid_job_id: {bidding}")).to_owned();
    assert_eq!(wait_for_final_or_none(&server, &id).await, None, "still bidding");
    let stored_job = data(&server, &format!("/bid-jobs/{job}")).await;
    let mut roster: Vec<String> =
        stored_job["bid_job_subject_ids"].as_array().expect("roster").iter().filter_map(|s| s.as_str().map(str::to_owned)).collect();
    roster.sort();
    assert_eq!(roster, ["bid-a", "bid-b", "bid-d"], "the subjects whose topics meet the task's: {stored_job}");
    assert_eq!(stored_job["bid_job_description"], description);
    assert_eq!(stored_job["bid_job_evaluator_id"], json!("builtin:lowest-price"));
    assert_eq!(stored_job["bid_job_creator_id"], json!("xchange"));

    open_gate.send(true).expect("the agents wait");
    let output = final_output(&server, &id, "completed").await;
    assert_eq!(agents.answers(), BTreeMap::from([("bid-a".into(), 201), ("bid-b".into(), 201), ("bid-d".into(), 201)]));
    let results = data(&server, &format!("/bid-jobs/{job}/task-results")).await;
    let winner = results.as_array().expect("results").iter().find(|r| r["task_type"] == json!("bid_winner")).cloned();
    assert_eq!(Some(&output), winner.as_ref(), "task_output is the whole bid_winner BidTaskResult");
    assert_eq!(output["bid_subject_id"], json!("bid-b"), "the cheapest: {output}");
    assert_eq!(output["evaluator_output"]["winner_subject_id"], json!("bid-b"), "{output}");
    assert_eq!(output["task_result"]["success"], json!(true), "{output}");

    let calls = delegate_calls(&agents.stub);
    let mut asked: Vec<String> = calls
        .iter()
        .filter(|c| c["task_data"]["event_type"] == json!("bid_request"))
        .filter_map(|c| c["subject_id"].as_str().map(str::to_owned))
        .collect();
    asked.sort();
    assert_eq!(asked, ["bid-a", "bid-b", "bid-d"]);
    let told: Vec<&Value> = calls.iter().filter(|c| c["task_data"]["event_type"] == json!("bid_winner")).collect();
    assert_eq!(told.len(), 1, "{calls:?}");
    assert_eq!(told[0]["subject_id"], json!("bid-b"));
    assert_eq!(output["task_result"], delegate_reply(told[0]), "the winner's delivery reply");
    for request in agents.stub.received("/") {
        assert!(!String::from_utf8_lossy(&request.body).contains(secret), "task_data sent to a subject: {}", request.json);
    }
}

/// The task's output if it is final now, else `None`.
async fn wait_for_final_or_none(server: &Server, id: &str) -> Option<Value> {
    let output = data(server, &format!("/tasks/{id}/output")).await;
    FINAL.contains(&output["task_assignment_status"].as_str().unwrap_or_default()).then_some(output)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bidding_task_with_no_valid_bids_or_no_roster_fails() {
    let (_open, gate) = tokio::sync::watch::channel(true);
    let agents = Agents::start(prices(&[("nv-1", 10.0, 0.3), ("nv-2", 5.0, 0.1)]), gate).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(agents.stub.url.clone())).await;
    agents.server_base.set(server.base.clone()).expect("set once");
    // The explicit roster goes verbatim (nv-1 and nv-2 are not registered here); every bid is
    // below the PQT's minimum, so the evaluator sees none.
    let request = json!({
        "task_assignment_type": "bidding",
        "task_data": {"x": 1},
        "task_metadata": {"task_assignment": {
            "bid_job_evaluator_id": "builtin:lowest-price",
            "bid_job_pqt_id": "builtin:min-confidence",
            "bid_job_metadata": {"parameters": {"min": 0.8}},
            "bid_job_subject_ids": ["nv-1", "nv-2"],
        }},
    });
    let id = id_of(&post_task(&server, &request).await);
    let output = final_output(&server, &id, "failed").await;
    assert!(output["error"].as_str().is_some_and(|e| e.contains("no_valid_bids")), "{output}");
    let stored = task(&server, &id).await;
    assert_eq!(output["bid_job_id"], stored["task_metadata"]["bid_job_id"], "{stored}");
    assert_eq!(agents.answers(), BTreeMap::from([("nv-1".into(), 409), ("nv-2".into(), 409)]), "the PQT refused both");
    let job = data(&server, &format!("/bid-jobs/{}", output["bid_job_id"].as_str().expect("job"))).await;
    assert_eq!(job["bid_job_subject_ids"], json!(["nv-1", "nv-2"]), "{job}");
    assert_eq!(job["bid_job_status"], json!("closed"));

    // Topics that meet no subject: failed, rather than sent to every subject.
    post_subject(&server, &json!({"subject_id": "nv-legal", "topics": ["legal"]})).await;
    let mut request = request.clone();
    request["task_metadata"]["task_assignment"] = json!({"bid_job_evaluator_id": "builtin:lowest-price", "topics": ["astronomy"]});
    let id = id_of(&post_task(&server, &request).await);
    let output = final_output(&server, &id, "failed").await;
    assert!(output["error"].as_str().is_some_and(|e| e.contains("roster") && e.contains("astronomy")), "{output}");
    assert!(delegate_calls(&agents.stub).iter().all(|c| c["subject_id"] != json!("nv-legal")), "nv-legal was asked to bid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_delegate_that_hangs_fails_the_task_at_its_time_limit_and_the_routes_stay_fast() {
    let delegate = delegate_stub(Duration::from_secs(10)).await;
    let server = Server::start_with(|c| {
        c.delegate_api_url = Some(delegate.url.clone());
        c.delegate_timeout_ms = 300;
    })
    .await;
    let started = Instant::now();
    let id = id_of(&post_task(&server, &direct_task("slow-agent", json!({"n": 1}))).await);
    assert!(started.elapsed() < Duration::from_secs(5), "POST /tasks took {:?}", started.elapsed());
    wait_until("the delegate call sent", SOON, || async { (!delegate_calls(&delegate).is_empty()).then_some(()) }).await;
    // While the call hangs, every route answers at once.
    let quick = Instant::now();
    assert_eq!(server.get(&format!("/tasks/{id}")).await.0, 200);
    assert_eq!(server.get(&format!("/tasks/{id}/output")).await.0, 200);
    post_subject(&server, &json!({"subject_id": "meanwhile"})).await;
    assert_eq!(server.post("/tasks/query", &json!({})).await.0, 200);
    assert!(quick.elapsed() < Duration::from_secs(5), "the routes took {:?}", quick.elapsed());

    let output = final_output(&server, &id, "failed").await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "failed after {took:?}: the stub answers after 10 s");
    let error = output["error"].as_str().unwrap_or_default();
    assert!(error.contains("AGORA_DELEGATE_TIMEOUT_MS") && error.contains("300"), "{output}");
    assert_eq!(task(&server, &id).await["task_metadata"]["assigned_subject_id"], json!("slow-agent"));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(delegate_calls(&delegate).len(), 1, "one call, not retried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bidding_task_nobody_bids_on_fails_at_the_bidding_time_limit() {
    let server = Server::start_with(|c| c.bidding_timeout_ms = 1500).await;
    for id in ["quiet-1", "quiet-2"] {
        post_subject(&server, &json!({"subject_id": id, "topics": ["quiet"]})).await;
    }
    let secret = "SECRET-QUIET-77";
    let request = json!({
        "task_assignment_type": "bidding",
        "task_data": {"payload": secret},
        "task_metadata": {"task_assignment": {
            "bid_job_evaluator_id": "builtin:lowest-price", "topics": ["quiet"], "bid_job_description": {"what": "quiet work"},
        }},
    });
    let started = Instant::now();
    let id = id_of(&post_task(&server, &request).await);
    let output = final_output(&server, &id, "failed").await;
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(1400), "failed after {took:?}, before its limit: {output}");
    let error = output["error"].as_str().unwrap_or_default();
    assert!(error.contains("AGORA_BIDDING_TIMEOUT_MS") && error.contains("1500"), "{output}");
    let job = task(&server, &id).await["task_metadata"]["bid_job_id"].clone();
    assert!(job.is_string(), "the job was created");
    assert_eq!(output["bid_job_id"], job);
    for subject in ["quiet-1", "quiet-2"] {
        let inbox = server.inbox(subject).await;
        let requests: Vec<&Value> = inbox.iter().filter(|m| m["task_data"]["event_type"] == json!("bid_request")).collect();
        assert_eq!(requests.len(), 1, "{subject}: {inbox:?}");
        assert_eq!(requests[0]["task_data"]["bid_job_id"], job);
        assert_eq!(requests[0]["task_data"]["bid_job"]["bid_job_description"], json!({"what": "quiet work"}));
        assert!(!requests[0].to_string().contains(secret), "task_data sent to {subject}");
    }
}
