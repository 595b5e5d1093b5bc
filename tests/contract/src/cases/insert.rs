//! `insert`: several documents at once, all or none; keys and unique constraints; documents the
//! store must refuse.

use crate::check::*;
use crate::fixtures::*;
use crate::spec::{CLAIMS, INPUTS, SPECS, TASKS, VOTES};
use crate::SharedStore;
use agora_store::{to_json, Json};
use serde_json::{json, value::RawValue};

/// The three documents of a task go in with one call, and all three come back.
pub async fn insert_task_bundle_in_one_call(store: SharedStore) {
    let id = "task_bundle01";
    let docs = [(TASKS, task(id, "scheduled", &[])), (SPECS, subject_spec(id)), (INPUTS, evaluation_input(id))];
    store.insert(docs.iter().map(|(c, d)| (*c, to_json(d))).collect()).await.expect("the bundle is stored");
    for (collection, doc) in &docs {
        assert_eq!(get_value(&store, collection, id).await.as_ref(), Some(doc), "{collection}");
    }
}

/// Inserting nothing succeeds and writes nothing.
pub async fn insert_nothing(store: SharedStore) {
    store.insert(Vec::new()).await.expect("an empty insert succeeds");
    assert_eq!(count(&store, VOTES, json!({}), None).await, 0);
}

/// One document of a batch duplicating a stored key: the batch fails and writes none of its
/// documents, including those listed before the duplicate.
pub async fn insert_is_all_or_none(store: SharedStore) {
    put(&store, VOTES, &vote("v-existing", "task_a", "agent-1", true)).await;
    let result = store
        .insert(vec![
            (TASKS, to_json(&task("task_new", "scheduled", &[]))),
            (VOTES, to_json(&vote("v-new", "task_a", "agent-2", true))),
            (VOTES, to_json(&vote("v-existing", "task_b", "agent-3", false))),
            (SPECS, to_json(&subject_spec("task_new"))),
        ])
        .await;
    assert_duplicate(result, VOTES, "vote_id");
    assert_eq!(get_value(&store, TASKS, "task_new").await, None);
    assert_eq!(get_value(&store, VOTES, "v-new").await, None);
    assert_eq!(get_value(&store, SPECS, "task_new").await, None);
    assert_eq!(get_value(&store, VOTES, "v-existing").await, Some(vote("v-existing", "task_a", "agent-1", true)));
    assert_eq!(count(&store, VOTES, json!({}), None).await, 1);
}

/// Two documents of one batch colliding with each other (same key, or same unique pair): the
/// batch fails and writes nothing.
pub async fn insert_batch_colliding_with_itself(store: SharedStore) {
    let same_key = store
        .insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1", true))), (VOTES, to_json(&vote("v-1", "task_a", "agent-2", true)))])
        .await;
    assert_duplicate(same_key, VOTES, "vote_id");
    let same_pair = store
        .insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1", true))), (VOTES, to_json(&vote("v-2", "task_a", "agent-1", true)))])
        .await;
    assert_duplicate(same_pair, VOTES, "social_task_id,submitter_subject_id");
    assert_eq!(count(&store, VOTES, json!({}), None).await, 0);
}

/// The same key twice: `Duplicate` naming the key field; the stored document is unchanged.
pub async fn duplicate_key(store: SharedStore) {
    let first = vote("v-1", "task_a", "agent-1", true);
    put(&store, VOTES, &first).await;
    let text = get_text(&store, VOTES, "v-1").await;
    let again = store.insert(vec![(VOTES, to_json(&vote("v-1", "task_b", "agent-2", false)))]).await;
    assert_duplicate(again, VOTES, "vote_id");
    assert_eq!(get_text(&store, VOTES, "v-1").await, text);

    put(&store, TASKS, &task("task_a", "scheduled", &[])).await;
    let task_again = store.insert(vec![(TASKS, to_json(&task("task_a", "started", &[])))]).await;
    assert_duplicate(task_again, TASKS, "social_task_id");
    assert_eq!(get_value(&store, TASKS, "task_a").await.expect("stored")["status"], "scheduled");
}

