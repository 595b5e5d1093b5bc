//! `find` and `count`: equality on indexed and other fields, every filter operator, dotted paths,
//! array membership, limits and insertion order.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::{all_collections, CLAIMS, INPUTS, SPECS, TASKS, VOTES};
use crate::SharedStore;
use agora_filter::Filter;
use serde_json::{json, Value};

/// Five votes with varied fields: `weight` is a number only these carry, `v-05` has no
/// `qualified`.
pub(crate) fn sample_votes() -> Vec<Value> {
    let mut votes = vec![
        vote_for("v-01", "task_q", "agent-1", "agent-translator-01", 5),
        vote_for("v-02", "task_q", "agent-2", "agent-translator-02", 10),
        vote_for("v-03", "task_q", "agent-3", "agent-translator-02", 15),
        vote_for("v-04", "task_other", "agent-1", "agent-translator-03", 20),
        vote_for("v-05", "task_q", "agent-5", "agent-translator-03", 25),
    ];
    for (doc, weight) in votes.iter_mut().zip([json!(1), json!(2), json!(3), json!(4), json!(5.5)]) {
        doc["weight"] = weight;
    }
    votes[1]["qualified"] = json!(false);
    votes[4].as_object_mut().expect("object").remove("qualified");
    votes
}

/// Checks `find` and `count` agree on `filter`, returning the vote ids in order.
async fn votes_matching(store: &SharedStore, filter: Value) -> Vec<String> {
    let found = find_keys(store, VOTES, "vote_id", filter.clone()).await;
    assert_eq!(count(store, VOTES, filter.clone(), None).await, found.len() as u64, "count {filter}");
    found
}

/// Equality on the indexed fields (alone and together) and on the key.
pub async fn find_by_indexed_fields(store: SharedStore) {
    put_all(&store, VOTES, &sample_votes()).await;
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_q"})).await, ["v-01", "v-02", "v-03", "v-05"]);
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_q", "qualified": true})).await, ["v-01", "v-03"]);
    assert_eq!(votes_matching(&store, json!({"qualified": false})).await, ["v-02"]);
    assert_eq!(votes_matching(&store, json!({"submitter_subject_id": "agent-1"})).await, ["v-01", "v-04"]);
    assert_eq!(votes_matching(&store, json!({"social_task_id": {"$eq": "task_other"}, "submitter_subject_id": "agent-1"})).await, ["v-04"]);
    assert!(votes_matching(&store, json!({"social_task_id": "task_none"})).await.is_empty());
    assert!(votes_matching(&store, json!({"social_task_id": "task_q", "submitter_subject_id": "agent-4"})).await.is_empty());
    // The key field.
    assert_eq!(votes_matching(&store, json!({"vote_id": "v-03"})).await, ["v-03"]);
    assert_eq!(votes_matching(&store, json!({"vote_id": {"$in": ["v-04", "v-01", "v-09"]}})).await, ["v-01", "v-04"]);
    assert!(votes_matching(&store, json!({"vote_id": 3})).await.is_empty());
    // An indexed equality together with conditions on other fields.
    assert_eq!(
        votes_matching(&store, json!({"social_task_id": "task_q", "vote_data.selected_option": "agent-translator-02"})).await,
        ["v-02", "v-03"]
    );
    assert_eq!(
        votes_matching(&store, json!({"social_task_id": "task_q", "$or": [{"qualified": false}, {"weight": {"$gt": 5}}]})).await,
        ["v-02", "v-05"]
    );
}

/// `true` is not `1`, `false` is not `0`, `"true"` is neither; `1` equals `1.0`. On an indexed
/// field (`votes.qualified`) and on another (`enable_live_streaming`).
pub async fn find_booleans_are_not_numbers(store: SharedStore) {
    let values = [json!(true), json!(1), json!("true"), json!(false), json!(0), json!(1.0), json!(null)];
    for (i, v) in values.iter().enumerate() {
        let mut doc = vote(&format!("v-{i}"), "task_b", &format!("agent-{i}"), true);
        doc["qualified"] = v.clone();
        put(&store, VOTES, &doc).await;
        let mut t = task(&format!("task_{i}"), "scheduled", &[]);
        t["enable_live_streaming"] = v.clone();
        put(&store, TASKS, &t).await;
    }
    let cases = [
        (json!(true), vec!["0"]),
        (json!(1), vec!["1", "5"]),
        (json!(1.0), vec!["1", "5"]),
        (json!("true"), vec!["2"]),
        (json!(false), vec!["3"]),
        (json!(0), vec!["4"]),
        (json!(null), vec!["6"]),
    ];
    for (value, expected) in cases {
        let votes: Vec<String> = expected.iter().map(|i| format!("v-{i}")).collect();
        assert_eq!(votes_matching(&store, json!({"qualified": value})).await, votes, "qualified = {value}");
        let with_task = json!({"social_task_id": "task_b", "qualified": {"$eq": value}});
        assert_eq!(votes_matching(&store, with_task).await, votes, "qualified $eq {value}");
        let tasks: Vec<String> = expected.iter().map(|i| format!("task_{i}")).collect();
        let found = find_keys(&store, TASKS, "social_task_id", json!({"enable_live_streaming": value})).await;
        assert_eq!(found, tasks, "enable_live_streaming = {value}");
    }
}

