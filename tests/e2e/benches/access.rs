//! What authentication costs the vote path: votes accepted per second through the local
//! server's HTTP API (builtin PQT, embedded store, lean keep-alive clients as in the `voting`
//! bench) with authentication off, and on with the JWKS read once at start-up and kept. The
//! voters are agents, each with its own token (RS256 or ES256) that it sends with every request,
//! each voting once on each of the run's tasks: the first request of a token has its signature
//! checked, the later ones are taken from the verified tokens. A last run gives every vote a
//! token never seen before (every signature checked: the worst case). Each run has a fresh
//! server (an empty store), and runs alternate, each round starting one run later, so that the
//! machine's drift hits each alike. Printed for each run: the median rate, and the loss against
//! authentication off as the median over the rounds of each round's own ratio (a round's runs
//! share the machine's state of the moment, so the ratio holds steadier than two medians do;
//! target: under 10%); and the process's CPU time per vote (clients and server together, from
//! `/proc/self/stat`), the cost of a vote however the two cores are shared out.
//!
//! `cargo bench -p agora-e2e --bench access` (env: BENCH_VOTES, BENCH_AGENTS, BENCH_CLIENTS,
//! BENCH_ROUNDS, and BENCH_RUNS to take only some runs, e.g. `off,es256`, as when profiling one).

use agora_e2e::load::lean_worker_with;
use agora_e2e::{public_request, vote_body, Server, TRANSLATORS};
use agora_test_tokens::{claims, sign, Jwks, TestKey, AUDIENCE, ISSUER};
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
    /// Authentication off, each agent's RS256 token sent anyway (what its bytes cost alone).
    OffTokensSent,
    /// Each agent's RS256 token with each of its votes.
    Rs256,
    /// Each agent's ES256 token with each of its votes.
    Es256,
    /// A new ES256 token with every vote.
    Es256EveryVoteNew,
}

impl Auth {
    /// Whether the run's server verifies tokens.
    fn verifies(self) -> bool {
        !matches!(self, Auth::Off | Auth::OffTokensSent)
    }
}

/// What a run measured.
#[derive(Clone, Copy)]
struct Measured {
    /// Votes accepted per second.
    rate: f64,
    /// The process's CPU time per vote, in microseconds.
    cpu_us: f64,
}

/// The CPU time this process has used (all its threads, user and system), in seconds.
fn process_cpu_secs() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The fields after the command's closing parenthesis; utime and stime are the 14th and 15th
    // of the line, in clock ticks (100 a second on Linux).
    let rest = &stat[stat.rfind(')').expect("stat line") + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    ticks as f64 / 100.0
}