/// The same (task, subject) under another vote id: `Duplicate` naming the unique pair; the
/// pair is what is unique, not either field.
pub async fn duplicate_unique_pair(store: SharedStore) {
    let first = vote("v-1", "task_a", "agent-1", true);
    put(&store, VOTES, &first).await;
    let text = get_text(&store, VOTES, "v-1").await;
    let second = store.insert(vec![(VOTES, to_json(&vote("v-2", "task_a", "agent-1", false)))]).await;
    assert_duplicate(second, VOTES, "social_task_id,submitter_subject_id");
    assert_eq!(get_value(&store, VOTES, "v-2").await, None);
    assert_eq!(get_text(&store, VOTES, "v-1").await, text);

    put(&store, VOTES, &vote("v-3", "task_a", "agent-2", true)).await;
    put(&store, VOTES, &vote("v-4", "task_b", "agent-1", true)).await;
    assert_eq!(count(&store, VOTES, json!({}), None).await, 3);
}

/// The key of a deleted document, and its unique pair, can be used again.
pub async fn reinsert_after_delete(store: SharedStore) {
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    assert!(store.delete(VOTES, "v-1", &agora_filter::Filter::all()).await.expect("delete"));
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", false)).await;
    assert!(store.delete(VOTES, "v-1", &agora_filter::Filter::all()).await.expect("delete"));
    put(&store, VOTES, &vote("v-2", "task_a", "agent-1", true)).await;
    assert_eq!(find_keys(&store, VOTES, "vote_id", json!({})).await, ["v-2"]);
}

/// Documents that are not objects, lack their key or have a non-string key are refused, and a
/// batch holding one writes nothing.
pub async fn invalid_documents(store: SharedStore) {
    let raw = |text: &str| -> Json { RawValue::from_string(text.to_string()).expect("valid JSON") };
    for text in ["[]", "\"v-1\"", "1", "null", "true", r#"[{"vote_id": "v-1"}]"#] {
        assert_invalid(store.insert(vec![(VOTES, raw(text))]).await, VOTES);
    }
    let mut no_key = vote("v-1", "task_a", "agent-1", true);
    no_key.as_object_mut().expect("object").remove("vote_id");
    assert_invalid(store.insert(vec![(VOTES, to_json(&no_key))]).await, VOTES);
    for key in [json!(17), json!(null), json!(["v-1"]), json!({"id": "v-1"})] {
        let mut doc = vote("v-1", "task_a", "agent-1", true);
        doc["vote_id"] = key;
        assert_invalid(store.insert(vec![(VOTES, to_json(&doc))]).await, VOTES);
    }
    let mut claim_without_key = claim("c", "me");
    claim_without_key.as_object_mut().expect("object").remove("claim_id");
    let batch = store.insert(vec![(VOTES, to_json(&vote("v-ok", "task_a", "agent-1", true))), (CLAIMS, to_json(&claim_without_key))]).await;
    assert_invalid(batch, CLAIMS);
    assert_eq!(count(&store, VOTES, json!({}), None).await, 0);
    assert_eq!(count(&store, CLAIMS, json!({}), None).await, 0);
}

/// Every method names an unknown collection in its error.
pub async fn unknown_collection(store: SharedStore) {
    let all = agora_filter::Filter::all();
    assert_unknown(store.insert(vec![("nope", to_json(&claim("c", "me")))]).await, "nope");
    assert_unknown(store.get("nope", "c").await, "nope");
    assert_unknown(store.find("nope", &all).await, "nope");
    assert_unknown(store.count("nope", &all, None).await, "nope");
    assert_unknown(store.update("nope", "c", &all, &set(json!({"a": 1}))).await, "nope");
    assert_unknown(store.delete("nope", "c", &all).await, "nope");
    // A batch mixing a known and an unknown collection writes nothing.
    let mixed = store.insert(vec![(VOTES, to_json(&vote("v-1", "t", "s", true))), ("nope", to_json(&claim("c", "me")))]).await;
    assert_unknown(mixed, "nope");
    assert_eq!(get_value(&store, VOTES, "v-1").await, None);
}

/// `get` of a missing key is `None`.
pub async fn get_missing(store: SharedStore) {
    assert_eq!(get_value(&store, VOTES, "v-missing").await, None);
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    assert_eq!(get_value(&store, VOTES, "v-missing").await, None);
    assert_eq!(get_value(&store, TASKS, "v-1").await, None, "keys are per collection");
}