/// Equality on fields no adapter indexes, top-level and nested.
pub async fn find_by_other_fields(store: SharedStore) {
    put_all(&store, VOTES, &sample_votes()).await;
    assert_eq!(votes_matching(&store, json!({"submission_time": "2026-10-22T10:03:15"})).await, ["v-03"]);
    assert_eq!(votes_matching(&store, json!({"weight": 2})).await, ["v-02"]);
    assert_eq!(votes_matching(&store, json!({"weight": 5.5})).await, ["v-05"]);
    assert_eq!(
        votes_matching(
            &store,
            json!({"vote_data": {"selected_option": "agent-translator-01", "ranking": ["agent-translator-01", "agent-translator-03"]}})
        )
        .await,
        ["v-01"]
    );
    assert!(votes_matching(&store, json!({"no_such_field": "x"})).await.is_empty());
}

/// Every operator the filter language has, on indexed and other fields.
pub async fn find_with_every_operator(store: SharedStore) {
    put_all(&store, VOTES, &sample_votes()).await;
    let cases = [
        (json!({"submitter_subject_id": {"$eq": "agent-3"}}), vec!["v-03"]),
        (json!({"social_task_id": {"$ne": "task_q"}}), vec!["v-04"]),
        (json!({"vote_data.selected_option": {"$ne": "agent-translator-02"}}), vec!["v-01", "v-04", "v-05"]),
        (json!({"weight": {"$gt": 3}}), vec!["v-04", "v-05"]),
        (json!({"weight": {"$gte": 3}}), vec!["v-03", "v-04", "v-05"]),
        (json!({"weight": {"$lt": 2}}), vec!["v-01"]),
        (json!({"weight": {"$lte": 2.0}}), vec!["v-01", "v-02"]),
        (json!({"weight": {"$gt": 1, "$lt": 4}}), vec!["v-02", "v-03"]),
        (json!({"submission_time": {"$gte": "2026-10-22T10:03:15", "$lt": "2026-10-22T10:03:25"}}), vec!["v-03", "v-04"]),
        (json!({"submitter_subject_id": {"$gt": "agent-2"}}), vec!["v-03", "v-05"]),
        (json!({"submitter_subject_id": {"$in": ["agent-2", "agent-5", "agent-9"]}}), vec!["v-02", "v-05"]),
        (json!({"vote_data.selected_option": {"$nin": ["agent-translator-02", "agent-translator-03"]}}), vec!["v-01"]),
        (json!({"qualified": {"$exists": false}}), vec!["v-05"]),
        (json!({"qualified": {"$exists": true}, "social_task_id": "task_q"}), vec!["v-01", "v-02", "v-03"]),
        (json!({"weight": {"$not": {"$gt": 2}}}), vec!["v-01", "v-02"]),
        (json!({"qualified": {"$not": {"$eq": true}}}), vec!["v-02", "v-05"]),
        (json!({"$and": [{"social_task_id": "task_q"}, {"weight": {"$gte": 3}}]}), vec!["v-03", "v-05"]),
        (json!({"$or": [{"submitter_subject_id": "agent-2"}, {"weight": {"$gt": 5}}]}), vec!["v-02", "v-05"]),
        (json!({"$or": [{"social_task_id": "task_other"}, {"qualified": false}], "weight": {"$lt": 3}}), vec!["v-02"]),
        (json!({"social_task_id": "task_q", "submitter_subject_id": {"$nin": ["agent-1"]}, "qualified": true}), vec!["v-03"]),
    ];
    for (filter, expected) in cases {
        assert_eq!(votes_matching(&store, filter.clone()).await, expected, "{filter}");
    }
}

