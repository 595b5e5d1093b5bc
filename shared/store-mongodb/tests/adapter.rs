//! What the MongoDB adapter promises beyond the contract suite: numbers round-trip exactly, `_id`
//! stays inside, connecting twice is harmless, transactions roll back whole, documents over
//! 16 MB are refused cleanly, `$set` values are literals.

mod common;

use agora_filter::Filter;
use agora_store::{to_json, Change, DocumentStore, StoreError};
use agora_store_contract::spec::{CLAIMS, INPUTS as EVALUATION_INPUTS, SPECS as SUBJECT_SPECS, TASKS, VOTES};
use agora_store_contract::CONTRACT_DB;
use agora_store_mongodb::{MongoDeployment, MongoStore, MAX_DOCUMENT_BYTES};
use bson::{doc, Bson, RawDocumentBuf};
use common::{fresh_database_name, uri, TestStore};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

fn vote(id: &str, task: &str, subject: &str) -> Value {
    json!({
        "vote_id": id,
        "social_task_id": task,
        "submitter_subject_id": subject,
        "vote_data": {"selected_option": "agent-translator-02"},
        "submission_time": "2026-10-22T10:03:12.481203",
        "qualified": true
    })
}

fn task(id: &str, status: &str) -> Value {
    json!({
        "social_task_id": id,
        "created_by_subject_id": "planner-service",
        "goal_data": {"objective": "Choose", "budget": {"amount": 10}},
        "status": status,
        "report_json": {},
        "enable_live_streaming": true
    })
}

fn ids(docs: &[agora_store::Json], key: &str) -> Vec<String> {
    docs.iter().map(|d| serde_json::from_str::<Value>(d.get()).expect("json")[key].as_str().expect("key").to_string()).collect()
}

fn assert_invalid<T: std::fmt::Debug>(result: Result<T, StoreError>, collection: &str, reason_has: &str) {
    match result {
        Err(StoreError::InvalidDocument { collection: c, reason }) => {
            assert_eq!(c, collection);
            assert!(reason.contains(reason_has), "reason {reason:?} lacks {reason_has:?}");
        }
        other => panic!("expected InvalidDocument on {collection}, got {other:?}"),
    }
}

/// Integers of every size come back as the same integers (not `1.0`), floats as the same
/// floats, byte for byte, through `get` and `find`; equality on integers past 2^53 is exact.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integers_and_floats_round_trip() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let mut doc = vote("v-num", "task_n", "agent-1");
    doc["numbers"] = json!({
        "zero": 0, "one": 1, "minus_one": -1, "i32_max": i32::MAX, "i32_min": i32::MIN,
        "past_i32": 2_147_483_648_i64, "below_i32": -2_147_483_649_i64, "i64_max": i64::MAX, "i64_min": i64::MIN,
        "two_53_plus_1": 9_007_199_254_740_993_i64,
        "one_float": 1.0, "half": 0.5, "negative_zero": -0.0, "tiny": 5e-324, "huge": 1e300, "pi": std::f64::consts::PI,
        "third": 1.0 / 3.0, "nested": [1, 1.0, [2, 2.5], {"n": -7}]
    });
    let written = to_json(&doc);
    t.insert(vec![(VOTES, written.clone())]).await.expect("insert");
    let read = t.get(VOTES, "v-num").await.expect("get").expect("stored");
    assert_eq!(read.get(), written.get());
    assert!(read.get().contains(r#""one":1,"#) && read.get().contains(r#""one_float":1.0,"#), "{}", read.get());
    let found = t.find(VOTES, &Filter::must(json!({"vote_id": "v-num"}))).await.expect("find");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].get(), written.get());

    let mut neighbour = vote("v-num-2", "task_n", "agent-2");
    neighbour["numbers"] = json!({"two_53_plus_1": 9_007_199_254_740_992_i64, "i64_max": i64::MAX - 1});
    t.insert(vec![(VOTES, to_json(&neighbour))]).await.expect("insert");
    for (filter, expected) in [
        (json!({"numbers.two_53_plus_1": 9_007_199_254_740_993_i64}), vec!["v-num"]),
        (json!({"numbers.two_53_plus_1": 9_007_199_254_740_992_i64}), vec!["v-num-2"]),
        (json!({"numbers.i64_max": i64::MAX}), vec!["v-num"]),
        (json!({"numbers.i64_max": {"$lt": i64::MAX}}), vec!["v-num-2"]),
        (json!({"numbers.one": 1.0}), vec!["v-num"]),
        (json!({"numbers.one_float": 1}), vec!["v-num"]),
        (json!({"numbers.i64_max": {"$lt": u64::MAX}}), vec!["v-num", "v-num-2"]),
    ] {
        let docs = t.find(VOTES, &Filter::must(filter.clone())).await.expect("find");
        assert_eq!(ids(&docs, "vote_id"), expected, "{filter}");
    }
}

