//! The bidding SDK, `OpenarcadeClient` (clients.md): each of its calls with its own body, read
//! as it reads them (the whole envelope goes back to its caller). Issue 25 items 1 (a create
//! without `bid_job_metadata`), 2 (a bid naming another job) and 6 (PATCH is a raw `$set`).

use super::*;
use crate::orcade::{bid, closed_job, create_job, id_of, open_job, results_of, submit, winner_of};

/// `create_bid_job`'s body: name, description, evaluator, creator and roster always;
/// `bid_job_metadata` and `bid_job_pqt_id` only when the caller gives them.
fn sdk_create(roster: &[&str], metadata: Option<Value>, pqt: Option<&str>) -> Value {
    let mut body = json!({
        "bid_job_name": {"en": "Translate Q3 report"},
        "bid_job_description": {"task_type": "translate_document", "word_count": 4200},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_creator_id": "planner-service",
        "bid_job_subject_ids": roster,
    });
    if let Some(metadata) = metadata {
        body["bid_job_metadata"] = metadata;
    }
    if let Some(pqt) = pqt {
        body["bid_job_pqt_id"] = json!(pqt);
    }
    body
}

/// The number of jobs on file.
async fn job_count(server: &Server) -> usize {
    read_ok("POST /bid-jobs/query {}", server.post("/bid-jobs/query", &json!({})).await, 200).as_array().expect("a list").len()
}

/// Item 1: a missing `bid_job_metadata`, `bid_job_description` or `bid_job_name` is `{}`; a
/// present one of the wrong type is still refused, naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_create_without_metadata_description_or_name_takes_empty_objects() {
    let server = Server::start().await;
    let plain = sdk_create(&["sdk-1", "sdk-2"], None, None);
    assert!(plain.get("bid_job_metadata").is_none() && plain.get("bid_job_pqt_id").is_none());
    let job = read_ok("the SDK's plain create (no bid_job_metadata)", server.post("/bid-jobs", &plain).await, 201);
    let id = id_of(&job);
    assert_eq!(job["bid_job_metadata"], json!({}), "{job}");
    assert_eq!((&job["bid_job_name"], &job["bid_job_description"]), (&plain["bid_job_name"], &plain["bid_job_description"]));
    assert_eq!(job["bid_job_pqt_id"], json!(""), "no PQT: {job}");
    let stored = read_ok("GET the job", server.get(&format!("/bid-jobs/{id}")).await, 200);
    assert_eq!(stored["bid_job_metadata"], json!({}), "{stored}");
    // The job runs to its winner with the metadata it was given: none.
    assert_eq!(submit(&server, &id, &json!({"bid_subject_id": "sdk-1", "bid_data": {"price_usd": 20}})).await.0, 201);
    assert_eq!(submit(&server, &id, &json!({"bid_subject_id": "sdk-2", "bid_data": {"price_usd": 10}})).await.0, 201);
    assert_eq!(winner_of(&server, &id).await, "sdk-2");

    for missing in [&["bid_job_description"][..], &["bid_job_name"], &["bid_job_metadata", "bid_job_description", "bid_job_name"]] {
        let mut body = sdk_create(&["sdk-1"], None, None);
        for field in missing {
            body.as_object_mut().expect("object").remove(*field);
        }
        let job = read_ok(&format!("a create without {missing:?}"), server.post("/bid-jobs", &body).await, 201);
        for field in missing {
            assert_eq!(job[field], json!({}), "{field} left out: {job}");
        }
    }

    let before = job_count(&server).await;
    for field in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
        for wrong in [json!("translation"), json!(["a"]), json!(5), json!(true)] {
            let mut body = sdk_create(&["sdk-1"], Some(json!({})), None);
            body[field] = wrong.clone();
            let error = read_error(&format!("a create with {field} = {wrong}"), server.post("/bid-jobs", &body).await, 400);
            assert!(error.contains(field), "{field} = {wrong}: the error names the field: {error:?}");
        }
    }
    assert_eq!(job_count(&server).await, before, "a refused create stores nothing");
}