/// Dotted paths through objects and into arrays.
pub async fn find_with_dotted_paths(store: SharedStore) {
    put_all(&store, VOTES, &sample_votes()).await;
    let mut high = task("task_high", "scheduled", &[]);
    high["goal_data"] = json!({"objective": "x", "budget": {"amount": 10, "currency": "EUR"}});
    let mut low = task("task_low", "scheduled", &[]);
    low["social_task_properties"] = json!({"urgency": "low"});
    put_all(&store, TASKS, &[high, low]).await;

    assert_eq!(find_keys(&store, TASKS, "social_task_id", json!({"social_task_properties.urgency": "high"})).await, ["task_high"]);
    assert_eq!(find_keys(&store, TASKS, "social_task_id", json!({"goal_data.budget.amount": {"$gte": 10}})).await, ["task_high"]);
    assert!(find_keys(&store, TASKS, "social_task_id", json!({"goal_data.budget.amount.x": 10})).await.is_empty());
    assert_eq!(votes_matching(&store, json!({"vote_data.selected_option": "agent-translator-03"})).await, ["v-04", "v-05"]);
    assert_eq!(votes_matching(&store, json!({"vote_data.ranking.0": "agent-translator-02"})).await, ["v-02", "v-03"]);
    assert_eq!(votes_matching(&store, json!({"vote_data.ranking": "agent-translator-01"})).await, ["v-01"]);
}

/// A field holding an array matches an element, or the whole array.
pub async fn find_by_array_membership(store: SharedStore) {
    put_all(
        &store,
        TASKS,
        &[
            task("task_1", "scheduled", &["agent-1", "agent-2"]),
            task("task_2", "started", &["agent-2", "agent-3"]),
            task("task_3", "scheduled", &[]),
        ],
    )
    .await;
    let tasks = |f: Value| {
        let store = store.clone();
        async move { find_keys(&store, TASKS, "social_task_id", f).await }
    };
    assert_eq!(tasks(json!({"org_ids": "agent-2"})).await, ["task_1", "task_2"]);
    assert_eq!(tasks(json!({"org_ids": "agent-1", "status": "scheduled"})).await, ["task_1"]);
    assert_eq!(tasks(json!({"org_ids": {"$in": ["agent-3", "agent-9"]}})).await, ["task_2"]);
    assert_eq!(tasks(json!({"org_ids": {"$nin": ["agent-2"]}})).await, ["task_3"]);
    assert_eq!(tasks(json!({"org_ids": ["agent-1", "agent-2"]})).await, ["task_1"]);
    assert_eq!(tasks(json!({"org_ids": []})).await, ["task_3"]);
    assert_eq!(tasks(json!({"org_ids.1": "agent-3"})).await, ["task_2"]);
    assert_eq!(count(&store, TASKS, json!({"org_ids": "agent-2"}), Some(1)).await, 1);
}

/// `count` stops at its limit, with and without conditions left to the matcher.
pub async fn count_with_limit(store: SharedStore) {
    for i in 0..12 {
        put(&store, VOTES, &vote(&format!("v-{i:02}"), "task_c", &format!("agent-{i}"), i % 4 != 3)).await;
    }
    put(&store, VOTES, &vote("v-other", "task_d", "agent-0", true)).await;
    let qualified = json!({"social_task_id": "task_c", "qualified": true});
    assert_eq!(count(&store, VOTES, qualified.clone(), None).await, 9);
    for (limit, expected) in [(0, 0), (1, 1), (5, 5), (9, 9), (10, 9), (1000, 9)] {
        assert_eq!(count(&store, VOTES, qualified.clone(), Some(limit)).await, expected, "limit {limit}");
    }
    let unindexed = json!({"vote_data.selected_option": "agent-translator-02", "social_task_id": "task_c"});
    assert_eq!(count(&store, VOTES, unindexed.clone(), Some(4)).await, 4);
    assert_eq!(count(&store, VOTES, unindexed, None).await, 12);
    assert_eq!(count(&store, VOTES, json!({}), Some(3)).await, 3);
    assert_eq!(count(&store, VOTES, json!({}), None).await, 13);
}

