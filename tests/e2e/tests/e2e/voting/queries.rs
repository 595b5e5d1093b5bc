//! `POST /generic-query/{collection}?limit=&skip=`: the answer streamed from the store, byte for
//! byte the stored documents as a JSON array; pages that walk through it; paging parameters
//! refused by name; and a store that fails before or after the answer has begun.

use agora_e2e::*;
use agora_filter::Filter;
use agora_store::{to_json, Change, Counted, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use agora_voting_core::{Ports, QueueError, Settings, Voting, WorkQueue, VOTING_DB};
use agora_voting_schema::collections::VOTES;
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Stores `n` qualified votes of `task` straight into `store`, 50 per insert.
async fn store_votes(store: &Arc<dyn DocumentStore>, task: &str, n: usize) {
    let base = chrono::Utc::now();
    let ids: Vec<usize> = (0..n).collect();
    for chunk in ids.chunks(50) {
        let docs = chunk
            .iter()
            .map(|&i| {
                let vote = agora_voting_schema::Vote {
                    vote_id: uuid::Uuid::new_v4().to_string(),
                    social_task_id: task.to_owned(),
                    submitter_subject_id: format!("voter-{i:05}"),
                    vote_data: json!({"selected_option": TRANSLATORS[i % 3]}),
                    submission_time: base + chrono::Duration::microseconds(i as i64),
                    qualified: i % 5 != 0,
                    weight: None,
                };
                (VOTES, to_json(&vote))
            })
            .collect();
        store.insert(docs).await.expect("store 50 votes");
    }
}

/// The status, the content type and the body's text of a query.
async fn query_text(server: &Server, path: &str, filter: &Value) -> (u16, String, String) {
    let r = server
        .http
        .post(server.url(path))
        .header("content-type", "application/json")
        .body(filter.to_string())
        .send()
        .await
        .expect("request");
    let status = r.status().as_u16();
    let content_type = r.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    (status, content_type, r.text().await.expect("a whole body"))
}

/// A query's answer, which must be a 200 JSON array.
async fn query_docs(server: &Server, path: &str, filter: &Value) -> Vec<Value> {
    let (status, content_type, text) = query_text(server, path, filter).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"), "{path}: {text:.200}");
    match serde_json::from_str(&text) {
        Ok(Value::Array(docs)) => docs,
        other => panic!("{path}: not a JSON array: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_walk_through_the_votes_of_a_task() {
    const N: usize = 2_600;
    let server = Server::start().await;
    let id = server.create(&public_request(1_000_000)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let store = server.running.voting.ports().store.clone();
    // Two votes through the route, then thousands (past every batch and page size) straight in.
    for voter in ["agent-reviewer-01", "agent-reviewer-02"] {
        assert_eq!(server.vote(&id, voter, json!({"selected_option": "agent-translator-02"})).await.0, 200);
    }
    store_votes(&store, &id, N - 2).await;
    let other = server.create(&public_request(10)).await;
    server.wait_for_status(&other, "started", Duration::from_secs(10)).await;
    assert_eq!(server.vote(&other, "agent-reviewer-01", json!({"selected_option": "agent-translator-01"})).await.0, 200);

    // Unpaged: byte for byte the stored documents joined, as the route answered before it streamed.
    let filter = json!({"social_task_id": id});
    let stored = store.find(VOTES, &Filter::must(filter.clone())).await.expect("find");
    assert_eq!(stored.len(), N);
    let (status, content_type, text) = query_text(&server, "/generic-query/votes", &filter).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(text, format!("[{}]", stored.iter().map(|d| d.get()).collect::<Vec<_>>().join(",")));
    let all: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");

    // Pages of several sizes, concatenated, are the unpaged answer.
    for size in [1_000, 777, 2_600] {
        let mut walked: Vec<Value> = Vec::new();
        loop {
            let page = query_docs(&server, &format!("/generic-query/votes?limit={size}&skip={}", walked.len()), &filter).await;
            assert_eq!(page, all[walked.len()..(walked.len() + size).min(N)], "size {size}, skip {}", walked.len());
            let short = page.len() < size;
            walked.extend(page);
            if short {
                break;
            }
        }
        assert_eq!(walked, all, "pages of {size}");
    }
    // Skip alone, limit alone, and pages with nothing in them.
    assert_eq!(query_docs(&server, "/generic-query/votes?skip=2500", &filter).await, all[2500..]);
    assert_eq!(query_docs(&server, "/generic-query/votes?limit=3", &filter).await, all[..3]);
    for empty in ["limit=0", "skip=2600", "skip=99999&limit=5", "limit=0&skip=0"] {
        let (status, _, text) = query_text(&server, &format!("/generic-query/votes?{empty}"), &filter).await;
        assert_eq!((status, text.as_str()), (200, "[]"), "{empty}");
    }
    // The query's own filter with a page, and a page of a whole collection.
    let qualified = json!({"social_task_id": id, "qualified": true});
    let every_qualified = query_docs(&server, "/generic-query/votes", &qualified).await;
    assert_eq!(every_qualified.len(), all.iter().filter(|v| v["qualified"] == true).count());
    assert_eq!(query_docs(&server, "/generic-query/votes?skip=10&limit=20", &qualified).await, every_qualified[10..30]);
    let whole = query_docs(&server, "/generic-query/votes", &json!({})).await;
    assert_eq!(whole.len(), N + 1);
    assert_eq!(query_docs(&server, &format!("/generic-query/votes?skip={N}"), &json!({})).await, whole[N..]);
    let tasks = query_docs(&server, "/generic-query/social_task_core_data?limit=1&skip=1", &Value::Null).await;
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0]["social_task_id"], json!(other), "tasks in creation order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bad_paging_parameters_are_refused_naming_them() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    let refused = [
        ("limit=-1", r#"Invalid limit: must be a non-negative integer, got "-1""#),
        ("limit=abc", r#"Invalid limit: must be a non-negative integer, got "abc""#),
        ("limit=1e3", r#"Invalid limit: must be a non-negative integer, got "1e3""#),
        ("limit=2.5", r#"Invalid limit: must be a non-negative integer, got "2.5""#),
        ("limit=", r#"Invalid limit: must be a non-negative integer, got """#),
        ("limit=18446744073709551616", r#"Invalid limit: must be at most 18446744073709551615, got "18446744073709551616""#),
        ("limit=1&limit=2", "Invalid limit: is given more than once"),
        ("skip=-5&limit=1", r#"Invalid skip: must be a non-negative integer, got "-5""#),
        ("skip=ten", r#"Invalid skip: must be a non-negative integer, got "ten""#),
        ("limit=10&skip=1%2C2", r#"Invalid skip: must be a non-negative integer, got "1,2""#),
    ];
    for (query, message) in refused {
        let (status, body) = server.post(&format!("/generic-query/votes?{query}"), &json!({})).await;
        assert_eq!((status, &body), (400, &json!({"error": message})), "{query}");
    }
    // The other refusals of the route are unchanged; other parameters are ignored.
    let (status, body) = server.post("/generic-query/users?limit=1", &json!({})).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("Unknown collection"), "{body}");
    let (status, body) = server.post("/generic-query/votes?limit=1", &json!({"vote_id": {"$regex": "x"}})).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("$regex"), "{body}");
    let tasks = query_docs(&server, "/generic-query/social_task_core_data?limit=5&fields=status", &json!({"social_task_id": id})).await;
    assert_eq!(tasks.len(), 1);
}

/// A store whose streams fail in place of their document number `good` (every other call goes to
/// the memory store).
struct FailingStreams {
    inner: agora_store::memory::MemoryStore,
    good: usize,
}

#[async_trait]
impl DocumentStore for FailingStreams {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        self.inner.insert(docs).await
    }
    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        self.inner.insert_counted(docs, counter, limit).await
    }
    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        self.inner.get(collection, id).await
    }
    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        self.inner.find(collection, filter).await
    }
    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        let good = self.good;
        let docs = self.inner.find_stream(collection, filter, page).await?;
        let failing =
            docs.enumerate().map(move |(i, doc)| if i < good { doc } else { Err(StoreError::Backend("the disk is on fire".into())) });
        Ok(failing.take(good + 1).boxed())
    }
    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        self.inner.count(collection, filter, limit).await
    }
    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        self.inner.update(collection, id, condition, change).await
    }
    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        self.inner.delete(collection, id, condition).await
    }
    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        self.inner.delete_counted(collection, id, counter, limit).await
    }
    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        self.inner.increment(counter, by).await
    }
}

