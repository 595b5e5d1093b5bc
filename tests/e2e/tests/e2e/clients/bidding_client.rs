//! The agents' bidding client, `BiddingClient`, and its `BidTaskPoller` (clients.md): a bid
//! read back as a `Bid`, a job as a `BidJob` (datetimes through `fromisoformat`, a `null`
//! `bid_job_closes_at` allowed), jobs found by tags (`subject::<id>` included, `match=any|all`),
//! closed jobs skipped, and a retried bid answered 409 because its own bid is on file.

use super::*;
use crate::orcade::{closed_job, create_job, id_of, open_job, SOON};
use agora_e2e::wait_until;
use std::time::Duration;

/// What `requests` sends for a query value (`urlencode`, i.e. `quote_plus`).
fn quote_plus(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => char::from(b).to_string(),
            b' ' => "+".into(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `submit_bid`: the two keys; `ok` must be true; `data` read as a `Bid`.
async fn submit_bid(server: &Server, job: &str, subject: &str, bid_data: Value) -> (u16, Value) {
    server.post(&format!("/bid-jobs/{job}/bids"), &json!({"bid_subject_id": subject, "bid_data": bid_data})).await
}

/// `Bid.from_dict` as the client builds it.
#[track_caller]
fn read_bid(bid: &Value) {
    for field in ["bid_id", "bid_job_id", "bid_subject_id"] {
        assert!(bid[field].is_string(), "Bid.{field} is a string: {bid}");
    }
    assert!(bid["bid_data"].is_object(), "Bid.bid_data is a dict: {bid}");
    assert!(bid["is_winner"].is_boolean(), "Bid.is_winner is a bool: {bid}");
    assert_py_datetime("Bid.submission_time", &bid["submission_time"]);
}

/// `BidJob.from_dict` as the client builds it: each field, when present, of its type (absent
/// ones take defaults); the two datetimes through `fromisoformat`.
#[track_caller]
fn read_bid_job(job: &Value) {
    type Check = (&'static str, fn(&Value) -> bool);
    let checks: [Check; 14] = [
        ("bid_job_id", Value::is_string),
        ("bid_job_metadata", Value::is_object),
        ("bid_job_description", Value::is_object),
        ("bid_job_name", Value::is_object),
        ("bid_job_evaluator_id", Value::is_string),
        ("bid_job_pqt_id", Value::is_string),
        ("bid_job_tie_id", Value::is_string),
        ("bid_job_creator_id", Value::is_string),
        ("bid_job_subject_ids", Value::is_array),
        ("bid_job_mode", Value::is_string),
        ("bid_job_status", Value::is_string),
        ("bid_job_tags", Value::is_array),
        ("bid_job_max_subjects", |v| v.is_null() || v.as_u64().is_some()),
        ("bid_job_max_time", |v| v.is_null() || v.as_u64().is_some()),
    ];
    for (field, ok) in checks {
        assert!(job.get(field).is_none_or(ok), "BidJob.{field}: {job}");
    }
    assert_py_datetime("BidJob.bid_job_created_time", &job["bid_job_created_time"]);
    assert_py_datetime_or_null("BidJob.bid_job_closes_at", &job["bid_job_closes_at"]);
}

/// `get_bid_job`.
async fn get_bid_job(server: &Server, id: &str) -> Value {
    let job = read_ok("get_bid_job", server.get(&format!("/bid-jobs/{id}")).await, 200);
    read_bid_job(&job);
    job
}

/// `find_bid_jobs_by_tags`: the tags joined by commas, `match`, encoded as `requests` does;
/// `data` must be a list of jobs. Returns their ids, sorted.
async fn find_by_tags(server: &Server, tags: &[&str], matching: &str) -> Vec<String> {
    let path = format!("/bid-jobs/by-tags?tags={}&match={matching}", quote_plus(&tags.join(",")));
    let jobs = read_ok(&format!("GET {path}"), server.get(&path).await, 200);
    let jobs = jobs.as_array().unwrap_or_else(|| panic!("GET {path}: data is a list: {jobs}"));
    jobs.iter().for_each(read_bid_job);
    let mut ids: Vec<String> = jobs.iter().map(id_of).collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bids_and_jobs_read_as_the_client_builds_them() {
    let server = Server::start().await;
    let closed = id_of(&create_job(&server, &closed_job()).await);
    let job = get_bid_job(&server, &closed).await;
    assert_eq!(job["bid_job_closes_at"], Value::Null, "a closed job has no closing time: {job}");
    let bid = read_ok("submit_bid", submit_bid(&server, &closed, "t1", json!({"price_usd": 90, "confidence": 0.9})).await, 201);
    read_bid(&bid);
    assert_eq!((&bid["bid_job_id"], &bid["bid_subject_id"], &bid["is_winner"]), (&json!(closed), &json!("t1"), &json!(false)));

    // Open jobs: with a time limit, a closing time; without, null.
    let timed = get_bid_job(&server, &id_of(&create_job(&server, &open_job(None, Some(3600))).await)).await;
    assert!(timed["bid_job_closes_at"].is_string(), "{timed}");
    let counted = get_bid_job(&server, &id_of(&create_job(&server, &open_job(Some(2), None)).await)).await;
    assert_eq!(counted["bid_job_closes_at"], Value::Null, "{counted}");
    let bid = read_ok("submit_bid (open job)", submit_bid(&server, &id_of(&counted), "walk-in", json!({"price_usd": 5})).await, 201);
    read_bid(&bid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_poller_finds_its_jobs_by_subject_tag_and_skips_closed_ones() {
    let server = Server::start().await;
    let mut request = closed_job();
    request["bid_job_mode"] = json!("mixed");
    request["bid_job_subject_ids"] = json!(["agent-1", "agent-2"]);
    request["bid_job_tags"] = json!(["translation", "fr"]);
    let mixed = id_of(&create_job(&server, &request).await);
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(["agent-3"]);
    request["bid_job_tags"] = json!(["translation"]);
    let other = id_of(&create_job(&server, &request).await);
    let mut both = vec![mixed.clone(), other.clone()];
    both.sort();

    for (tags, matching, want) in [
        (&["subject::agent-1"][..], "all", vec![mixed.clone()]),
        (&["subject::agent-1"], "any", vec![mixed.clone()]),
        (&["subject::agent-2", "fr"], "all", vec![mixed.clone()]),
        (&["subject::agent-9", "translation"], "all", vec![]),
        (&["subject::agent-9", "translation"], "any", both.clone()),
        (&["subject::agent-3"], "any", vec![]),
        (&["Translation"], "any", vec![]),
    ] {
        assert_eq!(find_by_tags(&server, tags, matching).await, want, "tags {tags:?}, match={matching}");
    }

    // The push the poller waits for (up to 30 s) comes well before.
    for subject in ["agent-1", "agent-2"] {
        wait_until(&format!("a bid_request to {subject}"), Duration::from_secs(5), || async {
            server.inbox(subject).await.iter().any(|m| m["task_data"]["bid_job_id"] == json!(mixed)).then_some(())
        })
        .await;
    }

    // Both bid: the job closes; the poller still finds it, and skips it as not open.
    for subject in ["agent-1", "agent-2"] {
        read_ok("submit_bid", submit_bid(&server, &mixed, subject, json!({"price_usd": 10, "confidence": 0.9})).await, 201);
    }
    wait_until("the mixed job closed", SOON, || async {
        (get_bid_job(&server, &mixed).await["bid_job_status"] == json!("closed")).then_some(())
    })
    .await;
    let path = format!("/bid-jobs/by-tags?tags={}&match=any", quote_plus("subject::agent-1"));
    let found = read_ok("find_bid_jobs_by_tags", server.get(&path).await, 200);
    let open: Vec<&Value> = found.as_array().expect("a list").iter().filter(|j| j["bid_job_status"] == json!("open")).collect();
    assert_eq!(found.as_array().map(Vec::len), Some(1), "{found}");
    assert!(open.is_empty(), "the poller would act on a closed job: {found}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retried_bid_finds_its_own_bid_on_file_and_gets_409() {
    let server = Server::start().await;
    for job in [closed_job(), open_job(Some(3), None)] {
        let id = id_of(&create_job(&server, &job).await);
        let bid_data = json!({"price_usd": 42, "confidence": 0.9, "plan": "first"});
        let first = read_ok("submit_bid", submit_bid(&server, &id, "t1", bid_data.clone()).await, 201);
        let error = read_error("the same bid again", submit_bid(&server, &id, "t1", bid_data).await, 409);
        assert!(!error.is_empty());
        let bids = read_ok("list bids", server.get(&format!("/bid-jobs/{id}/bids")).await, 200);
        assert_eq!(bids, json!([first]), "one bid on file, as first stored");
    }
}