/// Integers BSON cannot hold are refused, not rounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn integers_beyond_64_bits_are_refused() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let mut doc = vote("v-big", "task_n", "agent-1");
    doc["weight"] = json!(u64::MAX);
    assert_invalid(t.insert(vec![(VOTES, to_json(&doc))]).await, VOTES, "64-bit");
    t.insert(vec![(VOTES, to_json(&vote("v-ok", "task_n", "agent-1")))]).await.expect("insert");
    let set = Change::set(&json!({"weight": u64::MAX}));
    assert_invalid(t.update(VOTES, "v-ok", &Filter::all(), &set).await, VOTES, "64-bit");
}

/// The server keeps an ObjectId `_id` on every document; no read returns it, and callers cannot
/// write it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn id_is_never_returned() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    t.insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1")))]).await.expect("insert");
    t.insert(vec![(TASKS, to_json(&task("task_a", "scheduled"))), (VOTES, to_json(&vote("v-2", "task_a", "agent-2")))])
        .await
        .expect("insert a bundle");
    let raw = t.store.database().collection::<RawDocumentBuf>(VOTES).find_one(doc! {"vote_id": "v-1"}).await.expect("raw read");
    let raw = raw.expect("stored");
    assert!(matches!(raw.get("_id"), Ok(Some(bson::raw::RawBsonRef::ObjectId(_)))), "the driver generated an ObjectId _id");

    let mut texts: Vec<String> = Vec::new();
    texts.push(t.get(VOTES, "v-1").await.expect("get").expect("stored").get().to_string());
    texts.push(t.get(TASKS, "task_a").await.expect("get").expect("stored").get().to_string());
    for collection in [VOTES, TASKS] {
        texts.extend(t.find(collection, &Filter::all()).await.expect("find").iter().map(|d| d.get().to_string()));
        let filtered = t.find(collection, &Filter::must(json!({"social_task_id": "task_a"}))).await.expect("find");
        texts.extend(filtered.iter().map(|d| d.get().to_string()));
    }
    assert_eq!(texts.len(), 8);
    for text in &texts {
        assert!(!text.contains(r#""_id""#), "no _id in {text}");
        assert!(serde_json::from_str::<Value>(text).expect("json").get("_id").is_none());
    }

    let mut with_id = vote("v-3", "task_a", "agent-3");
    with_id["_id"] = json!("mine");
    assert_invalid(t.insert(vec![(VOTES, to_json(&with_id))]).await, VOTES, "_id");
    assert_invalid(t.update(VOTES, "v-1", &Filter::all(), &Change::set(&json!({"_id": "x"}))).await, VOTES, "_id");
    // A filter on `_id` is a filter on a field no document has (as far as callers know).
    assert!(t.find(VOTES, &Filter::must(json!({"_id": {"$exists": true}, "vote_id": "none"}))).await.expect("find").is_empty());
}

/// Connecting twice to the same database creates nothing twice and loses nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connecting_twice_keeps_the_indexes() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    t.insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1")))]).await.expect("insert");
    let again = MongoStore::connect(&uri(), CONTRACT_DB.named(t.name.clone())).await.expect("connect again");
    let third = MongoStore::connect(&uri(), CONTRACT_DB.named(t.name.clone())).await.expect("connect a third time");
    assert_eq!(
        again.get(VOTES, "v-1").await.expect("get").map(|d| d.get().to_string()),
        Some(to_json(&vote("v-1", "task_a", "agent-1")).get().to_string())
    );

    let names = |collection: &'static str| {
        let db = third.database().clone();
        async move {
            db.collection::<RawDocumentBuf>(collection).list_index_names().await.expect("list indexes").into_iter().collect::<BTreeSet<_>>()
        }
    };
    let expected_votes: BTreeSet<String> = [
        "_id_",
        "unique:vote_id",
        "unique:social_task_id,submitter_subject_id",
        "by:social_task_id",
        "by:submitter_subject_id",
        "by:qualified",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(names(VOTES).await, expected_votes);
    let expected_tasks: BTreeSet<String> = ["_id_", "unique:social_task_id", "by:status"].into_iter().map(String::from).collect();
    assert_eq!(names(TASKS).await, expected_tasks);
    let expected_claims: BTreeSet<String> = ["_id_", "unique:claim_id"].into_iter().map(String::from).collect();
    assert_eq!(names(CLAIMS).await, expected_claims);

    // The unique constraints hold through either connection.
    let dup = again.insert(vec![(VOTES, to_json(&vote("v-2", "task_a", "agent-1")))]).await;
    assert_eq!(dup, Err(StoreError::Duplicate { collection: VOTES.into(), fields: "social_task_id,submitter_subject_id".into() }));
}

