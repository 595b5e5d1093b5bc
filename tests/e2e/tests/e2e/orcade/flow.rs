//! Each mode from creation to the winner's notification, over HTTP, with the local delegate
//! (the inbox) or a delegate system played by a real HTTP server, and hooks played by real HTTP
//! servers.

use super::*;
use agora_e2e::{HookServer, StubServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_closed_job_runs_from_creation_to_the_winners_notification() {
    let server = Server::start().await;
    let job = create_job(&server, &closed_job()).await;
    let id = id_of(&job);
    assert_eq!(job["bid_job_status"], json!("open"));
    assert_eq!(job["bid_job_mode"], json!("closed"));
    assert_eq!(job["bid_job_closes_at"], Value::Null);
    let created = job["bid_job_created_time"].as_str().expect("created time");
    assert!(created.ends_with("+00:00") && created.split('.').nth(1).is_some_and(|f| f.len() == 12), "UTC, microseconds: {created}");

    // A bid_request to each roster member, from the queue, each round trip stored.
    let requests = results_of(&server, &id, "bid_request", 3).await;
    for subject in ["t1", "t2", "t3"] {
        let inbox = server.inbox(subject).await;
        assert_eq!(inbox.len(), 1, "{subject}: {inbox:?}");
        assert_eq!(inbox[0]["task_data"]["event_type"], json!("bid_request"));
        assert_eq!(inbox[0]["task_data"]["bid_job_id"], json!(id));
        assert_eq!(inbox[0]["task_data"]["bid_job"]["bid_job_id"], json!(id));
        let result = requests.iter().find(|r| r["bid_subject_id"] == json!(subject)).expect("a result per subject");
        assert_eq!(result["task_result"]["success"], json!(true), "{result}");
        assert_eq!(result["task_result"]["output"], json!({}));
    }

    // t1 is cheapest but below the PQT's confidence: refused 409 with the PQT's reason, kept.
    let (status, body) = submit(&server, &id, &bid("t1", 90.0, 0.5)).await;
    assert_eq!((status, &body["ok"]), (409, &json!(false)), "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.contains("confidence")), "{body}");
    let (status, body) = submit(&server, &id, &bid("t2", 120.0, 0.9)).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["is_winner"], json!(false));
    assert_eq!(body["data"]["bid_job_id"], json!(id));
    assert_eq!(data(&server, &format!("/bid-jobs/{id}")).await["bid_job_status"], json!("open"));
    let (status, body) = submit(&server, &id, &bid("t3", 150.0, 0.95)).await;
    assert_eq!(status, 201, "{body}");

    // The roster is complete: closed, evaluated once, t2 (the cheapest accepted) wins.
    assert_eq!(winner_of(&server, &id).await, "t2");
    assert_eq!(data(&server, &format!("/bid-jobs/{id}")).await["bid_job_status"], json!("closed"));
    let bids = bids_by_subject(&server, &id).await;
    assert_eq!(bids["t1"]["bid_data"]["bid_rejected"], json!(true));
    assert!(bids["t1"]["bid_data"]["pqt_reason"].as_str().is_some(), "{}", bids["t1"]);
    let winner = results_of(&server, &id, "bid_winner", 1).await;
    assert_eq!(winner[0]["bid_subject_id"], json!("t2"));
    assert_eq!(winner[0]["evaluator_output"]["winner_subject_id"], json!("t2"), "{}", winner[0]);
    assert_eq!(winner[0]["task_result"]["success"], json!(true));
    let inbox = server.inbox("t2").await;
    assert_eq!(inbox.last().expect("a bid_winner")["task_data"], json!({"event_type": "bid_winner", "bid_job_id": id}));
    assert_eq!(server.inbox("t3").await.len(), 1, "only the winner is told");

    // After the close: any bid is refused.
    let (status, body) = submit(&server, &id, &bid("t3", 1.0, 1.0)).await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_open_job_takes_applicants_until_full_and_one_with_a_time_limit_closes_by_itself() {
    let server = Server::start().await;
    let full = id_of(&create_job(&server, &open_job(Some(2), None)).await);
    assert_eq!(submit(&server, &full, &bid("a", 30.0, 1.0)).await.0, 201);
    assert_eq!(data(&server, &format!("/bid-jobs/{full}")).await["bid_job_subject_ids"], json!(["a"]));
    assert_eq!(submit(&server, &full, &bid("b", 20.0, 1.0)).await.0, 201);
    let (status, body) = submit(&server, &full, &bid("c", 10.0, 1.0)).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(winner_of(&server, &full).await, "b");
    let job = data(&server, &format!("/bid-jobs/{full}")).await;
    assert_eq!((job["bid_job_status"].clone(), job["bid_job_subject_ids"].clone()), (json!("closed"), json!(["a", "b"])));
    assert!(server.inbox("a").await.is_empty(), "an open job sends no bid_request");

    // One second to bid, then the sweep closes and evaluates it with no further request.
    let timed = create_job(&server, &open_job(None, Some(1))).await;
    assert!(timed["bid_job_closes_at"].as_str().is_some(), "{timed}");
    let timed = id_of(&timed);
    assert_eq!(submit(&server, &timed, &bid("x", 5.0, 1.0)).await.0, 201);
    assert_eq!(winner_of(&server, &timed).await, "x");
    assert_eq!(data(&server, &format!("/bid-jobs/{timed}")).await["bid_job_status"], json!("closed"));
    results_of(&server, &timed, "bid_winner", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mixed_job_is_found_by_its_subjects_tags_and_the_creator_may_close_a_silent_roster() {
    let server = Server::start().await;
    let mut request = closed_job();
    request["bid_job_mode"] = json!("mixed");
    request["bid_job_tags"] = json!([" translation ", "translation", "fr"]);
    let job = create_job(&server, &request).await;
    let id = id_of(&job);
    let tags: Vec<&str> = job["bid_job_tags"].as_array().expect("tags").iter().filter_map(Value::as_str).collect();
    for tag in ["translation", "fr", "subject::t1", "subject::t2", "subject::t3"] {
        assert!(tags.contains(&tag), "{tag} in {tags:?}");
    }
    assert_eq!(tags.iter().filter(|t| **t == "translation").count(), 1, "stripped and deduplicated: {tags:?}");
    let found = data(&server, "/bid-jobs/by-tags?tags=subject::t2,fr").await;
    assert_eq!(found.as_array().map(|a| a.iter().map(|j| j["bid_job_id"].clone()).collect::<Vec<_>>()), Some(vec![json!(id)]));
    assert_eq!(data(&server, "/bid-jobs/by-tags?tags=subject::t9,fr&match=all").await, json!([]));
    assert_eq!(data(&server, "/bid-jobs/by-tags?tags=subject::t9,fr&match=any").await.as_array().map(Vec::len), Some(1));

    // t3 never bids: the creator closes the job, which evaluates the bids on file.
    assert_eq!(submit(&server, &id, &bid("t1", 50.0, 0.9)).await.0, 201);
    assert_eq!(submit(&server, &id, &bid("t2", 40.0, 0.9)).await.0, 201);
    let (status, body) = server.post(&format!("/bid-jobs/{id}/close"), &json!({})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["bid_job_status"], json!("closed"));
    assert_eq!(winner_of(&server, &id).await, "t2");
    let (status, body) = server.post(&format!("/bid-jobs/{id}/close"), &json!({})).await;
    assert_eq!((status, body["ok"].clone()), (409, json!(false)), "{body}");
    assert_eq!(server.post("/bid-jobs/no-such-job/close", &json!({})).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_hooks_screen_and_choose_and_a_delegate_system_gets_each_round_trip() {
    // The PQT accepts bids with a plan; the evaluator picks the last bid it is shown.
    // Each function gets exactly its input of §4, nothing added: a PQT or evaluator shown other
    // keys refuses, and the bids below would not go as asserted.
    let keys = |input: &Value| {
        let mut keys: Vec<String> = input.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
        keys.sort();
        keys
    };
    let pqt = HookServer::start(Duration::ZERO, move |input| {
        if keys(input) != ["bid", "bid_job"] {
            return (200, json!({"accepted": false, "reason": format!("unexpected input keys {:?}", keys(input))}).to_string());
        }
        let has_plan = input["bid"]["bid_data"]["plan"].is_string();
        (200, json!({"accepted": has_plan, "reason": if has_plan { "ok" } else { "a plan is required" }}).to_string())
    })
    .await;
    let evaluator = HookServer::start(Duration::ZERO, move |input| {
        if keys(input) != ["bid_job", "bids"] {
            return (200, json!({"status": "no_valid_bids", "unexpected_keys": keys(input)}).to_string());
        }
        let bids = input["bids"].as_array().cloned().unwrap_or_default();
        let last = bids.last().map(|b| b["bid_subject_id"].clone()).unwrap_or(Value::Null);
        (200, json!({"data": {"status": "resolved", "winner_subject_id": last, "result_data": {"seen": bids.len()}}}).to_string())
    })
    .await;
    let delegate = StubServer::json(|request| {
        (200, json!({"success": true, "ack": {"by": "stub", "for": request.json["subject_id"]}, "output": {"note": "thanks"}}))
    })
    .await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let mut request = closed_job();
    request["bid_job_pqt_id"] = json!(pqt.url);
    request["bid_job_evaluator_id"] = json!(evaluator.url);
    request["bid_job_subject_ids"] = json!(["p1", "p2"]);
    let id = id_of(&create_job(&server, &request).await);

    let (status, body) = submit(&server, &id, &json!({"bid_subject_id": "p1", "bid_data": {}})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.contains("a plan is required")), "{body}");
    assert_eq!(submit(&server, &id, &json!({"bid_subject_id": "p2", "bid_data": {"plan": "fast"}})).await.0, 201);
    assert_eq!(winner_of(&server, &id).await, "p2");
    assert_eq!(evaluator.calls(), 1);

    let winner = results_of(&server, &id, "bid_winner", 1).await;
    assert_eq!(
        winner[0]["task_result"],
        json!({"success": true, "ack": {"by": "stub", "for": "p2"}, "output": {"note": "thanks"}}),
        "verbatim"
    );
    assert_eq!(winner[0]["evaluator_output"]["result_data"], json!({"seen": 1}), "the evaluator saw the accepted bid only");
    results_of(&server, &id, "bid_request", 2).await;
    let calls = delegate.received("/api/submit-and-wait");
    assert_eq!(calls.len(), 3, "two bid_requests and a bid_winner");
    let win = calls.iter().find(|c| c.json["task_data"]["event_type"] == json!("bid_winner")).expect("the bid_winner call");
    assert_eq!(win.json["subject_id"], json!("p2"));
    // Each call has a session of its own (the upstream delegate waits on a queue per session).
    assert_eq!(win.json["session_id"], win.json["task_id"]);
    let sessions: std::collections::HashSet<_> = calls.iter().map(|c| c.json["session_id"].to_string()).collect();
    assert_eq!(sessions.len(), 3, "{calls:?}");
    assert!(server.inbox("p2").await.is_empty(), "a configured delegate system, not the inbox");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_delegate_call_is_stored_as_a_result_holding_the_error() {
    let delegate = StubServer::json(|_| (502, json!({"success": false, "error": "subject offline"}))).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(["q1"]);
    let id = id_of(&create_job(&server, &request).await);
    let failed = results_of(&server, &id, "bid_request", 1).await;
    assert_eq!(failed[0]["task_result"]["success"], json!(false), "{}", failed[0]);
    assert!(failed[0]["task_result"]["error"].as_str().is_some_and(|e| e.contains("502")), "{}", failed[0]);
    // The job goes on: q1 bids, wins, and the failed bid_winner is stored too.
    assert_eq!(submit(&server, &id, &bid("q1", 1.0, 0.9)).await.0, 201);
    assert_eq!(winner_of(&server, &id).await, "q1");
    let winner = results_of(&server, &id, "bid_winner", 1).await;
    assert_eq!(winner[0]["task_result"]["success"], json!(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_delegate_system_that_hangs_is_cut_off_at_its_time_limit_without_slowing_the_routes() {
    // The delegate system takes every call and answers none within the time limit.
    let delegate = StubServer::start(Duration::from_secs(60), |_| (200, Vec::new(), br#"{"success": true}"#.to_vec())).await;
    let server = Server::start_with(|c| {
        c.delegate_api_url = Some(delegate.url.clone());
        c.delegate_timeout_ms = 300;
    })
    .await;
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(["h1"]);

    // The routes answer at once (well within the delegate's 60 s; the bound leaves room for a
    // loaded machine): the bid_request waits on the delivery queue, not in the create,
    // and the bid that closes the job does not wait for the winner's call either.
    let started = std::time::Instant::now();
    let id = id_of(&create_job(&server, &request).await);
    let created_in = started.elapsed();
    assert!(created_in < Duration::from_secs(10), "the create took {created_in:?}");
    let started = std::time::Instant::now();
    let (status, body) = submit(&server, &id, &bid("h1", 5.0, 0.9)).await;
    let bid_in = started.elapsed();
    assert_eq!(status, 201, "{body}");
    assert!(bid_in < Duration::from_secs(10), "the bid took {bid_in:?}");
    assert_eq!(winner_of(&server, &id).await, "h1");

    // Each call was sent, cut off at the limit, and stored as a failure that says so.
    for task_type in ["bid_request", "bid_winner"] {
        let result = results_of(&server, &id, task_type, 1).await;
        let task_result = &result[0]["task_result"];
        assert_eq!(task_result["success"], json!(false), "{task_type}: {}", result[0]);
        let error = task_result["error"].as_str().unwrap_or_default();
        assert!(error.contains("did not answer within 300ms"), "{task_type}: the time limit in {error:?}");
    }
    let calls = delegate.received("/api/submit-and-wait");
    assert_eq!(calls.len(), 2, "one bid_request and one bid_winner, neither retried: {calls:?}");
}