/// Every other call of the SDK, in the envelope, with its own body.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_sdk_call_answers_in_the_envelope() {
    let server = Server::start().await;
    let body = sdk_create(&["sdk-a", "sdk-b"], Some(json!({"parameters": {"min": 0.8}})), Some("builtin:min-confidence"));
    let job = read_ok("create", server.post("/bid-jobs", &body).await, 201);
    let id = id_of(&job);
    assert_eq!(job["bid_job_pqt_id"], json!("builtin:min-confidence"));
    let path = format!("/bid-jobs/{id}");
    assert_eq!(read_ok("get job", server.get(&path).await, 200)["bid_job_id"], json!(id));
    let found = read_ok("query jobs", server.post("/bid-jobs/query", &json!({"bid_job_creator_id": "planner-service"})).await, 200);
    assert_eq!(found.as_array().map(|a| a.iter().map(id_of).collect::<Vec<_>>()), Some(vec![id.clone()]));

    let bid_path = format!("{path}/bids");
    let placed = read_ok("submit bid", server.post(&bid_path, &bid("sdk-a", 30.0, 0.9)).await, 201);
    let bid_id = placed["bid_id"].as_str().expect("bid_id").to_owned();
    let listed = read_ok("list bids", server.get(&bid_path).await, 200);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!(read_ok("get bid", server.get(&format!("/bids/{bid_id}")).await, 200)["bid_id"], json!(bid_id));
    let patched = read_ok("update bid", patch(&server, &format!("/bids/{bid_id}"), &json!({"bid_data.eta_hours": 6})).await, 200);
    assert_eq!((&patched["bid_data"]["eta_hours"], &patched["bid_data"]["price_usd"]), (&json!(6), &json!(30.0)), "{patched}");
    let queried = read_ok("query bids", server.post("/bids/query", &json!({"bid_job_id": id})).await, 200);
    assert_eq!(queried.as_array().map(Vec::len), Some(1), "{queried}");
    let patched = read_ok("update job", patch(&server, &path, &json!({"bid_job_name.fr": "Traduire"})).await, 200);
    assert_eq!(patched["bid_job_name"], json!({"en": "Translate Q3 report", "fr": "Traduire"}));

    // A bid is withdrawn while its job is open (once the job is closed, its bids are final:
    // 409), and its subject may bid again.
    let deleted = read_ok("delete bid", server.send(Method::DELETE, &format!("/bids/{bid_id}"), None).await, 200);
    assert_eq!(deleted, json!({"deleted": true}));
    let again = read_ok("submit bid again", server.post(&bid_path, &bid("sdk-a", 30.0, 0.9)).await, 201);
    let bid_id = again["bid_id"].as_str().expect("bid_id").to_owned();

    assert_eq!(submit(&server, &id, &bid("sdk-b", 20.0, 0.95)).await.0, 201);
    assert_eq!(winner_of(&server, &id).await, "sdk-b");
    results_of(&server, &id, "bid_request", 2).await;
    results_of(&server, &id, "bid_winner", 1).await;
    let results = read_ok("task results", server.get(&format!("{path}/task-results")).await, 200);
    assert_eq!(results.as_array().map(Vec::len), Some(3), "two bid_requests and a bid_winner: {results}");
    let winners = read_ok(
        "query task results",
        server.post("/bid-task-results/query", &json!({"bid_job_id": id, "task_type": "bid_winner"})).await,
        200,
    );
    assert_eq!(winners.as_array().map(|a| a.iter().map(|r| r["bid_subject_id"].clone()).collect::<Vec<_>>()), Some(vec![json!("sdk-b")]));

    let refused =
        read_error("withdraw a bid of an evaluated job", server.send(Method::DELETE, &format!("/bids/{bid_id}"), None).await, 409);
    assert!(refused.contains("evaluated"), "{refused}");
    let deleted = read_ok("delete job", server.send(Method::DELETE, &path, None).await, 200);
    assert_eq!(deleted, json!({"deleted": true}));
    read_error("get a deleted job", server.get(&path).await, 404);
}