/// The index record: once the indexes exist it lists them, and a start-up that finds it
/// unchanged creates nothing (an index dropped by hand stays dropped); a record that lists
/// other indexes (an older release's) or none has every missing index made again. Databases
/// opened on one deployment share its client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_index_record_spares_a_start_up_its_index_creation() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let db = t.store.database().clone();
    let record = db.collection::<bson::Document>("_agora_indexes");
    let lines = |d: Option<bson::Document>| -> Vec<String> {
        d.expect("the index record").get_array("indexes").expect("indexes").iter().map(|l| l.as_str().expect("line").to_owned()).collect()
    };
    let listed = lines(record.find_one(doc! {"_id": "indexes"}).await.expect("read"));
    assert!(
        listed.contains(
            &"votes unique:social_task_id,submitter_subject_id { \"social_task_id\": 1, \"submitter_subject_id\": 1 } unique=true"
                .to_owned()
        ),
        "{listed:?}"
    );
    assert!(listed.contains(&"tasks by:status { \"status\": 1, \"_id\": 1 } unique=false".to_owned()), "{listed:?}");
    let vote_indexes = || {
        let votes = db.collection::<RawDocumentBuf>(VOTES);
        async move { votes.list_index_names().await.expect("list indexes").into_iter().collect::<BTreeSet<_>>() }
    };

    let deployment = MongoDeployment::connect(&uri()).await.expect("deployment");
    db.collection::<RawDocumentBuf>(VOTES).drop_index("by:qualified").await.expect("drop an index");
    deployment.open(CONTRACT_DB.named(t.name.clone())).await.expect("open with the record standing");
    assert!(!vote_indexes().await.contains("by:qualified"), "the record stood: nothing was created");

    // An older release's record (one index fewer listed): what is missing is made again.
    record.update_one(doc! {"_id": "indexes"}, doc! {"$pop": {"indexes": 1}}).await.expect("shorten the record");
    let other = deployment.open(CONTRACT_DB.named(t.name.clone())).await.expect("open with another record");
    assert!(vote_indexes().await.contains("by:qualified"), "made again");
    assert_eq!(lines(record.find_one(doc! {"_id": "indexes"}).await.expect("read")), listed, "the record rewritten");

    // No record at all (deleted by hand): the same.
    db.collection::<RawDocumentBuf>(VOTES).drop_index("by:qualified").await.expect("drop an index");
    record.delete_many(doc! {}).await.expect("delete the record");
    deployment.open(CONTRACT_DB.named(t.name.clone())).await.expect("open without a record");
    assert!(vote_indexes().await.contains("by:qualified"), "made again");

    // The store's own collections are not the spec's to name.
    let mut reserved = CONTRACT_DB.named(t.name.clone());
    reserved.collections = &[agora_store::CollectionSpec { name: "_agora_indexes", key: "k", unique: &[], indexed: &[] }];
    let refused = deployment.open(reserved).await;
    assert!(matches!(&refused, Err(StoreError::Backend(m)) if m.contains("_agora_indexes is reserved")), "{refused:?}");
    other.insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1")))]).await.expect("the store works");
}

