//! `find_stream`: the documents of `find`, in its order, a page at a time; refusals as `find`
//! makes them; a stream half read leaves the store free for other calls.

use super::query::sample_votes;
use crate::check::*;
use crate::fixtures::*;
use crate::spec::{all_collections, TASKS, VOTES};
use crate::SharedStore;
use agora_filter::Filter;
use agora_store::{to_json, Page};
use futures::StreamExt;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

/// The texts `find` returns.
async fn found(store: &SharedStore, collection: &str, filter: &Filter) -> Vec<String> {
    let docs = store.find(collection, filter).await.unwrap_or_else(|e| panic!("find in {collection} failed: {e}"));
    docs.iter().map(|d| d.get().to_string()).collect()
}

/// The texts `find_stream` yields for `page`, read on a task of its own (the stream borrows
/// nothing); panics on any error.
async fn streamed(store: &SharedStore, collection: &str, filter: &Filter, page: Page) -> Vec<String> {
    let stream = store.find_stream(collection, filter, page).await.unwrap_or_else(|e| panic!("find_stream in {collection} failed: {e}"));
    let read = tokio::spawn(async move { stream.map(|doc| doc.map(|d| d.get().to_string())).collect::<Vec<_>>().await });
    let items = read.await.expect("the stream is read to its end");
    items.into_iter().map(|item| item.unwrap_or_else(|e| panic!("find_stream in {collection} failed midway: {e}"))).collect()
}

/// The `key` field of each text.
fn keys_of(texts: &[String], key: &str) -> Vec<String> {
    texts.iter().map(|t| serde_json::from_str::<Value>(t).expect("JSON")[key].as_str().expect("a string key").to_string()).collect()
}

/// Every page of `page_size` from skip 0 on, until one comes back short; checks each page is
/// the slice of `all` it should be, and that together they are `all`.
async fn walk_pages(store: &SharedStore, collection: &str, filter: &Filter, page_size: u64, all: &[String], what: &str) {
    let mut walked: Vec<String> = Vec::new();
    loop {
        let page = Page::new(walked.len() as u64, Some(page_size));
        let docs = streamed(store, collection, filter, page).await;
        let expected = &all[walked.len()..(walked.len() + page_size as usize).min(all.len())];
        assert_eq!(docs, expected, "{what}: page {page:?}");
        let short = (docs.len() as u64) < page_size;
        walked.extend(docs);
        if short {
            break;
        }
    }
    assert_eq!(walked, all, "{what}: pages of {page_size} concatenated");
}

/// Pages that hold nothing, and pages at the edges, of the `all` that `filter` finds.
async fn edge_pages(store: &SharedStore, collection: &str, filter: &Filter, all: &[String], what: &str) {
    let n = all.len() as u64;
    let cases: Vec<(Page, &[String])> = vec![
        (Page::ALL, all),
        (Page::new(0, Some(0)), &[]),
        (Page::new(3, Some(0)), &[]),
        (Page::new(n, None), &[]),
        (Page::new(n, Some(10)), &[]),
        (Page::new(n + 5, Some(10)), &[]),
        (Page::new(u64::MAX, None), &[]),
        (Page::new(0, Some(u64::MAX)), all),
        (Page::new(0, Some(n)), all),
        (Page::new(0, Some(n + 1)), all),
        (Page::new(n.saturating_sub(1), Some(5)), &all[all.len().saturating_sub(1)..]),
        (Page::new(17.min(n), None), &all[17.min(all.len())..]),
        (Page::new(1.min(n), Some(1)), &all[1.min(all.len())..2.min(all.len())]),
    ];
    for (page, expected) in cases {
        assert_eq!(streamed(store, collection, filter, page).await, expected, "{what}: {page:?}");
    }
}

