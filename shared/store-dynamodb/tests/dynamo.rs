//! What the contract suite does not cover and the DynamoDB design promises: a report of
//! 100,000 votes stored in parts and read back whole; the hot paths served by keyed reads, never
//! by a read of the whole collection; no lost update among concurrent writers; the transaction
//! limit; the table's design as documented (the deployment template declares the same).

mod common;

use agora_filter::Filter;
use agora_store::{to_json, Change, DocumentStore, StoreError};
use agora_store_contract::fixtures::{large_report, task, vote, EXAMPLE_TASK_ID};
use agora_store_contract::spec::{CLAIMS, TASKS, VOTES};
use agora_store_dynamodb::{AccessPath, DynamoStore, StoreStats, GSI_SHARDS};
use aws_sdk_dynamodb::types::{AttributeValue, KeyType, ProjectionType};
use common::TempTable;
use serde_json::{json, Value};
use std::sync::Arc;

/// The shards of every GSI key: a GSI read makes one `Query` (at least) per shard.
const SHARDS: u64 = GSI_SHARDS as u64;

/// The partition keys of every item of the table (a test may scan; the store never does).
async fn all_keys(store: &DynamoStore) -> Vec<String> {
    let mut keys = Vec::new();
    let mut start = None;
    loop {
        let page = store
            .client()
            .scan()
            .table_name(store.table_name())
            .projection_expression("pk")
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("scan");
        for item in page.items() {
            if let Some(AttributeValue::S(pk)) = item.get("pk") {
                keys.push(pk.clone());
            }
        }
        start = page.last_evaluated_key.filter(|k| !k.is_empty());
        if start.is_none() {
            keys.sort();
            return keys;
        }
    }
}