/// A batch over four collections whose last document breaks a unique constraint writes nothing,
/// in any collection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_in_a_transaction_rolls_back_everything() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    t.insert(vec![(VOTES, to_json(&vote("v-old", "task_x", "agent-1")))]).await.expect("insert");
    let batch = vec![
        (TASKS, to_json(&task("task_x", "scheduled"))),
        (SUBJECT_SPECS, to_json(&json!({"social_task_id": "task_x", "topic_title": "t"}))),
        (EVALUATION_INPUTS, to_json(&json!({"social_task_id": "task_x", "voting_pqt": {}}))),
        (CLAIMS, to_json(&json!({"claim_id": "start:task_x", "owner": "me"}))),
        (VOTES, to_json(&vote("v-new", "task_x", "agent-2"))),
        (VOTES, to_json(&vote("v-clash", "task_x", "agent-1"))),
    ];
    let result = t.insert(batch.clone()).await;
    assert_eq!(result, Err(StoreError::Duplicate { collection: VOTES.into(), fields: "social_task_id,submitter_subject_id".into() }));
    for collection in [TASKS, SUBJECT_SPECS, EVALUATION_INPUTS, CLAIMS] {
        assert_eq!(t.count(collection, &Filter::all(), None).await.expect("count"), 0, "{collection}");
    }
    assert_eq!(ids(&t.find(VOTES, &Filter::all()).await.expect("find"), "vote_id"), ["v-old"]);

    // Without the clash the same batch goes in whole.
    let mut fixed = batch;
    fixed.pop();
    t.insert(fixed).await.expect("insert the batch");
    for collection in [TASKS, SUBJECT_SPECS, EVALUATION_INPUTS, CLAIMS] {
        assert_eq!(t.count(collection, &Filter::all(), None).await.expect("count"), 1, "{collection}");
    }
    assert_eq!(ids(&t.find(VOTES, &Filter::all()).await.expect("find"), "vote_id"), ["v-old", "v-new"]);
}

/// Transactions racing for the same claim (each with a vote of its own): exactly one commits,
/// the others fail as duplicates of the claim and leave their vote unwritten.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_transactions_commit_once() {
    const RACERS: usize = 20;
    let t = Arc::new(TestStore::fresh(CONTRACT_DB).await);
    let barrier = Arc::new(tokio::sync::Barrier::new(RACERS));
    let handles: Vec<_> = (0..RACERS)
        .map(|i| {
            let (t, barrier) = (Arc::clone(&t), Arc::clone(&barrier));
            tokio::spawn(async move {
                let batch = vec![
                    (CLAIMS, to_json(&json!({"claim_id": "evaluate:task_r", "owner": format!("racer-{i}")}))),
                    (VOTES, to_json(&vote(&format!("v-{i}"), "task_r", &format!("agent-{i}")))),
                ];
                barrier.wait().await;
                t.insert(batch).await
            })
        })
        .collect();
    let mut results = Vec::new();
    for handle in handles {
        results.push(handle.await.expect("racer"));
    }
    let winners: Vec<usize> = (0..RACERS).filter(|i| results[*i].is_ok()).collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    for result in results.iter().filter(|r| r.is_err()) {
        assert_eq!(result, &Err(StoreError::Duplicate { collection: CLAIMS.into(), fields: "claim_id".into() }));
    }
    assert_eq!(ids(&t.find(VOTES, &Filter::all()).await.expect("find"), "vote_id"), [format!("v-{}", winners[0])]);
}

/// A document over MongoDB's 16 MB limit is `InvalidDocument`, on insert and on update, and
/// nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_over_16_mb_are_invalid() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let mut huge = task("task_huge", "complete");
    huge["report_json"] = json!({"blob": "x".repeat(MAX_DOCUMENT_BYTES)});
    assert_invalid(t.insert(vec![(TASKS, to_json(&huge))]).await, TASKS, "16 MB");
    let bundle = vec![(CLAIMS, to_json(&json!({"claim_id": "c", "owner": "me"}))), (TASKS, to_json(&huge))];
    assert_invalid(t.insert(bundle).await, TASKS, "16 MB");
    assert_eq!(t.count(CLAIMS, &Filter::all(), None).await.expect("count"), 0);

    t.insert(vec![(TASKS, to_json(&task("task_huge", "started")))]).await.expect("insert");
    let set = Change::set(&json!({"report_json": {"blob": "x".repeat(MAX_DOCUMENT_BYTES)}}));
    assert_invalid(t.update(TASKS, "task_huge", &Filter::all(), &set).await, TASKS, "16 MB");

    // Two halves that fit alone but not together: the server refuses the second update.
    let nine_mb = "y".repeat(9 * 1024 * 1024);
    let first = Change::set(&json!({"report_json": {"part": nine_mb}}));
    assert!(t.update(TASKS, "task_huge", &Filter::all(), &first).await.expect("update"));
    let second = Change::set(&json!({"report_extra": nine_mb}));
    assert_invalid(t.update(TASKS, "task_huge", &Filter::all(), &second).await, TASKS, "16 MB");
    let stored: Value = serde_json::from_str(t.get(TASKS, "task_huge").await.expect("get").expect("stored").get()).expect("json");
    assert!(stored.get("report_extra").is_none());
    assert_eq!(stored["report_json"]["part"].as_str().map(str::len), Some(9 * 1024 * 1024));
}