/// The whole stream is `find`, text for text, on every access path an adapter may take: no
/// filter, an indexed field, two, the key, a unique pair, a key that cannot match, conditions
/// left to the matcher, and nothing matching.
pub async fn find_stream_is_find(store: SharedStore) {
    put_all(&store, VOTES, &sample_votes()).await;
    for (id, status) in [("task_s1", "scheduled"), ("task_s2", "started"), ("task_s3", "scheduled")] {
        put(&store, TASKS, &task(id, status, &["agent-1"])).await;
    }
    let cases = [
        (VOTES, json!({})),
        (VOTES, json!({"social_task_id": "task_q"})),
        (VOTES, json!({"social_task_id": "task_q", "qualified": true})),
        (VOTES, json!({"vote_id": "v-03"})),
        (VOTES, json!({"vote_id": {"$in": ["v-04", "v-01"]}})),
        (VOTES, json!({"social_task_id": "task_q", "submitter_subject_id": "agent-2"})),
        (VOTES, json!({"vote_id": 3})),
        (VOTES, json!({"weight": {"$gt": 1}})),
        (VOTES, json!({"social_task_id": "task_q", "$or": [{"qualified": false}, {"weight": {"$gt": 5}}]})),
        (VOTES, json!({"social_task_id": "task_none"})),
        (TASKS, json!({})),
        (TASKS, json!({"status": "scheduled"})),
        (TASKS, json!({"org_ids": "agent-1", "status": {"$ne": "started"}})),
    ];
    for (collection, f) in cases {
        let f = filter(f);
        let all = found(&store, collection, &f).await;
        assert_eq!(streamed(&store, collection, &f, Page::ALL).await, all, "{collection} {f:?}");
        edge_pages(&store, collection, &f, &all, &format!("{collection} {f:?}")).await;
    }
    for collection in all_collections() {
        assert_eq!(
            streamed(&store, collection, &Filter::all(), Page::ALL).await,
            found(&store, collection, &Filter::all()).await,
            "{collection}"
        );
    }
}

/// Thousands of matches (past any batch or page size of an adapter) in an order that is not the
/// keys': pages of several sizes concatenated are `find`, for filters on no field, an indexed
/// field, two, and an indexed field with conditions left to the matcher.
pub async fn find_stream_pages_through_thousands(store: SharedStore) {
    const N: usize = 3_000;
    let options = ["agent-translator-01", "agent-translator-02", "agent-translator-03", "agent-translator-04"];
    let ids: Vec<String> = (0..N).map(|i| format!("v-{:05}", (i * 7_919) % N)).collect();
    for (chunk_no, chunk) in ids.chunks(50).enumerate() {
        let docs = chunk
            .iter()
            .enumerate()
            .map(|(j, id)| {
                let i = chunk_no * 50 + j;
                let mut doc = vote(id, "task_pages", &format!("agent-{id}"), i % 3 != 0);
                doc["vote_data"] = json!({"selected_option": options[i % 4]});
                (VOTES, to_json(&doc))
            })
            .collect();
        store.insert(docs).await.expect("insert 50 votes");
    }
    put(&store, VOTES, &vote("v-elsewhere", "task_other", "agent-0", true)).await;
    let filters = [
        json!({}),
        json!({"social_task_id": "task_pages"}),
        json!({"social_task_id": "task_pages", "qualified": true}),
        json!({"social_task_id": "task_pages", "vote_data.selected_option": {"$in": ["agent-translator-02", "agent-translator-03"]}}),
    ];
    for f in filters {
        let what = f.to_string();
        let f = filter(f);
        let all = found(&store, VOTES, &f).await;
        assert!(all.len() > 1_000, "{what}: {} matches", all.len());
        assert_eq!(streamed(&store, VOTES, &f, Page::ALL).await, all, "{what}: the whole stream");
        for size in [1_000, 777] {
            walk_pages(&store, VOTES, &f, size, &all, &what).await;
        }
        edge_pages(&store, VOTES, &f, &all, &what).await;
    }
    let all_ids = keys_of(&found(&store, VOTES, &filter(json!({"social_task_id": "task_pages"}))).await, "vote_id");
    assert_eq!(all_ids, ids, "insertion order, not the keys'");
}

/// What `find` refuses, `find_stream` refuses at once, whatever the page: an unknown collection.
/// Empty collections and filters that match nothing give empty streams.
pub async fn find_stream_refuses_as_find(store: SharedStore) {
    for page in [Page::ALL, Page::new(0, Some(0)), Page::new(5, Some(2)), Page::new(u64::MAX, None)] {
        assert_unknown(store.find("nope", &Filter::all()).await, "nope");
        assert_unknown(store.find_stream("nope", &Filter::all(), page).await.map(|_| ()), "nope");
        assert_unknown(store.find_stream("nope", &filter(json!({"vote_id": "v"})), page).await.map(|_| ()), "nope");
        for collection in all_collections() {
            assert!(streamed(&store, collection, &Filter::all(), page).await.is_empty(), "{collection} {page:?}");
        }
    }
    put(&store, VOTES, &vote("v-1", "task_a", "agent-1", true)).await;
    for f in
        [json!({"vote_id": 1}), json!({"social_task_id": "task_b"}), json!({"qualified": "true"}), json!({"missing": {"$exists": true}})]
    {
        assert!(streamed(&store, VOTES, &filter(f.clone()), Page::ALL).await.is_empty(), "{f}");
        assert!(found(&store, VOTES, &filter(f.clone())).await.is_empty(), "{f}");
    }
}

