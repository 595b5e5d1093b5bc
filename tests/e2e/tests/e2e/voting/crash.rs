//! `kill -9` at chosen moments: the local server runs as a child process, is killed mid-work,
//! and is started again on the same data (the embedded store's folder, or the same MongoDB
//! database with `AGORA_E2E_STORE=mongodb`). Within a bounded time after the restart, every task
//! whose trigger holds is complete exactly once (post-award called once, one report), every
//! acknowledged vote is stored, every stored qualified vote of a public task is counted, and no
//! private task whose members' votes are all stored stays `started`.

use agora_e2e::crash::{recovery, ServerData};
use agora_e2e::{example_request, public_request, vote_body, HookServer, ServerProcess, REVIEWERS};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn data() -> ServerData {
    ServerData::new(env!("CARGO_BIN_EXE_agora-e2e-local"), "crash", &[])
}

async fn status_of(server: &ServerProcess, id: &str) -> Option<String> {
    server.get(&format!("/get-status/{id}")).await.1["status"].as_str().map(str::to_owned)
}

async fn wait_for_status(server: &ServerProcess, id: &str, want: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        let now = status_of(server, id).await;
        if now.as_deref() == Some(want) {
            return;
        }
        assert!(Instant::now() < deadline, "task {id} is {now:?}, not {want}, {timeout:?} after the restart");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn create(server: &ServerProcess, request: &Value) -> String {
    let (status, body) = server.post("/submit-social-choice-task", request).await;
    assert_eq!(status, 201, "create: {body}");
    body["social_task_id"].as_str().expect("id").to_owned()
}

/// The stored votes of a task matching `filter`, by vote id.
async fn stored_votes(server: &ServerProcess, task: &str, qualified: Option<bool>) -> BTreeSet<String> {
    let mut filter = json!({"social_task_id": task});
    if let Some(q) = qualified {
        filter["qualified"] = json!(q);
    }
    let (status, votes) = server.post("/generic-query/votes", &filter).await;
    assert_eq!(status, 200, "{votes}");
    votes.as_array().expect("array").iter().map(|v| v["vote_id"].as_str().expect("vote_id").to_owned()).collect()
}

async fn report_votes(server: &ServerProcess, task: &str) -> BTreeSet<String> {
    let (status, report) = server.get(&format!("/get-report/{task}")).await;
    assert_eq!(status, 200, "{report}");
    report["votes"].as_array().expect("report votes").iter().map(|v| v["vote_id"].as_str().expect("vote_id").to_owned()).collect()
}

/// The example's private task with an evaluation hook that takes `delay` and a post-award hook
/// that counts its calls, both real HTTP servers in this process (they outlive the server).
async fn slow_private_task(server: &ServerProcess, delay: Duration) -> (String, HookServer, HookServer) {
    let evaluation = HookServer::start(delay, |_| (200, json!({"winner": "agent-translator-02"}).to_string())).await;
    let post_award = HookServer::start(Duration::ZERO, |input| {
        (200, json!({"assigned_to": input["user_input"]["winners"][0], "decision": "assigned"}).to_string())
    })
    .await;
    let mut request = example_request();
    request["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": evaluation.url});
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let id = create(server, &request).await;
    wait_for_status(server, &id, "started", Duration::from_secs(10)).await;
    (id, evaluation, post_award)
}

async fn vote_every_reviewer(server: &ServerProcess, id: &str) {
    for (reviewer, option) in REVIEWERS.iter().zip(["agent-translator-02", "agent-translator-02", "agent-translator-01"]) {
        let (status, body) = server.post("/submit-vote", &vote_body(id, reviewer, json!({"selected_option": option}))).await;
        assert_eq!((status, &body), (200, &json!({"status": "accepted", "qualified": true})));
    }
}