/// Item 2: the job id comes from the path; one in the body, naming another job or none, is
/// not the bid's job, and the bid is stored under the path's job (201).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bid_naming_another_job_is_stored_under_the_paths_job() {
    let server = Server::start().await;
    let here = id_of(&create_job(&server, &closed_job()).await);
    let elsewhere = id_of(&create_job(&server, &closed_job()).await);
    for (subject, named) in [("t1", elsewhere.as_str()), ("t2", "no-such-job")] {
        let mut body = bid(subject, 10.0, 0.9);
        body["bid_job_id"] = json!(named);
        let placed = read_ok(&format!("a bid on {here} naming {named}"), submit(&server, &here, &body).await, 201);
        assert_eq!(placed["bid_job_id"], json!(here), "{placed}");
        let stored = read_ok("get bid", server.get(&format!("/bids/{}", placed["bid_id"].as_str().expect("bid_id"))).await, 200);
        assert_eq!(stored["bid_job_id"], json!(here), "{stored}");
    }
    let listed = read_ok("list bids", server.get(&format!("/bid-jobs/{here}/bids")).await, 200);
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    for named in [elsewhere.as_str(), "no-such-job"] {
        let found = read_ok("query bids", server.post("/bids/query", &json!({"bid_job_id": named})).await, 200);
        assert_eq!(found, json!([]), "no bid is filed under {named}");
    }
}

/// Item 6 on Orcade: `PATCH /bid-jobs/{id}` and `PATCH /bids/{id}` set the caller's dict as a
/// raw `$set` (unknown fields and dotted paths stored), refuse by name what would break the
/// entity or its status machine, store nothing of a refused body, and the job still runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn patch_is_a_raw_set_on_jobs_and_bids() {
    let server = Server::start().await;
    let id = id_of(&create_job(&server, &closed_job()).await);
    let path = format!("/bid-jobs/{id}");
    assert_raw_set_stored(
        &server,
        &path,
        &json!({"review": {"by": "ops", "score": 3}, "bid_job_metadata.source.system": "planner", "bid_job_name.fr": "Traduire"}),
    )
    .await;
    let mut refused = raw_set_refusals("bid_job_id");
    refused.push((json!({"bid_job_status": "closed"}), "bid_job_status".into()));
    assert_patch_refused(&server, &path, &refused).await;
    // An open job's roster is the service's to fill.
    let open = format!("/bid-jobs/{}", id_of(&create_job(&server, &open_job(Some(3), None)).await));
    assert_patch_refused(&server, &open, &[(json!({"bid_job_subject_ids": ["someone"]}), "bid_job_subject_ids".into())]).await;

    let placed = read_ok("submit bid on the patched job", submit(&server, &id, &bid("t1", 30.0, 0.9)).await, 201);
    let bid_path = format!("/bids/{}", placed["bid_id"].as_str().expect("bid_id"));
    assert_raw_set_stored(&server, &bid_path, &json!({"review": "checked", "bid_data.extra.eta_hours": 6})).await;
    let mut refused = raw_set_refusals("bid_id");
    refused.push((json!({"is_winner": true}), "is_winner".into()));
    assert_patch_refused(&server, &bid_path, &refused).await;

    // The patched job and bid still go through evaluation.
    assert_eq!(submit(&server, &id, &bid("t2", 20.0, 0.9)).await.0, 201);
    assert_eq!(submit(&server, &id, &bid("t3", 40.0, 0.9)).await.0, 201);
    assert_eq!(winner_of(&server, &id).await, "t2");
    let job = read_ok("get the patched job", server.get(&path).await, 200);
    assert_eq!((&job["bid_job_status"], &job["review"]), (&json!("closed"), &json!({"by": "ops", "score": 3})), "{job}");
}