/// A stream read in part holds nothing that other calls wait for: inserts, updates, deletes,
/// gets, counts and a second whole stream all complete while it is open, and the rest of it then
/// comes, each document once, every document left alone in order.
pub async fn find_stream_leaves_the_store_free(store: SharedStore) {
    const N: usize = 2_500;
    let ids: Vec<String> = (0..N).map(|i| format!("v-{i:05}")).collect();
    for chunk in ids.chunks(50) {
        store
            .insert(chunk.iter().map(|id| (VOTES, to_json(&vote(id, "task_free", &format!("agent-{id}"), true)))).collect())
            .await
            .expect("insert 50 votes");
    }
    let all_votes = filter(json!({"social_task_id": "task_free"}));
    let work = async {
        let mut first = store.find_stream(VOTES, &all_votes, Page::ALL).await.expect("find_stream");
        let mut read = Vec::new();
        for _ in 0..10 {
            read.push(first.next().await.expect("a document").expect("no error").get().to_string());
        }
        // Meanwhile: a write of each kind, ahead of and behind where the stream is.
        put(&store, VOTES, &vote("v-new", "task_free", "agent-new", true)).await;
        assert!(store.update(VOTES, "v-00003", &Filter::all(), &set(json!({"qualified": false}))).await.expect("update behind"));
        assert!(store.update(VOTES, "v-02000", &Filter::all(), &set(json!({"qualified": false}))).await.expect("update ahead"));
        assert!(store.delete(VOTES, "v-01500", &Filter::all()).await.expect("delete ahead"));
        assert!(store.get(VOTES, "v-00100").await.expect("get").is_some());
        assert_eq!(count(&store, VOTES, json!({"social_task_id": "task_free"}), None).await, N as u64);
        let second = streamed(&store, VOTES, &all_votes, Page::ALL).await;
        assert_eq!(second.len(), N, "a whole second stream, the new vote in and the deleted one out");
        while let Some(doc) = first.next().await {
            read.push(doc.expect("no error").get().to_string());
        }
        read
    };
    let read = tokio::time::timeout(Duration::from_secs(120), work).await.expect("nothing waits on the open stream");
    let read_ids = keys_of(&read, "vote_id");
    assert_eq!(read_ids[..10], ids[..10]);
    let unique: HashSet<&String> = read_ids.iter().collect();
    assert_eq!(unique.len(), read_ids.len(), "no document twice");
    let changed = ["v-02000", "v-01500", "v-new"];
    let left_alone: Vec<&String> = read_ids.iter().filter(|id| !changed.contains(&id.as_str())).collect();
    let expected: Vec<&String> = ids.iter().filter(|id| !changed.contains(&id.as_str())).collect();
    assert_eq!(left_alone, expected, "every document left alone, in order");
}

/// Large documents (a report of a few megabytes: compressed, or split in parts, by adapters that
/// do so) between small ones: the stream is `find`, and pages of one hold one each.
pub async fn find_stream_large_documents(store: SharedStore) {
    for (i, id) in ["task_l1", "task_l2", "task_l3", "task_l4"].iter().enumerate() {
        let mut doc = task(id, "complete", &[]);
        if i % 2 == 1 {
            doc["report_json"] = large_report(12_000);
        }
        put(&store, TASKS, &doc).await;
    }
    let f = filter(json!({"status": "complete"}));
    let all = found(&store, TASKS, &f).await;
    assert_eq!(keys_of(&all, "social_task_id"), ["task_l1", "task_l2", "task_l3", "task_l4"]);
    assert!(all[1].len() > 2_000_000);
    assert_eq!(streamed(&store, TASKS, &f, Page::ALL).await, all);
    assert_eq!(streamed(&store, TASKS, &Filter::all(), Page::ALL).await, all);
    walk_pages(&store, TASKS, &f, 1, &all, "large documents").await;
}
