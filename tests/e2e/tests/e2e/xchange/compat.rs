//! What existing clients of Xchange rely on (clients.md, the exchange SDK), over HTTP:
//!
//! * a bidding roster given as `bid_job_subject_ids: []` is an empty roster, verbatim: no bid
//!   job, no `bid_request`, the task `failed` at once as §4's no-bids case (`no_valid_bids`);
//!   only an absent key falls back to the topics, then to every subject;
//! * function mode's `parameters` reach every selector, whatever runs it: an HTTP URL, a Lambda
//!   ARN, a registry function (stateless, stateful, external), played by real HTTP servers that
//!   keep what they received;
//! * `PATCH /subjects/{id}` is the raw `$set` the SDK documents: any field or dotted path, the
//!   stored document read back as set, refused only where the store or the flows could not take it.

use super::*;
use agora_e2e::StubServer;
use reqwest::Method;
use std::time::Instant;

fn bidding_task(assignment: Value) -> Value {
    let mut a = json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_description": {"what": "translate"}});
    a.as_object_mut().expect("an object").extend(assignment.as_object().expect("an object").clone());
    json!({"task_assignment_type": "bidding", "task_data": {"doc": "q3.pdf"}, "task_metadata": {"task_assignment": a}})
}

/// The `bid_request`s in `subject`'s inbox.
async fn bid_requests(server: &Server, subject: &str) -> Vec<Value> {
    server.inbox(subject).await.into_iter().filter(|m| m["task_data"]["event_type"] == json!("bid_request")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_explicit_empty_roster_is_verbatim_no_job_no_bid_request_and_the_task_fails_at_once() {
    let server = Server::start().await;
    for (id, topics) in [("roster-fr", json!(["fr"])), ("roster-de", json!(["de"]))] {
        post_subject(&server, &json!({"subject_id": id, "topics": topics})).await;
    }

    for (n, assignment) in [
        json!({"bid_job_subject_ids": []}),
        json!({"bid_job_subject_ids": [], "topics": ["fr"]}),
        json!({"bid_job_subject_ids": [], "bid_job_mode": "mixed"}),
    ]
    .into_iter()
    .enumerate()
    {
        let started = Instant::now();
        let id = id_of(&post_task(&server, &bidding_task(assignment.clone())).await);
        let output = final_output(&server, &id, "failed").await;
        // At once, not after the bidding limit (24 h): the bound leaves room for a loaded moto.
        assert!(started.elapsed() < Duration::from_secs(30), "{assignment}: failed after {:?}", started.elapsed());
        let error = output["error"].as_str().unwrap_or_default();
        assert!(error.contains("bid_job_subject_ids is [] (an explicit empty roster)"), "{assignment}: {output}");
        assert!(error.contains("no_valid_bids"), "the spec's no-bids case: {output}");
        let stored = task(&server, &id).await;
        assert_eq!(stored["task_metadata"].get("bid_job_id"), None, "{assignment}: no bid job: {stored}");
        assert_eq!(stored["task_metadata"]["task_assignment"], bidding_task(assignment.clone())["task_metadata"]["task_assignment"]);
        let (status, jobs) = server.post("/bid-jobs/query", &json!({})).await;
        assert_eq!((status, &jobs["data"]), (200, &json!([])), "{n}: no job on Orcade: {jobs}");
    }
    for subject in ["roster-fr", "roster-de"] {
        assert_eq!(bid_requests(&server, subject).await, Vec::<Value>::new(), "{subject} was asked to bid");
    }

    // An absent key falls back to the topics, then to every subject.
    let id = id_of(&post_task(&server, &bidding_task(json!({"topics": ["de"]}))).await);
    let job =
        wait_until("the topic job", SOON, || async { task(&server, &id).await["task_metadata"]["bid_job_id"].as_str().map(str::to_owned) })
            .await;
    assert_eq!(data(&server, &format!("/bid-jobs/{job}")).await["bid_job_subject_ids"], json!(["roster-de"]));
    let id = id_of(&post_task(&server, &bidding_task(json!({}))).await);
    let job = wait_until("the job for all", SOON, || async {
        task(&server, &id).await["task_metadata"]["bid_job_id"].as_str().map(str::to_owned)
    })
    .await;
    assert_eq!(data(&server, &format!("/bid-jobs/{job}")).await["bid_job_subject_ids"], json!(["roster-de", "roster-fr"]));
    wait_until("the bid_requests", SOON, || async { (bid_requests(&server, "roster-fr").await.len() == 1).then_some(()) }).await;
}

/// The selector's answer: the subject its parameters name (so a selector that did not get them
/// names nobody, and the task fails).
fn pick(parameters: &Value) -> Value {
    json!({"selected_subject_id": parameters["pick"]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn function_mode_parameters_reach_http_lambda_and_registry_selectors() {
    // An HTTP selector (a URL), and an external registry function's URL.
    let http = StubServer::json(|r| (200, pick(&r.json["parameters"]))).await;
    let external = StubServer::json(|r| (200, json!({"data": pick(&r.json["parameters"])}))).await;
    // A Lambda-API-compatible endpoint.
    let lambda = StubServer::json(|r| (200, pick(&r.json["parameters"]))).await;
    // A function registry with a stateless, a stateful and an external function.
    let external_url = format!("{}/ext-select", external.url);
    let registry = StubServer::json(move |r| match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/functions/select-stateless:1") => (200, json!({"function_name": "select-stateless", "is_stateful": false})),
        ("GET", "/functions/select-stateful:1") => (200, json!({"data": {"function_name": "select-stateful", "is_stateful": true}})),
        ("GET", "/functions/select-external:1") => {
            (200, json!({"function_name": "select-external", "is_external": true, "external_function_url": external_url}))
        }
        ("POST", p) if p.starts_with("/function/deployments/create/") => (201, json!({"data": {"created": true}})),
        ("POST", p) if p.starts_with("/function/call_function/") => {
            (200, json!({"data": {"job_output_data": pick(&r.json["parameters"])}}))
        }
        ("POST", p) if p.starts_with("/function/call_as_job/") => (200, json!({"data": {"job_output_data": pick(&r.json["parameters"])}})),
        _ => (404, json!({"error": "no route"})),
    })
    .await;
    let (registry_url, lambda_url) = (registry.url.clone(), lambda.url.clone());
    let server = Server::start_with(|c| {
        c.hooks.functions_registry_url = Some(registry_url);
        c.hooks.executor_id = Some("executor-3".into());
        c.hooks.lambda_endpoint_url = Some(lambda_url);
    })
    .await;
    for id in ["fp-a", "fp-b", "fp-c"] {
        post_subject(&server, &json!({"subject_id": id})).await;
    }

    let selectors = [
        (format!("{}/select", http.url), "fp-b"),
        ("arn:aws:lambda:us-east-1:123456789012:function:select".to_owned(), "fp-c"),
        ("select-stateless:1".to_owned(), "fp-b"),
        ("select-stateful:1".to_owned(), "fp-c"),
        ("select-external:1".to_owned(), "fp-a"),
        // The builtins get theirs as before: the first subject with the capability.
        ("builtin:by-capability".to_owned(), "fp-a"),
    ];
    for (function_id, chosen) in &selectors {
        let parameters = json!({"pick": chosen, "require": [], "weights": {"cost": 0.7}});
        let stored = post_task(&server, &function_task(function_id, parameters, json!({"doc": 1}))).await;
        assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!(chosen), "{function_id}: {stored}");
        assert_eq!(final_output(&server, &id_of(&stored), "completed").await["success"], json!(true), "{function_id}");
    }

    // What each selector received: §4's input with the task's parameters beside it.
    let want = |chosen: &str| json!({"pick": chosen, "require": [], "weights": {"cost": 0.7}});
    let input = &http.received("/select")[0].json;
    assert_eq!(keys(input), ["parameters", "subjects", "task"], "{input}");
    assert_eq!(input["parameters"], want("fp-b"));
    assert_eq!(input["task"]["task_data"], json!({"doc": 1}));
    assert_eq!(input["subjects"].as_array().map(Vec::len), Some(3));
    let invoked = &lambda.received("/2015-03-31/functions/")[0].json;
    assert_eq!((keys(invoked), &invoked["parameters"]), (keys(input), &want("fp-c")), "the Lambda payload: {invoked}");
    let job = &registry.received("/function/call_as_job/executor-3")[0].json;
    assert_eq!(job["function_id"], json!("select-stateless:1"));
    assert_eq!(job["parameters"], want("fp-b"), "the registry job's parameters: {job}");
    assert_eq!(job["inputs"]["parameters"], want("fp-b"), "and in its inputs: {job}");
    let stateful = &registry.received("/function/call_function/")[0].json;
    assert_eq!((stateful["function_id"].clone(), stateful["parameters"].clone()), (json!("select-stateful:1"), want("fp-c")), "{stateful}");
    let ext = &external.received("/ext-select")[0].json;
    assert_eq!((keys(ext), &ext["parameters"]), (keys(input), &want("fp-a")), "the external function: {ext}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn patch_is_a_raw_set_of_any_field_read_back_as_stored() {
    let server = Server::start().await;
    post_subject(
        &server,
        &json!({"subject_id": "raw-1", "subject_metadata": {"owner": "team-nlp"}, "topics": ["nlp"], "subject_capabilities": {"gpu": true}}),
    )
    .await;
    let patch = |body: Value| {
        let server = &server;
        async move { server.send(Method::PATCH, "/subjects/raw-1", Some(&body)).await }
    };

    // Fields the subject does not define, dotted paths into new objects, below a known object,
    // and a null: all set as given, in one $set.
    let (status, body) = patch(json!({
        "colour": "blue",
        "profile.team.lead": "ada",
        "subject_metadata.region": "eu",
        "rank": [1, {"x": null}],
        "subject_capabilities": null,
    }))
    .await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "{body}");
    let want = json!({
        "subject_id": "raw-1", "subject_metadata": {"owner": "team-nlp", "region": "eu"}, "task_evaluation_function": "",
        "subject_capabilities": null, "topics": ["nlp"], "colour": "blue", "profile": {"team": {"lead": "ada"}}, "rank": [1, {"x": null}],
    });
    assert_eq!(body["data"], want, "the answer is the document as stored");
    assert_eq!(data(&server, "/subjects/raw-1").await, want, "GET reads back what was set");
    assert_eq!(keys(&data(&server, "/subjects/raw-1").await), keys(&want));
    let found = server.post("/subjects/query", &json!({"profile.team.lead": "ada"})).await.1;
    assert_eq!(found["data"], json!([want]), "queried by an extra field: {found}");
    let (status, body) = patch(json!({"profile.team.size": 3, "colour": "green"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["profile"], json!({"team": {"lead": "ada", "size": 3}}));
    // Keys inside a value are not paths: stored as given, but for a key no store keeps alike
    // (a leading `$`, a NUL), refused by its path on every store.
    let odd = json!({"dotted.key": [true], "": "empty", "x$": "$y"});
    let (status, body) = patch(json!({"odd": odd})).await;
    assert_eq!((status, &body["data"]["odd"]), (200, &odd), "{body}");
    let (status, body) = patch(json!({"odd": {"$keyed": 1}})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().is_some_and(|e| e.starts_with("odd.$keyed is not a storable key")), "{body}");
    // A value a store cannot hold is a 400 naming why, never a 500 (MongoDB holds no integer
    // beyond 64 bits; the other stores do).
    let (status, body) = patch(json!({"huge": u64::MAX})).await;
    assert!(status == 200 || (status == 400 && body["error"].as_str().is_some_and(|e| e.contains("store refused"))), "{status} {body}");
    let (status, body) = patch(json!({"huge": null, "odd": null})).await;
    assert_eq!(status, 200, "{body}");

    // Refused by name, nothing changed: the ids, operators, paths the store cannot walk,
    // overlaps, and values of the subject's own fields it could not read.
    let before = data(&server, "/subjects/raw-1").await;
    for (body, needle) in [
        (json!({"subject_id": "raw-2"}), "subject_id"),
        (json!({"_id": 1}), "_id"),
        (json!({"$set": {"colour": "red"}}), "$set"),
        (json!({"profile.$team": 1}), "profile.$team"),
        (json!({"profile..team": 1}), "profile..team"),
        (json!({"colour.shade": "dark"}), "colour.shade"),
        (json!({"rank.0": 2}), "rank.0"),
        (json!({"profile": {}, "profile.team": 1}), "profile.team"),
        (json!({"topics": "nlp"}), "topics"),
        (json!({"topics.first": "nlp"}), "topics.first"),
        (json!({"subject_metadata": "owner"}), "subject_metadata"),
        (json!({"task_evaluation_function": ["x"]}), "task_evaluation_function"),
    ] {
        let (status, answer) = patch(body.clone()).await;
        assert_eq!((status, &answer["ok"]), (400, &json!(false)), "{body}: {answer}");
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(needle)), "{body}: {answer}");
    }
    assert_eq!(data(&server, "/subjects/raw-1").await, before, "nothing changed");

    // The flows still read the subject: its null capabilities as {}, its extra fields ignored.
    let request = function_task("builtin:first-subject", json!({}), json!({"n": 1}));
    let stored = post_task(&server, &request).await;
    assert_eq!(stored["task_metadata"]["assigned_subject_id"], json!("raw-1"));
    final_output(&server, &id_of(&stored), "completed").await;
}