/// `find` lists documents in insertion order, whatever their keys, filtered or not; a document
/// deleted and inserted again comes last.
pub async fn find_in_insertion_order(store: SharedStore) {
    let ids = ["v-z", "v-a", "v-m", "v-b", "v-y", "v-c"];
    for (i, id) in ids.iter().enumerate() {
        put(&store, VOTES, &vote(id, "task_o", &format!("agent-{id}"), i % 2 == 0)).await;
    }
    assert_eq!(votes_matching(&store, json!({})).await, ids);
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_o"})).await, ids);
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_o", "qualified": true})).await, ["v-z", "v-m", "v-y"]);
    assert_eq!(
        votes_matching(&store, json!({"vote_data.selected_option": "agent-translator-02", "qualified": false})).await,
        ["v-a", "v-b", "v-c"]
    );
    assert!(store.delete(VOTES, "v-a", &Filter::all()).await.expect("delete"));
    put(&store, VOTES, &vote("v-a", "task_o", "agent-v-a", false)).await;
    assert_eq!(votes_matching(&store, json!({})).await, ["v-z", "v-m", "v-b", "v-y", "v-c", "v-a"]);
}

/// `Filter::all()` returns every document of the collection, and only those.
pub async fn find_all(store: SharedStore) {
    let id = "task_all";
    put(&store, TASKS, &task(id, "scheduled", &[])).await;
    put(&store, SPECS, &subject_spec(id)).await;
    put(&store, INPUTS, &evaluation_input(id)).await;
    put_all(&store, VOTES, &sample_votes()).await;
    put(&store, CLAIMS, &claim("start:task_all", "me")).await;
    for (collection, expected) in [(TASKS, 1), (SPECS, 1), (INPUTS, 1), (VOTES, 5), (CLAIMS, 1)] {
        let docs = store.find(collection, &Filter::all()).await.expect("find");
        assert_eq!(docs.len(), expected, "{collection}");
        assert_eq!(store.count(collection, &Filter::all(), None).await.expect("count"), expected as u64);
        let parsed = Filter::parse(&json!({})).expect("{} parses");
        assert_eq!(store.find(collection, &parsed).await.expect("find").len(), expected);
    }
    let docs = store.find(VOTES, &Filter::all()).await.expect("find");
    let values: Vec<Value> = docs.iter().map(value).collect();
    assert_eq!(values, sample_votes());
}

/// Every collection starts empty: `find` is empty, `count` is zero, with or without filters.
pub async fn find_on_empty_collections(store: SharedStore) {
    for collection in all_collections() {
        assert!(store.find(collection, &Filter::all()).await.expect("find").is_empty());
        assert_eq!(store.count(collection, &Filter::all(), Some(1)).await.expect("count"), 0);
        let f = filter(json!({"social_task_id": "task_x", "qualified": true, "org_ids": "a"}));
        assert!(store.find(collection, &f).await.expect("find").is_empty());
        assert_eq!(store.count(collection, &f, None).await.expect("count"), 0);
    }
}

/// Results in the thousands (past the page sizes and inline budgets adapters may have): all
/// there, in insertion order, counted exactly.
pub async fn find_and_count_thousands(store: SharedStore) {
    const N: usize = 5_000;
    let ids: Vec<String> = (0..N).map(|i| format!("v-{:05}", (i * 7_919) % N)).collect();
    for chunk in ids.chunks(50) {
        let docs = chunk
            .iter()
            .map(|id| (VOTES, agora_store::to_json(&vote(id, "task_many", &format!("agent-{id}"), !id.ends_with('7')))))
            .collect();
        store.insert(docs).await.expect("insert 50 votes");
    }
    put(&store, VOTES, &vote("v-last", "task_few", "agent-0", true)).await;
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_many"})).await, ids);
    let qualified: Vec<String> = ids.iter().filter(|id| !id.ends_with('7')).cloned().collect();
    assert_eq!(votes_matching(&store, json!({"social_task_id": "task_many", "qualified": true})).await, qualified);
    let by_option = json!({"social_task_id": "task_many", "vote_data.selected_option": "agent-translator-02", "qualified": false});
    assert_eq!(votes_matching(&store, by_option.clone()).await.len(), N / 10);
    assert_eq!(count(&store, VOTES, json!({"qualified": true}), Some(4_000)).await, 4_000);
    assert_eq!(count(&store, VOTES, json!({"qualified": true}), Some(4_600)).await, 4_501);
    assert_eq!(count(&store, VOTES, by_option, Some(450)).await, 450);
    assert_eq!(count(&store, VOTES, json!({}), None).await, N as u64 + 1);
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({"social_task_id": "task_few"})).await, ["v-last"]);
}