async fn run(server: &Server, auth: Auth, keys: &(TestKey, TestKey), total: usize, agents: usize, clients: usize) -> Measured {
    let tasks = total.div_ceil(agents);
    let mut ids = Vec::with_capacity(tasks);
    for _ in 0..tasks {
        ids.push(server.create(&public_request(1_000_000_000)).await);
    }
    for id in &ids {
        server.wait_for_status(id, "started", Duration::from_secs(30)).await;
    }
    let run = uuid::Uuid::new_v4().simple().to_string();
    let agent = |i: usize| format!("agent-{run}-{}", i % agents);
    let bodies: Arc<Vec<(String, String)>> = Arc::new(
        (0..total)
            .map(|i| {
                (
                    "/submit-vote".to_owned(),
                    vote_body(&ids[i / agents], &agent(i), json!({"selected_option": TRANSLATORS[i % 3]})).to_string(),
                )
            })
            .collect(),
    );
    let header = |token: String| format!("Authorization: Bearer {token}\r\n");
    let headers: Arc<Vec<String>> = Arc::new(match auth {
        Auth::Off => Vec::new(),
        Auth::OffTokensSent | Auth::Rs256 | Auth::Es256 => {
            let key = if auth == Auth::Es256 { &keys.1 } else { &keys.0 };
            let tokens: Vec<String> = (0..agents).map(|a| header(sign(key, &claims(&agent(a))))).collect();
            (0..total).map(|i| tokens[i % agents].clone()).collect()
        }
        Auth::Es256EveryVoteNew => (0..total).map(|i| header(sign(&keys.1, &claims(&agent(i))))).collect(),
    });
    let (addr, next) = (server.running.addr, Arc::new(AtomicUsize::new(0)));
    let (started, cpu) = (Instant::now(), process_cpu_secs());
    let workers = (0..clients).map(|_| {
        let (bodies, headers, next) = (bodies.clone(), headers.clone(), next.clone());
        tokio::spawn(async move { lean_worker_with(addr, &bodies, 200, &next, &headers).await.unwrap_or(0) })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.unwrap_or(0)).sum();
    let rate = accepted as f64 / started.elapsed().as_secs_f64();
    let cpu_us = (process_cpu_secs() - cpu) * 1e6 / accepted as f64;
    assert_eq!(accepted, total, "{auth:?}: every vote accepted");
    Measured { rate, cpu_us }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let (total, agents) = (env_usize("BENCH_VOTES", 20_000), env_usize("BENCH_AGENTS", 200));
        let (clients, rounds) = (env_usize("BENCH_CLIENTS", 32), env_usize("BENCH_ROUNDS", 7));
        let keys = (TestKey::rs256("rsa-1"), TestKey::es256("ec-1"));
        let jwks = Jwks::start(vec![keys.0.jwk.clone(), keys.1.jwk.clone()]).await;
        // The set-up requests (create, status) of a server with authentication on, as an operator.
        let mut operator = reqwest::header::HeaderMap::new();
        let token = sign(&keys.0, &agora_test_tokens::operator_claims("bench-operator"));
        operator.insert(reqwest::header::AUTHORIZATION, format!("Bearer {token}").parse().expect("header"));
        let operator = reqwest::Client::builder().default_headers(operator).build().expect("client");

        let only = std::env::var("BENCH_RUNS").unwrap_or_default().to_ascii_lowercase();
        let taken = |auth: &Auth| only.is_empty() || only.split(',').any(|name| name.trim() == format!("{auth:?}").to_ascii_lowercase());
        let mut rates: Vec<(Auth, Vec<Measured>)> = [Auth::Off, Auth::OffTokensSent, Auth::Rs256, Auth::Es256, Auth::Es256EveryVoteNew]
            .into_iter()
            .filter(taken)
            .map(|a| (a, vec![]))
            .collect();
        assert!(!rates.is_empty(), "BENCH_RUNS {only:?} names none of the runs");
        for round in 0..rounds {
            // Each round starts one run later than the one before, so that no run always comes
            // first (or always after the heaviest one).
            let len = rates.len();
            for k in 0..len {
                let (auth, got) = &mut rates[(round + k) % len];
                // A fresh server for each run: each starts from an empty store, as every other does.
                let on = auth.verifies();
                let mut server = Server::start_with(|c| {
                    c.sweep_interval_ms = 50;
                    if on {
                        c.auth_jwks_url = Some(jwks.url.clone());
                        c.auth_issuer = Some(ISSUER.into());
                        c.auth_audience = Some(AUDIENCE.into());
                    }
                })
                .await;
                if on {
                    server.http = operator.clone();
                }
                got.push(run(&server, *auth, &keys, total, agents, clients).await);
            }
        }
        let off = rates.iter().find(|(auth, _)| *auth == Auth::Off).map(|(_, got)| got.clone());
        println!("votes accepted per second (HTTP, builtin PQT, embedded store, {clients} lean clients, {total} votes a run by {agents} agents, {rounds} rounds):");
        for (auth, got) in &rates {
            let rate = median(got.iter().map(|m| m.rate).collect());
            let cpu = median(got.iter().map(|m| m.cpu_us).collect());
            let runs: Vec<String> = got.iter().map(|m| format!("{:.0}", m.rate)).collect();
            // Each round's rate against off's in the same round; the median of those.
            let against_off = |of: fn(&Measured) -> f64| {
                off.as_ref().map_or(f64::NAN, |off| median(got.iter().zip(off).map(|(m, o)| of(m) / of(o)).collect()))
            };
            let loss = (1.0 - against_off(|m| m.rate)) * 100.0;
            let more_cpu = (against_off(|m| m.cpu_us) - 1.0) * 100.0;
            println!(
                "  auth {auth:?}: {rate:.0}/s (runs {}), loss against off {loss:.1}%; CPU {cpu:.0} µs a vote, {more_cpu:+.1}% against off",
                runs.join(", ")
            );
        }
        let on = rates.iter().filter(|(auth, _)| auth.verifies()).count();
        assert_eq!(jwks.hits(), on * rounds, "the JWKS was read once by each server with authentication on, at its start-up");
    });
}
