//! Real concurrent requests: each task delivered exactly once, round-robin's choices spread
//! evenly, and open mode asking one subject at a time for a task.

use super::*;
use futures::future::join_all;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_direct_tasks_at_once_are_each_delivered_once_and_completed() {
    // A recording delegate system, a little slow, so that round trips overlap.
    let delegate = delegate_stub(Duration::from_millis(30)).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let answers = join_all((0..30).map(|i| {
        let server = &server;
        async move { server.post("/tasks", &direct_task(&format!("agent-{:02}", i % 7), json!({"n": i}))).await }
    }))
    .await;
    let mut ids = BTreeMap::new();
    for (i, (status, body)) in answers.iter().enumerate() {
        assert_eq!(*status, 201, "task {i}: {body}");
        assert_eq!(body["data"]["task_data"], json!({"n": i}));
        ids.insert(id_of(&body["data"]), i);
    }
    assert_eq!(ids.len(), 30, "30 distinct task ids");
    for (id, i) in &ids {
        let output = final_output(&server, id, "completed").await;
        assert_eq!(output["ack"]["task_id"], json!(id), "{output}");
        assert_eq!(output["output"]["done"], json!({"n": i}), "task {id} has its own reply");
    }
    // Late duplicates would show after the tasks are final.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut delivered: HashMap<String, Vec<Value>> = HashMap::new();
    for call in delegate_calls(&delegate) {
        delivered.entry(call["task_id"].as_str().expect("task_id").to_owned()).or_default().push(call);
    }
    assert_eq!(delivered.len(), 30, "every task delivered");
    for (id, i) in &ids {
        let calls = &delivered[id];
        assert_eq!(calls.len(), 1, "task {id} delivered {} times: {calls:?}", calls.len());
        assert_eq!(calls[0]["subject_id"], json!(format!("agent-{:02}", i % 7)));
        assert_eq!(calls[0]["task_data"], json!({"n": i}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn round_robin_spreads_ten_concurrent_tasks_over_five_subjects_two_each() {
    let server = Server::start().await;
    let subjects: Vec<String> = (1..=5).map(|i| format!("rr-{i}")).collect();
    for s in &subjects {
        post_subject(&server, &json!({"subject_id": s})).await;
    }
    let answers = join_all((0..10).map(|i| {
        let server = &server;
        async move { server.post("/tasks", &function_task("builtin:round-robin", json!({}), json!({"i": i}))).await }
    }))
    .await;
    let mut spread: BTreeMap<String, usize> = BTreeMap::new();
    for (status, body) in &answers {
        assert_eq!(*status, 201, "{body}");
        let chosen = body["data"]["task_metadata"]["assigned_subject_id"].as_str().expect("assigned_subject_id").to_owned();
        let id = id_of(&body["data"]);
        final_output(&server, &id, "completed").await;
        assert_eq!(inbox_for(&server, &chosen, &id).await.len(), 1, "{chosen} got {id}");
        *spread.entry(chosen).or_default() += 1;
    }
    let want: BTreeMap<String, usize> = subjects.iter().map(|s| (s.clone(), 2)).collect();
    assert_eq!(spread, want, "consecutive choices, even under contention");
}

/// An acceptance function played by a real HTTP server that takes ~100 ms to answer and counts,
/// per task, the calls in flight at once (and the highest count seen); it accepts for the
/// subjects in `accepting`.
type Counts = Arc<Mutex<HashMap<String, usize>>>;
type Asked = Arc<Mutex<HashMap<String, Vec<String>>>>;

struct Acceptor {
    url: String,
    in_flight: Counts,
    most: Counts,
    asked: Asked,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Acceptor {
    async fn start(accepting: &'static [&'static str]) -> Acceptor {
        use axum::{routing::post, Json, Router};
        let (in_flight, most, asked): (Counts, Counts, Asked) = (Arc::default(), Arc::default(), Arc::default());
        let state: (Counts, Counts, Asked) = (Arc::clone(&in_flight), Arc::clone(&most), Arc::clone(&asked));
        let app = Router::new().route(
            "/",
            post(move |Json(input): Json<Value>| {
                let (in_flight, most, asked) = state.clone();
                async move {
                    let task = input["task"]["task_id"].as_str().unwrap_or_default().to_owned();
                    let subject = input["subject"]["subject_id"].as_str().unwrap_or_default().to_owned();
                    {
                        let mut now = in_flight.lock().expect("in flight");
                        let n = now.entry(task.clone()).or_default();
                        *n += 1;
                        let mut most = most.lock().expect("most");
                        let m = most.entry(task.clone()).or_default();
                        *m = (*m).max(*n);
                    }
                    asked.lock().expect("asked").entry(task.clone()).or_default().push(subject.clone());
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    *in_flight.lock().expect("in flight").entry(task).or_default() -= 1;
                    Json(json!({"accepted": accepting.contains(&subject.as_str())}))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Acceptor { url, in_flight, most, asked, task }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn open_mode_never_asks_two_subjects_at_once_for_one_task() {
    let acceptor = Acceptor::start(&["ask-3"]).await;
    let server = Server::start().await;
    for s in ["ask-3", "ask-1", "ask-2"] {
        post_subject(&server, &json!({"subject_id": s, "task_evaluation_function": acceptor.url})).await;
    }
    let answers = join_all((0..4).map(|i| {
        let server = &server;
        async move { server.post("/tasks", &json!({"task_assignment_type": "open", "task_data": {"i": i}})).await }
    }))
    .await;
    let mut ids = Vec::new();
    for (status, body) in &answers {
        assert_eq!(*status, 201, "{body}");
        ids.push(id_of(&body["data"]));
    }
    for id in &ids {
        final_output(&server, id, "completed").await;
        assert_eq!(task(&server, id).await["task_metadata"]["assigned_subject_id"], json!("ask-3"));
    }
    let most = acceptor.most.lock().expect("most").clone();
    let asked = acceptor.asked.lock().expect("asked").clone();
    for id in &ids {
        assert_eq!(most.get(id), Some(&1), "task {id}: at most one subject asked at a time: {most:?}");
        assert_eq!(asked[id], ["ask-1", "ask-2", "ask-3"], "in turn, by subject_id, until one accepts");
    }
    assert!(acceptor.in_flight.lock().expect("in flight").values().all(|n| *n == 0), "every call answered");
}