fn parts_of(keys: &[String]) -> usize {
    keys.iter().filter(|k| k.starts_with("p#")).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn report_of_100000_votes_round_trips_in_parts() {
    let t = TempTable::new().await;
    let store = &t.store;
    let mut doc = task(EXAMPLE_TASK_ID, "complete", &["agent-reviewer-01"]);
    doc["report_json"] = large_report(100_000);
    let written = to_json(&doc);
    let size = written.get().len();
    assert!(size > 20_000_000, "the report is over 20 MB ({size} bytes)");

    store.insert(vec![(TASKS, written.clone())]).await.expect("insert");
    let keys = all_keys(store).await;
    let parts = parts_of(&keys);
    assert_eq!(parts, size.div_ceil(350_000), "parts of 350,000 bytes: {keys:?}");

    let read = store.get(TASKS, EXAMPLE_TASK_ID).await.expect("get").expect("stored");
    assert!(read.get() == written.get(), "get returns the same text, byte for byte");
    let found = store.find(TASKS, &Filter::must(json!({"status": "complete"}))).await.expect("find");
    assert_eq!(found.len(), 1);
    assert!(found[0].get() == written.get(), "find returns the same text, byte for byte");
    let nested = Filter::must(json!({"report_json.votes.submitter_subject_id": "agent-reviewer-099999"}));
    assert_eq!(store.count(TASKS, &nested, None).await.expect("count"), 1, "filters see the whole document");

    // Replaced by a smaller report still in parts, then by an inline one: old parts go.
    let smaller = large_report(3_000);
    let set = Change::set(&json!({"report_json": smaller}));
    assert!(store.update(TASKS, EXAMPLE_TASK_ID, &Filter::must(json!({"status": "complete"})), &set).await.expect("update"));
    let after = store.get(TASKS, EXAMPLE_TASK_ID).await.expect("get").expect("stored");
    let after: Value = serde_json::from_str(after.get()).expect("json");
    assert_eq!(after["report_json"], smaller);
    let text_len = serde_json::to_string(&after).expect("json").len();
    assert_eq!(parts_of(&all_keys(store).await), text_len.div_ceil(350_000), "only the new generation's parts remain");

    let set = Change::set(&json!({"report_json": {}}));
    assert!(store.update(TASKS, EXAMPLE_TASK_ID, &Filter::all(), &set).await.expect("update"));
    assert_eq!(parts_of(&all_keys(store).await), 0, "an inline document has no parts");

    // Back to a large document, then deleted: nothing is left.
    assert!(store.update(TASKS, EXAMPLE_TASK_ID, &Filter::all(), &Change::set(&json!({"report_json": smaller}))).await.expect("update"));
    assert!(parts_of(&all_keys(store).await) > 0);
    assert!(store.delete(TASKS, EXAMPLE_TASK_ID, &Filter::must(json!({"status": "complete"}))).await.expect("delete"));
    assert_eq!(all_keys(store).await, Vec::<String>::new());
}

/// The calls made by `f`.
async fn calls<F: std::future::Future<Output = T>, T>(store: &DynamoStore, f: F) -> (T, StoreStats) {
    let before = store.stats();
    let out = f.await;
    let after = store.stats();
    let diff = StoreStats {
        get_items: after.get_items - before.get_items,
        put_items: after.put_items - before.put_items,
        delete_items: after.delete_items - before.delete_items,
        transactions: after.transactions - before.transactions,
        index_queries: after.index_queries - before.index_queries,
        collection_queries: after.collection_queries - before.collection_queries,
        update_items: after.update_items - before.update_items,
    };
    (out, diff)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hot_paths_are_keyed_reads() {
    let t = TempTable::new().await;
    let store = &t.store;
    for i in 0..20 {
        let status = if i % 2 == 0 { "scheduled" } else { "started" };
        store.insert(vec![(TASKS, to_json(&task(&format!("task_{i:02}"), status, &[])))]).await.expect("insert task");
    }
    let votes: Vec<_> =
        (0..40).map(|i| (VOTES, to_json(&vote(&format!("v-{i:02}"), "task_01", &format!("agent-{i}"), i % 3 != 0)))).collect();
    store.insert(votes).await.expect("insert 40 votes in one transaction");

    // Vote intake: the vote by id, the vote by (task, subject).
    let (found, stats) = calls(store, store.get(VOTES, "v-07")).await;
    assert!(found.expect("get").is_some());
    assert_eq!((stats.get_items, stats.index_queries, stats.collection_queries), (1, 0, 0));
    let by_subject = Filter::must(json!({"social_task_id": "task_01", "submitter_subject_id": "agent-7"}));
    assert_eq!(
        store.access_path(VOTES, &by_subject).expect("plan"),
        AccessPath::Unique { fields: "social_task_id,submitter_subject_id".into() }
    );
    let (found, stats) = calls(store, store.find(VOTES, &by_subject)).await;
    assert_eq!(found.expect("find").len(), 1);
    assert_eq!((stats.get_items, stats.index_queries, stats.collection_queries), (2, 0, 0), "marker, then vote");

    // Trigger count: qualified votes of the task, counted up to a limit, with and without the
    // private task's voter list.
    let qualified = Filter::must(json!({"social_task_id": "task_01", "qualified": true}));
    assert_eq!(
        store.access_path(VOTES, &qualified).expect("plan"),
        AccessPath::Index { index: "gsi4".into(), fields: "social_task_id,qualified".into() }
    );
    let (n, stats) = calls(store, store.count(VOTES, &qualified, Some(5))).await;
    assert_eq!(n.expect("count"), 5);
    assert_eq!((stats.index_queries, stats.collection_queries), (SHARDS, 0), "one Query per shard of the key, at once");
    let (n, stats) = calls(store, store.count(VOTES, &qualified, None)).await;
    assert_eq!(n.expect("count"), 26);
    assert_eq!(stats.collection_queries, 0);
    let voters = Filter::must(
        json!({"social_task_id": "task_01", "qualified": true, "submitter_subject_id": {"$in": ["agent-1", "agent-3", "agent-4"]}}),
    );
    let (n, stats) = calls(store, store.count(VOTES, &voters, Some(3))).await;
    assert_eq!(n.expect("count"), 2);
    assert_eq!(stats.collection_queries, 0);
    let (found, stats) = calls(store, store.find(VOTES, &qualified)).await;
    assert_eq!(found.expect("find").len(), 26);
    assert_eq!(stats.collection_queries, 0);

    // Start sweep: scheduled tasks that are due.
    let due = Filter::must(json!({"status": "scheduled", "scheduled_time": {"$lte": "2026-10-22T10:00:00"}}));
    assert_eq!(store.access_path(TASKS, &due).expect("plan"), AccessPath::Index { index: "gsi1".into(), fields: "status".into() });
    let (found, stats) = calls(store, store.find(TASKS, &due)).await;
    assert_eq!(found.expect("find").len(), 10);
    assert_eq!((stats.index_queries, stats.collection_queries), (SHARDS, 0));

    // Claims are keyed.
    let claim = Filter::must(json!({"expires_at": {"$lt": "2026-10-22T10:00:00"}}));
    let (changed, stats) = calls(store, store.update(CLAIMS, "start:task_01", &claim, &Change::set(&json!({"a": 1})))).await;
    assert!(!changed.expect("update"));
    assert_eq!((stats.get_items, stats.index_queries, stats.collection_queries), (1, 0, 0));

    // Only a filter without a usable equality reads the whole collection.
    let (found, stats) = calls(store, store.find(VOTES, &Filter::must(json!({"vote_data.selected_option": "agent-translator-02"})))).await;
    assert_eq!(found.expect("find").len(), 40);
    assert!(stats.collection_queries >= SHARDS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_updates_lose_nothing() {
    const RACERS: usize = 50;
    let t = TempTable::new().await;
    let store = Arc::new(t.store.clone());
    store.insert(vec![(TASKS, to_json(&task("task_busy", "started", &[])))]).await.expect("insert");
    let handles: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let set = Change::set(&json!({ format!("racer_{i:02}"): i }));
                store.update(TASKS, "task_busy", &Filter::must(json!({"status": "started"})), &set).await
            })
        })
        .collect();
    for handle in handles {
        assert_eq!(handle.await.expect("racer"), Ok(true));
    }
    let doc = store.get(TASKS, "task_busy").await.expect("get").expect("stored");
    let doc: Value = serde_json::from_str(doc.get()).expect("json");
    for i in 0..RACERS {
        assert_eq!(doc[format!("racer_{i:02}")], json!(i), "racer {i}'s field is kept");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn inserts_past_the_transaction_limit_are_refused_whole() {
    let t = TempTable::new().await;
    let store = &t.store;
    // 51 votes: 51 documents and 51 unique markers.
    let votes: Vec<_> = (0..51).map(|i| (VOTES, to_json(&vote(&format!("v-{i:02}"), "task_a", &format!("agent-{i}"), true)))).collect();
    match store.insert(votes).await {
        Err(StoreError::Backend(message)) => assert!(message.contains("100"), "{message}"),
        other => panic!("expected a Backend error naming the limit, got {other:?}"),
    }
    assert_eq!(all_keys(store).await, Vec::<String>::new(), "nothing written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unique_markers_follow_their_documents() {
    let t = TempTable::new().await;
    let store = &t.store;
    store.insert(vec![(VOTES, to_json(&vote("v-1", "task_a", "agent-1", true)))]).await.expect("insert");
    let marker = r#"u#contract#votes#social_task_id,submitter_subject_id#["s:task_a","s:agent-1"]"#;
    assert_eq!(all_keys(store).await, ["d#contract#votes#v-1", marker]);
    // Moved by an update of a unique field, removed by delete.
    let set = Change::set(&json!({"submitter_subject_id": "agent-2"}));
    assert!(store.update(VOTES, "v-1", &Filter::all(), &set).await.expect("update"));
    let moved = r#"u#contract#votes#social_task_id,submitter_subject_id#["s:task_a","s:agent-2"]"#;
    assert_eq!(all_keys(store).await, ["d#contract#votes#v-1", moved]);
    let by_old = Filter::must(json!({"social_task_id": "task_a", "submitter_subject_id": "agent-1"}));
    assert!(store.find(VOTES, &by_old).await.expect("find").is_empty());
    // A vote without a subject is not constrained (as a SQL unique index ignores NULLs).
    let mut anonymous = vote("v-2", "task_a", "x", true);
    anonymous["submitter_subject_id"] = Value::Null;
    let mut anonymous_too = anonymous.clone();
    anonymous_too["vote_id"] = json!("v-3");
    store.insert(vec![(VOTES, to_json(&anonymous)), (VOTES, to_json(&anonymous_too))]).await.expect("insert");
    for id in ["v-1", "v-2", "v-3"] {
        assert!(store.delete(VOTES, id, &Filter::all()).await.expect("delete"));
    }
    assert_eq!(all_keys(store).await, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn table_has_the_documented_design() {
    let t = TempTable::new().await;
    let store = &t.store;
    // Idempotent.
    store.ensure_table().await.expect("ensure again");
    let table = store.client().describe_table().table_name(store.table_name()).send().await.expect("describe").table.expect("table");
    let key: Vec<(String, KeyType)> = table.key_schema().iter().map(|k| (k.attribute_name().to_string(), k.key_type().clone())).collect();
    assert_eq!(key, [("pk".to_string(), KeyType::Hash)]);
    let mut gsis: Vec<(String, Vec<String>, Vec<String>)> = table
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let projection = g.projection().expect("projection");
            assert_eq!(projection.projection_type(), Some(&ProjectionType::Include));
            (
                g.index_name().unwrap_or_default().to_string(),
                g.key_schema().iter().map(|k| k.attribute_name().to_string()).collect(),
                projection.non_key_attributes().to_vec(),
            )
        })
        .collect();
    gsis.sort();
    let included = vec!["doc".to_string(), "pgen".to_string(), "pn".to_string()];
    let mut expected: Vec<(String, Vec<String>, Vec<String>)> = (1..=10)
        .map(|i| (format!("gsi{i}"), format!("g{i}")))
        .chain([("gsi_all".to_string(), "gall".to_string())])
        .map(|(name, attr)| (name, vec![attr, "seq".to_string()], included.clone()))
        .collect();
    expected.sort();
    assert_eq!(gsis, expected);
}

/// The `vote_id`s of `docs`, in order.
fn vote_ids(docs: &[agora_store::Json]) -> Vec<String> {
    docs.iter()
        .map(|doc| {
            let doc: Value = serde_json::from_str(doc.get()).expect("json");
            doc["vote_id"].as_str().expect("vote_id").to_string()
        })
        .collect()
}

/// The `vote_id`s of a page of a streaming find.
async fn streamed(store: &DynamoStore, filter: &Filter, skip: u64, limit: Option<u64>) -> Vec<String> {
    use futures::TryStreamExt;
    let docs: Vec<agora_store::Json> = store
        .find_stream(VOTES, filter, agora_store::Page::new(skip, limit))
        .await
        .expect("find_stream")
        .try_collect()
        .await
        .expect("stream");
    vote_ids(&docs)
}

/// Finds, counts and pages of the votes of `task`, whose ids in insertion order are `ids`,
/// through every access path that reads GSI shards: the answers of one partition, order included.
/// `thorough`: every limit and page of the list below, else a few (moto reads slowly).
async fn answers_are_unsharded(store: &DynamoStore, task: &str, ids: &[String], qualified: impl Fn(usize) -> bool, thorough: bool) {
    let n = ids.len() as u64;
    let by_task = Filter::must(json!({"social_task_id": task}));
    let pair = Filter::must(json!({"social_task_id": task, "qualified": true}));
    let qualified_ids: Vec<String> = ids.iter().enumerate().filter(|(i, _)| qualified(*i)).map(|(_, id)| id.clone()).collect();
    // Left to the matcher: a filter on a field no GSI serves, with the task's GSI.
    let matched = Filter::must(json!({"social_task_id": task, "vote_data.selected_option": "agent-translator-02"}));
    assert_eq!(
        store.access_path(VOTES, &pair).expect("plan"),
        AccessPath::Index { index: "gsi4".into(), fields: "social_task_id,qualified".into() }
    );
    assert_eq!(vote_ids(&store.find(VOTES, &by_task).await.expect("find")), ids, "find by task, in insertion order");
    assert_eq!(vote_ids(&store.find(VOTES, &pair).await.expect("find")), qualified_ids, "find by task and qualified");
    assert_eq!(store.count(VOTES, &by_task, None).await.expect("count"), n);
    assert_eq!(store.count(VOTES, &pair, None).await.expect("count"), qualified_ids.len() as u64);
    let slice = |skip: u64, limit: Option<u64>| -> Vec<String> {
        let skip = usize::try_from(skip).expect("skip").min(ids.len());
        let end = limit.map_or(ids.len(), |l| (skip + usize::try_from(l).expect("limit")).min(ids.len()));
        ids[skip..end].to_vec()
    };
    if !thorough {
        for limit in [n / 3, n + 10] {
            assert_eq!(store.count(VOTES, &by_task, Some(limit)).await.expect("count"), limit.min(n), "count up to {limit}");
            assert_eq!(store.count(VOTES, &matched, Some(limit)).await.expect("count"), limit.min(n), "count with a rest up to {limit}");
        }
        assert_eq!(streamed(store, &by_task, n / 2 + 3, Some(25)).await, slice(n / 2 + 3, Some(25)), "stream by task");
        assert_eq!(streamed(store, &matched, 10, Some(5)).await, slice(10, Some(5)), "stream with a rest");
        return;
    }
    assert_eq!(vote_ids(&store.find(VOTES, &matched).await.expect("find")), ids, "find with a rest");
    assert_eq!(vote_ids(&store.find(VOTES, &Filter::all()).await.expect("find")), ids, "the whole collection");
    for limit in [1, n / 3, n - 1, n, n + 10] {
        assert_eq!(store.count(VOTES, &by_task, Some(limit)).await.expect("count"), limit.min(n), "count up to {limit}");
        assert_eq!(store.count(VOTES, &matched, Some(limit)).await.expect("count"), limit.min(n), "count with a rest up to {limit}");
        assert_eq!(store.count(VOTES, &Filter::all(), Some(limit)).await.expect("count"), limit.min(n), "collection up to {limit}");
    }
    for (skip, limit) in [(0, None), (0, Some(7)), (1, Some(1)), (n / 2, Some(25)), (n - 3, None), (n, Some(5)), (n + 1, None)] {
        assert_eq!(streamed(store, &by_task, skip, limit).await, slice(skip, limit), "stream by task, skip {skip}, limit {limit:?}");
        assert_eq!(streamed(store, &matched, skip, limit).await, slice(skip, limit), "stream with a rest, skip {skip}, limit {limit:?}");
    }
    assert_eq!(streamed(store, &Filter::all(), n / 2, Some(9)).await, slice(n / 2, Some(9)), "stream of the collection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hot_value_spreads_over_the_gsi_shards() {
    const N: usize = 2_000;
    let t = TempTable::new().await;
    let store = &t.store;
    store.track_key_writes(true);
    let ids: Vec<String> = (0..N).map(|i| format!("v-{i:05}")).collect();
    for chunk in ids.chunks(50) {
        let docs = chunk.iter().map(|id| (VOTES, to_json(&vote(id, "task_hot", &format!("agent-{id}"), true)))).collect();
        store.insert(docs).await.expect("insert 50 votes");
    }
    let writes = store.key_writes(100);
    assert_eq!((writes.items, writes.transactional), (2 * N as u64, 2 * N as u64), "each vote and its unique marker, in transactions");
    // Table keys: the votes and their markers; GSI keys: 16 shards of the task's, qualified's, the
    // pair's and the collection's keys, and each vote's subject.
    assert_eq!(writes.partition_writes, 7 * N as u64, "{writes:?}");
    assert_eq!(writes.keys, 2 * N + 4 * GSI_SHARDS as usize + N, "{writes:?}");
    let hottest = writes.hottest().expect("written").clone();
    assert!(hottest.index.is_some(), "a GSI key is the hottest, no table key is written twice: {hottest:?}");
    let share = writes.share_of(N as u64);
    println!(
        "{N} votes of one task: hottest key {} {} took {} writes, {:.1}% of the votes (at most 10%)",
        hottest.index.as_deref().unwrap_or("table"),
        hottest.key,
        hottest.writes,
        100.0 * share
    );
    assert!(hottest.writes as usize <= N / 10, "the hottest key took more than a tenth of the votes: {hottest:?}");
    assert!((share - agora_store_dynamodb::hottest_share(&writes, N as u64)).abs() < f64::EPSILON);
    // Every shard of the task's key took some of the votes.
    let task_shards = writes.top.iter().filter(|k| k.index.as_deref() == Some("gsi1")).count();
    assert_eq!(task_shards, GSI_SHARDS as usize, "{:?}", writes.top);

    answers_are_unsharded(store, "task_hot", &ids, |_| true, false).await;

    store.reset_key_writes();
    assert_eq!(store.key_writes(5), agora_store_dynamodb::KeyWrites::default());
}

/// The GSI shard of the document keyed `id`.
fn shard_of(id: &str) -> u64 {
    agora_support::fnv1a(id.as_bytes()) % u64::from(GSI_SHARDS)
}

/// `key` of the unsharded layout: a field GSI key without its shard (`<db>#<collection>#<fields>#<n>#<values>`
/// to `<db>#<collection>#<fields>#<values>`), a `gall` key in its shard of eight.
fn unsharded(attr: &str, key: &str, id: &str) -> String {
    let parts: Vec<&str> = key.splitn(5, '#').collect();
    if attr == "gall" {
        return format!("{}#{}#{}", parts[0], parts[1], agora_support::fnv1a(id.as_bytes()) % 8);
    }
    match parts.as_slice() {
        [db, collection, fields, shard, values] if shard.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{db}#{collection}#{fields}#{values}")
        }
        _ => key.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn items_of_the_unsharded_layout_are_still_read() {
    const N: usize = 120;
    let t = TempTable::new().await;
    let store = &t.store;
    let ids: Vec<String> = (0..N).map(|i| format!("old-{i:04}")).collect();
    for chunk in ids.chunks(50) {
        let docs = chunk.iter().map(|id| (VOTES, to_json(&vote(id, "task_old", &format!("agent-{id}"), !id.ends_with('3'))))).collect();
        store.insert(docs).await.expect("insert");
    }
    // Every other vote rewritten as the layout before the shards wrote it.
    let mut rewritten = 0;
    let mut start = None;
    loop {
        let page = store.client().scan().table_name(store.table_name()).set_exclusive_start_key(start).send().await.expect("scan");
        for item in page.items() {
            let Some(AttributeValue::S(pk)) = item.get("pk") else { continue };
            let Some(id) = pk.strip_prefix("d#contract#votes#") else { continue };
            if id.ends_with(['0', '2', '4', '6', '8']) {
                let mut old = item.clone();
                for (attr, value) in old.iter_mut() {
                    if let AttributeValue::S(key) = value {
                        if attr == "gall" || (attr.starts_with('g') && attr[1..].bytes().all(|b| b.is_ascii_digit())) {
                            *key = unsharded(attr, key, id);
                        }
                    }
                }
                store.client().put_item().table_name(store.table_name()).set_item(Some(old)).send().await.expect("put");
                rewritten += 1;
            }
        }
        start = page.last_evaluated_key.filter(|k| !k.is_empty());
        if start.is_none() {
            break;
        }
    }
    assert_eq!(rewritten, N / 2);
    answers_are_unsharded(store, "task_old", &ids, |i| !ids[i].ends_with('3'), true).await;

    // A rewrite moves an old item into its shard; the tally counts the old GSI entries it left.
    let id = ids.iter().find(|id| id.ends_with('0') && shard_of(id) != 0).expect("a vote off shard 0");
    store.track_key_writes(true);
    assert!(store.update(VOTES, id, &Filter::all(), &Change::set(&json!({"note": 1}))).await.expect("update"));
    let item = store
        .client()
        .get_item()
        .table_name(store.table_name())
        .key("pk", AttributeValue::S(format!("d#contract#votes#{id}")))
        .send()
        .await
        .expect("get")
        .item
        .expect("item");
    let shard = shard_of(id);
    assert_eq!(item.get("g1"), Some(&AttributeValue::S(format!("contract#votes#social_task_id#{shard}#s:task_old"))));
    assert_eq!(item.get("gall"), Some(&AttributeValue::S(format!("contract#votes#{shard}"))));
    let writes = store.key_writes(100);
    assert_eq!(writes.items, 1, "the vote's item");
    let left = writes.top.iter().filter(|k| k.key == "contract#votes#social_task_id#s:task_old").count();
    assert_eq!(left, 1, "the unsharded entry it left: {writes:?}");
    answers_are_unsharded(store, "task_old", &ids, |i| !ids[i].ends_with('3'), true).await;
}
