//! Keys a store cannot keep alike (issue 32, item 4): a NUL in a key (MongoDB cannot store one)
//! or a leading `$` (MongoDB reads it as an operator), anywhere inside the free-form objects of
//! the create request and of a vote, in filter field names, and in URL path segments. On every
//! store each is a 400 naming the key by its path (a NUL shown as `\u0000`), never a 5xx, and
//! nothing is stored. Keys with dots, and `$` elsewhere than first, are kept as given.

use agora_e2e::keys::{holding, refused_key, BAD_KEYS};
use agora_e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

/// Every document of the four collections the query route reads.
async fn snapshot(server: &Server) -> Value {
    let mut all = serde_json::Map::new();
    for collection in ["social_task_core_data", "social_choice_subject_spec", "social_choice_evaluation_input", "votes"] {
        let (status, body) = server.post(&format!("/generic-query/{collection}"), &json!({})).await;
        assert_eq!(status, 200, "{collection}: {body}");
        all.insert(collection.to_owned(), body);
    }
    Value::Object(all)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keys_with_a_nul_or_a_leading_dollar_are_refused_by_their_path_on_every_route() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let (status, body) = server.vote(&id, "first", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!(status, 200, "{body}");
    let before = snapshot(&server).await;

    // The objects of the create request stored as given, each at its path.
    let places = [
        ("social_task", "created_by_subject_data"),
        ("social_task", "goal"),
        ("social_task", "properties"),
        ("social_task", "report"),
        ("subject_spec", "voting_metadata"),
    ];
    for (key, shown) in BAD_KEYS {
        for route in ["/submit-social-choice-task", "/parse-social-choice-task"] {
            for (section, field) in places {
                for (value, below) in holding(key, shown) {
                    let mut request = public_request(5);
                    request[section][field] = value;
                    let named = format!("{section}.{field}.{below}");
                    refused_key(&format!("{route} {section}.{field} {shown}"), server.post(route, &request).await, &named);
                }
            }
            // An option id is a key of voting_options.
            let mut request = public_request(5);
            request["subject_spec"]["voting_options"][key] = json!("Translator X");
            let named = format!("subject_spec.voting_options.{shown}");
            refused_key(&format!("{route} option {shown}"), server.post(route, &request).await, &named);
            // A hook's parameters.
            for (value, below) in holding(key, shown) {
                let mut request = public_request(5);
                request["evaluation_spec"]["evaluation"] = json!({"mode": "builtin", "name": "plurality", "parameters": value});
                let named = format!("evaluation_spec.evaluation.parameters.{below}");
                refused_key(&format!("{route} evaluation parameters {shown}"), server.post(route, &request).await, &named);
            }
        }

        // A vote's vote_data.
        for (value, below) in holding(key, shown) {
            let mut data = value;
            data["selected_option"] = json!("agent-translator-02");
            let (status, body) = server.vote(&id, "second", data).await;
            refused_key(&format!("vote_data {shown}"), (status, body.clone()), &format!("vote_data.{below}"));
            assert!(body["error"].as_str().is_some_and(|e| e.starts_with("Vote rejected: ")), "{body}");
        }

        // Queries: the key as a field name, as a path's segment, inside a compared object.
        for filter in [
            json!({key: 1}),
            json!({format!("vote_data.{key}"): {"$exists": true}}),
            json!({"$or": [{"social_task_id": id}, {format!("x.{key}.y"): 1}]}),
            json!({"vote_data": {"offer": {key: 1}}}),
            json!({"vote_data": {"$in": [{"n": {key: 1}}]}}),
        ] {
            for collection in ["social_task_core_data", "votes"] {
                let (status, body) = server.post(&format!("/generic-query/{collection}"), &filter).await;
                if key.starts_with('$') && filter.get("vote_data").is_some() {
                    assert_eq!(status, 200, "{collection} {filter}: {body}");
                    continue;
                }
                assert_eq!(status, 400, "{collection} {filter}: {body}");
                let error = body["error"].as_str().unwrap_or_default();
                assert!(error.starts_with("Invalid filter") && (error.contains("NUL") || error.contains('$')), "{filter}: {error}");
            }
        }
    }

    // URL path segments with a NUL or a `$`: no such task.
    for task in ["a%00b", "%00", "%24where", "%24"] {
        for route in ["get-status", "get-report", "get-full-task-bundle", "is-live-streaming-enabled"] {
            let (status, body) = server.get(&format!("/{route}/{task}")).await;
            assert_eq!(status, 404, "/{route}/{task}: {body}");
        }
        let (status, body) = server.post(&format!("/generic-query/{task}"), &json!({})).await;
        assert_eq!(status, 400, "/generic-query/{task}: {body}");
    }

    assert_eq!(snapshot(&server).await, before, "nothing stored changed");

    // Dots in keys, and `$` anywhere but first, are kept as given, on every store.
    let kept = json!({"selected_option": "agent-translator-02", "why.not": {"x$": "$y", "l": [{"a.b": 1}]}});
    let (status, body) = server.vote(&id, "second", kept.clone()).await;
    assert_eq!(status, 200, "{body}");
    let (_, votes) = server.post("/generic-query/votes", &json!({"submitter_subject_id": "second"})).await;
    assert_eq!(votes[0]["vote_data"], kept, "{votes}");
}
