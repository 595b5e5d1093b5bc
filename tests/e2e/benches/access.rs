//! What authentication costs the vote path: votes accepted per second through the local
//! server's HTTP API (builtin PQT, embedded store, lean keep-alive clients as in the `voting`
//! bench) with authentication off, and on with the JWKS read once at start-up and kept (every
//! request's token verified: signature, issuer, audience, expiry), RS256 and ES256. Runs
//! alternate between the three so that the machine's drift hits each alike; the medians are
//! printed with the loss against authentication off (target: under 10%).
//!
//! `cargo bench -p agora-e2e --bench access` (env: BENCH_VOTES, BENCH_CLIENTS, BENCH_ROUNDS).

use agora_e2e::load::lean_worker_with;
use agora_e2e::{public_request, vote_body, Server, TRANSLATORS};
use agora_test_tokens::{claims, operator_claims, sign, Jwks, TestKey, AUDIENCE, ISSUER};
use futures::future::join_all;
use serde_json::json;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// How the votes of a run are signed.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Auth {
    Off,
    /// Each vote carries its own voter's ES256 token.
    Es256,
    /// Each vote carries an operator's RS256 token (one for all: signing 2048-bit RSA tokens for
    /// every voter would take longer than the run; verifying costs the same either way).
    Rs256,
}

async fn run(server: &Server, auth: Auth, keys: &(TestKey, TestKey), total: usize, clients: usize) -> f64 {
    let id = server.create(&public_request(1_000_000_000)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let voters: Vec<String> = (0..total).map(|_| format!("voter-{}", uuid::Uuid::new_v4().simple())).collect();
    let bodies: Arc<Vec<(String, String)>> = Arc::new(
        voters
            .iter()
            .enumerate()
            .map(|(i, v)| ("/submit-vote".to_owned(), vote_body(&id, v, json!({"selected_option": TRANSLATORS[i % 3]})).to_string()))
            .collect(),
    );
    let headers: Arc<Vec<String>> = Arc::new(match auth {
        Auth::Off => Vec::new(),
        Auth::Es256 => voters.iter().map(|v| format!("Authorization: Bearer {}\r\n", sign(&keys.1, &claims(v)))).collect(),
        Auth::Rs256 => vec![format!("Authorization: Bearer {}\r\n", sign(&keys.0, &operator_claims("bench-operator"))); total],
    });
    let (addr, next) = (server.running.addr, Arc::new(AtomicUsize::new(0)));
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (bodies, headers, next) = (bodies.clone(), headers.clone(), next.clone());
        tokio::spawn(async move { lean_worker_with(addr, &bodies, 200, &next, &headers).await.unwrap_or(0) })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.unwrap_or(0)).sum();
    let rate = accepted as f64 / started.elapsed().as_secs_f64();
    assert_eq!(accepted, total, "{auth:?}: every vote accepted");
    rate
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let (total, clients, rounds) = (env_usize("BENCH_VOTES", 20_000), env_usize("BENCH_CLIENTS", 32), env_usize("BENCH_ROUNDS", 3));
        let keys = (TestKey::rs256("rsa-1"), TestKey::es256("ec-1"));
        let jwks = Jwks::start(vec![keys.0.jwk.clone(), keys.1.jwk.clone()]).await;
        let open = Server::start_with(|c| c.sweep_interval_ms = 50).await;
        let mut guarded = Server::start_with(|c| {
            c.sweep_interval_ms = 50;
            c.auth_jwks_url = Some(jwks.url.clone());
            c.auth_issuer = Some(ISSUER.into());
            c.auth_audience = Some(AUDIENCE.into());
        })
        .await;
        // The set-up requests (create, status) as an operator.
        let mut operator = reqwest::header::HeaderMap::new();
        let token = sign(&keys.0, &operator_claims("bench-operator"));
        operator.insert(reqwest::header::AUTHORIZATION, format!("Bearer {token}").parse().expect("header"));
        guarded.http = reqwest::Client::builder().default_headers(operator).build().expect("client");

        let mut rates: Vec<(Auth, Vec<f64>)> = vec![(Auth::Off, vec![]), (Auth::Rs256, vec![]), (Auth::Es256, vec![])];
        for _ in 0..rounds {
            for (auth, got) in rates.iter_mut() {
                let server = if *auth == Auth::Off { &open } else { &guarded };
                got.push(run(server, *auth, &keys, total, clients).await);
            }
        }
        let off = median(rates[0].1.clone());
        println!("votes accepted per second (HTTP, builtin PQT, embedded store, {clients} lean clients, {total} votes a run, median of {rounds}):");
        for (auth, got) in &rates {
            let rate = median(got.clone());
            let loss = (1.0 - rate / off) * 100.0;
            let runs: Vec<String> = got.iter().map(|r| format!("{r:.0}")).collect();
            println!("  auth {auth:?}: {rate:.0}/s (runs {}; loss against off {loss:.1}%; target < 10%)", runs.join(", "));
        }
        assert_eq!(jwks.hits(), 1, "the JWKS was read once, at start-up");
    });
}