/// Checks a completed task's report and that post-award ran once.
async fn complete_once(server: &ServerProcess, id: &str, post_award: &HookServer) {
    wait_for_status(server, id, "complete", recovery()).await;
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]), "{report}");
    assert_eq!(report["votes"].as_array().map(Vec::len), Some(3));
    // A sweep or two later, nothing ran again.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(post_award.calls(), 1, "post-award ran once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_right_after_the_triggering_votes_reply_the_evaluation_still_runs_once() {
    let data = data();
    let server = data.start();
    let (id, evaluation, post_award) = slow_private_task(&server, Duration::from_millis(1500)).await;
    vote_every_reviewer(&server, &id).await;
    server.kill();
    assert_eq!(post_award.calls(), 0);

    let server = data.start();
    complete_once(&server, &id, &post_award).await;
    assert!(evaluation.calls() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_during_a_slow_evaluation_hook_the_task_completes_once_after_the_restart() {
    let data = data();
    let server = data.start();
    let (id, evaluation, post_award) = slow_private_task(&server, Duration::from_millis(3000)).await;
    vote_every_reviewer(&server, &id).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while evaluation.calls() == 0 {
        assert!(Instant::now() < deadline, "the evaluation hook was never called");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Mid-hook: the evaluator holds the task's claim, and the queued request is not done.
    server.kill();

    let server = data.start();
    complete_once(&server, &id, &post_award).await;
    assert!(evaluation.calls() >= 2, "evaluated again after the restart");
}

/// Sends each vote at once; kills the server once `kill_after` of them are answered. Returns
/// the answers (`None`: no answer, the server died first).
async fn burst(server: ServerProcess, votes: Vec<Value>, kill_after: usize) -> Vec<Option<(u16, Value)>> {
    let answered = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(tokio::sync::Notify::new());
    let (http, base) = (server.http.clone(), server.base.clone());
    let sends: Vec<_> = votes
        .into_iter()
        .map(|vote| {
            let (http, url, answered, done) = (http.clone(), format!("{base}/submit-vote"), answered.clone(), done.clone());
            tokio::spawn(async move {
                let sent = http.post(url).header("content-type", "application/json").body(vote.to_string()).send().await;
                let answer = match sent {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        r.json::<Value>().await.ok().map(|body| (status, body))
                    }
                    Err(_) => None,
                };
                if answered.fetch_add(1, Ordering::SeqCst) + 1 >= kill_after {
                    done.notify_one();
                }
                answer
            })
        })
        .collect();
    let _ = tokio::time::timeout(Duration::from_secs(20), done.notified()).await;
    server.kill();
    futures::future::join_all(sends).await.into_iter().map(|r| r.expect("sender")).collect()
}

/// Whether an answer says the vote was accepted as qualified.
fn accepted_qualified(answer: &Option<(u16, Value)>) -> bool {
    matches!(answer, Some((200, body)) if body == &json!({"status": "accepted", "qualified": true}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_during_a_burst_of_votes_nothing_acknowledged_is_lost_and_every_triggered_task_completes() {
    const DURATION: usize = 25;
    const PUBLIC_VOTERS: usize = 50;
    const MEMBERS: usize = 20;
    let data = data();
    let server = data.start();
    let public = create(&server, &public_request(DURATION as i64)).await;
    let mut private_request = example_request();
    let members: Vec<String> = (0..MEMBERS).map(|i| format!("member-{i:02}")).collect();
    private_request["social_task"]["org_ids"] = json!(members);
    let private = create(&server, &private_request).await;
    wait_for_status(&server, &public, "started", Duration::from_secs(10)).await;
    wait_for_status(&server, &private, "started", Duration::from_secs(10)).await;

    let ballot = json!({"selected_option": "agent-translator-03"});
    let mut votes: Vec<Value> = (0..PUBLIC_VOTERS).map(|i| vote_body(&public, &format!("voter-{i:02}"), ballot.clone())).collect();
    votes.extend(members.iter().map(|m| vote_body(&private, m, ballot.clone())));
    let answers = burst(server, votes.clone(), 30).await;
    let unanswered = answers.iter().filter(|a| a.is_none()).count();
    tracing_note(&format!("burst: {} answered, {unanswered} unanswered at the kill", answers.len() - unanswered));

    let server = data.start();
    // Every vote acknowledged as accepted is stored.
    let acknowledged: BTreeSet<String> = votes
        .iter()
        .zip(&answers)
        .filter(|(_, a)| accepted_qualified(a))
        .map(|(v, _)| v["vote_id"].as_str().expect("vote_id").to_owned())
        .collect();
    let public_stored = stored_votes(&server, &public, Some(true)).await;
    let private_stored = stored_votes(&server, &private, Some(true)).await;
    for id in &acknowledged {
        assert!(public_stored.contains(id) || private_stored.contains(id), "acknowledged vote {id} was lost");
    }
    assert!(public_stored.len() <= DURATION, "at most duration qualified votes: {}", public_stored.len());
    // Every vote answered before the kill was accepted, but a public one once its places were
    // taken: a member of the private task votes once, and nothing else refuses it.
    for (vote, answer) in votes.iter().zip(&answers) {
        let Some(answer) = answer.as_ref().filter(|_| !accepted_qualified(answer)) else { continue };
        let public_vote = vote["social_task_id"] == json!(public);
        assert!(
            public_vote && answer.0 == 409 && public_stored.len() == DURATION,
            "refused with {} places taken: {answer:?}",
            public_stored.len()
        );
    }

    // Without any retry, a task whose trigger holds in the stored votes completes.
    if public_stored.len() == DURATION {
        wait_for_status(&server, &public, "complete", recovery()).await;
    }
    if private_stored.len() == MEMBERS {
        wait_for_status(&server, &private, "complete", recovery()).await;
    }

    // The voters left unanswered send their votes again (the same requests); the tasks then fill
    // up and complete, and the reports hold exactly the stored qualified votes.
    for (vote, answer) in votes.iter().zip(&answers) {
        if answer.is_none() {
            let (status, body) = resend(&server, vote).await;
            assert!(status == 200 || status == 409, "{status} {body}");
        }
    }
    wait_for_status(&server, &private, "complete", recovery()).await;
    if stored_votes(&server, &public, Some(true)).await.len() < DURATION {
        for i in PUBLIC_VOTERS..PUBLIC_VOTERS + DURATION {
            let (status, body) = resend(&server, &vote_body(&public, &format!("voter-{i:02}"), ballot.clone())).await;
            assert!(status == 200 || status == 409, "{status} {body}");
        }
    }
    wait_for_status(&server, &public, "complete", recovery()).await;
    let public_stored = stored_votes(&server, &public, Some(true)).await;
    assert_eq!(public_stored.len(), DURATION);
    assert_eq!(report_votes(&server, &public).await, public_stored, "the report holds every stored qualified vote");
    let private_report = report_votes(&server, &private).await;
    assert_eq!(private_report.len(), MEMBERS);
    assert_eq!(private_report, stored_votes(&server, &private, Some(true)).await);
    for id in &acknowledged {
        assert!(public_stored.contains(id) || private_report.contains(id), "acknowledged vote {id} is in no report");
    }
}

/// Sends a vote until it is answered other than 500. On MongoDB a writer killed inside its
/// transaction leaves it open on the server, which aborts it only after its transaction lifetime
/// (`transactionLifetimeLimitSeconds`, 60 s by default): until then that task's count cannot be
/// raised, and its votes are answered 500 (nothing stored). Bounded, so retried here.
async fn resend(server: &ServerProcess, vote: &Value) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (status, body) = server.post("/submit-vote", vote).await;
        if status != 500 || Instant::now() > deadline {
            return (status, body);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// A line in the test's output (shown with `--nocapture`).
fn tracing_note(line: &str) {
    println!("{line}");
}