/// `$set` values are stored as written (a string starting with `$` is no field path, an object
/// replaces the field rather than merging into it), and several new fields are appended in the
/// order given, not sorted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_values_are_literals_and_new_fields_keep_their_order() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let before = task("task_s", "started");
    t.insert(vec![(TASKS, to_json(&before))]).await.expect("insert");
    let set = json!({
        "zeta": "$status",
        "goal_data": {"objective": "replaced"},
        "alpha": {"$oid": "65a1b2c3d4e5f60718293a4b"},
        "mid": {"$literal": 1, "a.b": 2}
    });
    assert!(t.update(TASKS, "task_s", &Filter::must(json!({"status": "started"})), &Change::set(&set)).await.expect("update"));
    let after: Value = serde_json::from_str(t.get(TASKS, "task_s").await.expect("get").expect("stored").get()).expect("json");
    let keys: Vec<&str> = after.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["social_task_id", "created_by_subject_id", "goal_data", "status", "report_json", "enable_live_streaming", "zeta", "alpha", "mid"]
    );
    assert_eq!(after["zeta"], "$status");
    assert_eq!(after["goal_data"], json!({"objective": "replaced"}));
    assert_eq!(after["alpha"], json!({"$oid": "65a1b2c3d4e5f60718293a4b"}));
    assert_eq!(after["mid"], json!({"$literal": 1, "a.b": 2}));
}

/// An unreachable server is a `Backend` error naming the cause, not a hang or a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_server_is_a_backend_error() {
    let result = MongoStore::connect("mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=300&connectTimeoutMS=300", CONTRACT_DB).await;
    match result {
        Err(StoreError::Backend(message)) => assert!(message.starts_with("mongodb "), "{message}"),
        other => panic!("expected a Backend error, got {other:?}"),
    }
    let bad_uri = MongoStore::connect("postgres://127.0.0.1", CONTRACT_DB).await;
    assert!(matches!(bad_uri, Err(StoreError::Backend(_))), "{bad_uri:?}");
    // The fresh names tests use are valid database names.
    assert!(fresh_database_name().len() < 64);
}

/// Values the driver hands back for `_id`-less reads are plain BSON: a document inserted as
/// JSON is stored with JSON's types (int32, int64, double, string, ...).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_bson_types_follow_json() {
    let t = TestStore::fresh(CONTRACT_DB).await;
    let mut doc = vote("v-types", "task_t", "agent-1");
    doc["small"] = json!(3);
    doc["large"] = json!(5_000_000_000_i64);
    doc["float"] = json!(3.0);
    t.insert(vec![(VOTES, to_json(&doc))]).await.expect("insert");
    let stored = t.store.database().collection::<bson::Document>(VOTES).find_one(doc! {"vote_id": "v-types"}).await.expect("read");
    let stored = stored.expect("stored");
    assert_eq!(stored.get("small"), Some(&Bson::Int32(3)));
    assert_eq!(stored.get("large"), Some(&Bson::Int64(5_000_000_000)));
    assert_eq!(stored.get("float"), Some(&Bson::Double(3.0)));
    assert_eq!(stored.get("qualified"), Some(&Bson::Boolean(true)));
    let keys: Vec<&str> = stored.keys().map(String::as_str).collect();
    assert_eq!(keys[0], "_id", "the driver puts _id first");
    assert_eq!(&keys[1..4], ["vote_id", "social_task_id", "submitter_subject_id"]);
}