struct NoQueue;

#[async_trait]
impl WorkQueue for NoQueue {
    async fn send(&self, _: &str, _: &str, _: Duration) -> Result<(), QueueError> {
        Ok(())
    }
}

/// Voting's router over a [`FailingStreams`] store holding 3,000 votes, served on loopback.
async fn serve_failing(good: usize) -> String {
    let store: Arc<dyn DocumentStore> =
        Arc::new(FailingStreams { inner: agora_store::memory::MemoryStore::new(VOTING_DB).expect("memory store"), good });
    store_votes(&store, "task_failing", 3_000).await;
    let hooks = agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None);
    let ports = Ports::new(store, hooks, Arc::new(agora_runtime::LogPublisher), Arc::new(NoQueue));
    let router = agora_voting_api::router(Arc::new(Voting::new(ports, Settings::default())));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_store_failure_is_a_json_500_before_the_answer_and_a_broken_body_after() {
    let http = reqwest::Client::new();
    // Before the first document, and within the part read before answering: a JSON 500.
    for good in [0, 5] {
        let url = serve_failing(good).await;
        let r = http.post(format!("{url}/generic-query/votes")).body("{}").send().await.expect("answer");
        assert_eq!(r.status().as_u16(), 500, "good {good}");
        assert_eq!(r.json::<Value>().await.expect("JSON"), json!({"error": "Internal server error"}));
    }
    // Past it: the 200 is sent, then the body breaks off instead of ending as a short array.
    let url = serve_failing(2_000).await;
    let r = http.post(format!("{url}/generic-query/votes")).body("{}").send().await.expect("answer");
    assert_eq!(r.status().as_u16(), 200);
    assert!(r.bytes().await.is_err(), "the body does not end well");
    // A page that ends before the failure is whole.
    let r = http.post(format!("{url}/generic-query/votes?limit=1500")).body("{}").send().await.expect("answer");
    assert_eq!(r.status().as_u16(), 200);
    let page: Vec<Value> = r.json().await.expect("a whole JSON array");
    assert_eq!(page.len(), 1_500);
}
