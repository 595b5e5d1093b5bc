//! Votes per second through the `submit-vote` function's handler (the API Gateway adapter and
//! the shared router, in process) on the MongoDB adapter and on the DynamoDB adapter, against
//! the real servers `./tests/run.sh` starts (MONGODB_URI, AGORA_DYNAMODB_ENDPOINT).
//!
//! `cargo bench -p agora-e2e --bench vote_handler` (env: BENCH_VOTES, BENCH_CLIENTS).

use agora_e2e::{public_request, vote_body, TRANSLATORS};
use agora_store::DocumentStore;
use agora_voting_api::{flow_router, Flow};
use agora_voting_core::{Ports, QueueError, Settings, SystemClock, Voting, WorkQueue, VOTING_DB};
use futures::future::join_all;
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

struct Discard;

#[async_trait::async_trait]
impl WorkQueue for Discard {
    async fn send(&self, _: &str, _: &str, _: std::time::Duration) -> Result<(), QueueError> {
        Ok(())
    }
}

fn event(body: String) -> LambdaRequest {
    serde_json::from_value(json!({
        "version": "2.0", "routeKey": "$default", "rawPath": "/submit-vote", "rawQueryString": "",
        "headers": {"content-type": "application/json"},
        "requestContext": {"accountId": "123456789012", "apiId": "api", "domainName": "api.example.com", "domainPrefix": "api",
            "http": {"method": "POST", "path": "/submit-vote", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "bench"},
            "requestId": "req", "routeKey": "$default", "stage": "$default", "time": "03/Dec/2026:10:00:00 +0000", "timeEpoch": 0},
        "body": body, "isBase64Encoded": false
    }))
    .expect("event")
}

async fn votes_per_second(store: Arc<dyn DocumentStore>, total: usize, clients: usize) -> (f64, usize) {
    let ports = Ports {
        store,
        hooks: agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None),
        publisher: Arc::new(agora_runtime::LogPublisher),
        queue: Arc::new(Discard),
        clock: Arc::new(SystemClock),
        changes: Arc::new(agora_voting_core::NoChangeListener),
        scheduler: Arc::new(agora_voting_core::NoSchedules),
    };
    let voting = Arc::new(Voting::new(ports, Settings::default()));
    let id = voting.create_task(&public_request(1_000_000_000)).await.expect("create");
    voting.start_task(&id).await.expect("start");
    let router = flow_router(voting.clone(), Flow::SubmitVote);
    let bodies: Arc<Vec<String>> = Arc::new(
        (0..total).map(|i| vote_body(&id, &format!("voter-{i}"), json!({"selected_option": TRANSLATORS[i % 3]})).to_string()).collect(),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (router, bodies, next) = (router.clone(), bodies.clone(), next.clone());
        // The adapter's futures are not Send: the clients run as futures on this task.
        async move {
            let mut adapter = Adapter::from(router);
            let mut ok = 0;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= bodies.len() {
                    return ok;
                }
                let r = adapter.call(LambdaEvent::new(event(bodies[i].clone()), Context::default())).await;
                if r.ok().and_then(|r| serde_json::to_value(r).ok()).is_some_and(|v| v["statusCode"] == 200) {
                    ok += 1;
                }
            }
        }
    });
    let accepted: usize = join_all(workers).await.into_iter().sum();
    (accepted as f64 / started.elapsed().as_secs_f64(), accepted)
}

fn main() {
    let total: usize = std::env::var("BENCH_VOTES").ok().and_then(|v| v.parse().ok()).unwrap_or(3_000);
    let clients: usize = std::env::var("BENCH_CLIENTS").ok().and_then(|v| v.parse().ok()).unwrap_or(16);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
        match std::env::var("MONGODB_URI") {
            Ok(uri) => {
                let store = agora_store_mongodb::MongoStore::connect(&uri, VOTING_DB.named(format!("bench_{suffix}"))).await.expect("mongodb");
                let (rate, ok) = votes_per_second(Arc::new(store), total, clients).await;
                println!("submit-vote handler, MongoDB adapter (secantusdb on loopback), {clients} concurrent: {rate:.0} votes/s ({ok}/{total} accepted)");
            }
            Err(_) => println!("submit-vote handler, MongoDB adapter: n/a (MONGODB_URI unset; run under ./tests/run.sh's servers)"),
        }
        match std::env::var("AGORA_DYNAMODB_ENDPOINT") {
            Ok(endpoint) => {
                let config = agora_store_dynamodb::DynamoConfig { table: format!("bench-{suffix}"), endpoint: Some(endpoint), region: None };
                let store = agora_store_dynamodb::DynamoStore::connect(config, VOTING_DB).await.expect("dynamodb");
                store.ensure_table().await.expect("table");
                let (rate, ok) = votes_per_second(Arc::new(store), total, clients).await;
                println!("submit-vote handler, DynamoDB adapter (moto on loopback), {clients} concurrent: {rate:.0} votes/s ({ok}/{total} accepted)");
            }
            Err(_) => println!("submit-vote handler, DynamoDB adapter: n/a (AGORA_DYNAMODB_ENDPOINT unset)"),
        }
    });
}
