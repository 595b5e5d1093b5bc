//! Differential tests against pref_voting (PyPI): for 2,000 random profiles per rule (3–8
//! options, 1–200 ballots, complete and truncated rankings, built to produce ties), the winner
//! sets of plurality, Borda, instant runoff, Copeland and Schulze, computed through the public
//! JSON entry point `run`, equal pref_voting's for the same profile.
//!
//! The Python interpreter is `$AGORA_PYTHON` (default `python3`); it must have pref_voting
//! (`pip install pref_voting==1.18.2`). Without it these tests FAIL and say to run the test script.
//! All profiles of a rule go to `tests/oracle/pref_voting_oracle.py` in one subprocess call.
//!
//! Definitions that differ on purpose, and what is compared:
//! - Borda with truncated ballots: agora gives `n-1-position` points and nothing to unranked
//!   options (§4.4's reference). pref_voting's `borda` is only defined on complete rankings, and
//!   its default for truncated ones (`borda_for_profile_with_ties`) uses the *symmetric* Borda
//!   score (below minus above), which differs. Complete profiles are compared with `borda`;
//!   truncated ones with `borda_for_profile_with_ties(..., borda_scores=domination_borda_scores)`,
//!   the pref_voting score that is agora's definition ("options strictly below").
//! - Copeland and Schulze with truncated ballots: agora ranks every ranked option above every
//!   unranked one; pref_voting's `ProfileWithTies` does that only after
//!   `use_extended_strict_preference()`, which the oracle calls.
//! - Instant runoff: agora eliminates all last-placed options at once, as pref_voting's
//!   `instant_runoff` without `tie_breaker` (not `instant_runoff_tb` / `_put`).
//! - No ballot at all: agora returns no winner, pref_voting every candidate; profiles always have
//!   at least one ballot here.
//!
//! Weighted profiles (`*_weighted_matches_pref_voting`): the same rules on 2,000 profiles each
//! whose votes carry a `weight` (the vote document's field). Agora's weights are multiples of ¼
//! (`k/4`, `k` in 1..=12; in a third of the profiles every vote has the same `k`, which keeps
//! ties); pref_voting gets the integers `k` as `rcounts` (identical ballots summed). Every rule
//! compared elects the same options when all weights are scaled by the same positive factor, so
//! the winner sets must be equal; the weights agora counts are not whole, which exercises its
//! exact fractional counts.

mod common;

use common::{fixture, keys, votes, weighted_votes};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const PROFILES_PER_RULE: usize = 2_000;

fn python() -> String {
    std::env::var("AGORA_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn oracle_path() -> String {
    format!("{}/tests/oracle/pref_voting_oracle.py", env!("CARGO_MANIFEST_DIR"))
}

/// Sends one request to the oracle and returns its answer. Panics (fails the test) when the
/// interpreter or pref_voting is missing.
fn oracle(request: &Value) -> Value {
    let py = python();
    let mut child =
        Command::new(&py).arg(oracle_path()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap_or_else(
            |e| {
                panic!(
                    "cannot start AGORA_PYTHON={py:?} ({e}). Run the test script: it creates a \
                 virtualenv with `pip install pref_voting==1.18.2` and exports AGORA_PYTHON."
                )
            },
        );
    let body = serde_json::to_vec(request).expect("request serializes");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let out = child.wait_with_output().expect("oracle runs");
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        panic!(
            "AGORA_PYTHON={py:?} lacks pref_voting, so the differential tests cannot run.\n{stderr}\
             Run the test script (python3 -m venv /work/main/.venv && \
             /work/main/.venv/bin/pip install pref_voting==1.18.2, then \
             AGORA_PYTHON=/work/main/.venv/bin/python)."
        );
    }
    assert!(out.status.success(), "the pref_voting oracle failed ({}):\n{stderr}", out.status);
    serde_json::from_slice(&out.stdout).expect("oracle answers JSON")
}

/// A random ranking of `0..n`, truncated to a random length when `truncate`.
fn ranking(rng: &mut StdRng, n: usize, truncate: bool) -> Vec<usize> {
    let mut r: Vec<usize> = (0..n).collect();
    r.shuffle(rng);
    if truncate {
        r.truncate(rng.gen_range(1..=n));
    }
    r
}

/// A random profile: 3–8 options, 1–200 ballots. Styles: impartial culture (complete or
/// truncated), a few ballot types repeated (cycles and exact ties), and tiny electorates.
fn profile(rng: &mut StdRng, truncated_allowed: bool) -> (usize, Vec<Vec<usize>>) {
    let n = rng.gen_range(3..=8);
    let truncate = truncated_allowed && rng.gen_bool(0.5);
    let style = rng.gen_range(0..4);
    let ballots = match style {
        0 | 1 => {
            let b = rng.gen_range(1..=200);
            (0..b).map(|_| ranking(rng, n, truncate)).collect()
        }
        2 => {
            let types: Vec<Vec<usize>> = (0..rng.gen_range(1..=4)).map(|_| ranking(rng, n, truncate)).collect();
            let per_type = rng.gen_range(1..=50);
            let mut b: Vec<Vec<usize>> = types.iter().flat_map(|t| std::iter::repeat_n(t.clone(), per_type)).collect();
            // Sometimes one extra ballot to break (or make) a tie.
            if rng.gen_bool(0.3) {
                b.push(ranking(rng, n, truncate));
            }
            b
        }
        _ => {
            let b = rng.gen_range(1..=6);
            (0..b).map(|_| ranking(rng, n, truncate)).collect()
        }
    };
    (n, ballots)
}

fn agora_winners(rule: &str, n: usize, data: Vec<Value>) -> Vec<usize> {
    let f = fixture(&keys(n));
    let out = f.evaluate(rule, json!({}), &votes(data));
    assert_eq!(out["ignored"], 0, "{rule}: well-formed ballots were ignored");
    let mut w: Vec<usize> = common::winners(&out).iter().map(|w| w[1..].parse::<usize>().expect("o<i> key")).collect();
    w.sort_unstable();
    w
}

/// Compares one rule on `PROFILES_PER_RULE` profiles.
fn differential(rule: &str, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    let mut truncated = 0usize;
    for _ in 0..PROFILES_PER_RULE {
        let (n, ballots) = profile(&mut rng, rule != "plurality");
        if ballots.iter().any(|b| b.len() < n) {
            truncated += 1;
        }
        let key = |i: usize| format!("o{i}");
        if rule == "plurality" {
            let choices: Vec<usize> = ballots.iter().map(|b| b[0]).collect();
            ours.push(agora_winners(rule, n, choices.iter().map(|&c| json!({"selected_option": key(c)})).collect()));
            requests.push(json!({"n": n, "choices": choices}));
        } else {
            ours.push(agora_winners(
                rule,
                n,
                ballots.iter().map(|b| json!({"ranking": b.iter().map(|&i| key(i)).collect::<Vec<_>>()})).collect(),
            ));
            requests.push(json!({"n": n, "rankings": ballots}));
        }
    }
    let answer = oracle(&json!({"mode": "winners", "rule": rule, "profiles": requests}));
    let theirs: Vec<Vec<usize>> = serde_json::from_value(answer["winners"].clone()).expect("winner lists");
    assert_eq!(theirs.len(), ours.len());

    let mismatches: Vec<String> = (0..ours.len())
        .filter(|&i| ours[i] != theirs[i])
        .take(5)
        .map(|i| format!("profile {i}: agora {:?}, pref_voting {:?}, profile {}", ours[i], theirs[i], requests[i]))
        .collect();
    assert!(mismatches.is_empty(), "{rule}: winner sets differ from pref_voting:\n{}", mismatches.join("\n"));

    // The generator must really produce ties (and truncated ballots for ranked rules).
    let ties = theirs.iter().filter(|w| w.len() > 1).count();
    assert!(ties >= PROFILES_PER_RULE / 20, "{rule}: only {ties} tied profiles");
    if rule != "plurality" {
        assert!(truncated >= PROFILES_PER_RULE / 4, "{rule}: only {truncated} truncated profiles");
    }
    eprintln!("{rule}: {} profiles equal pref_voting's winners ({ties} with ties, {truncated} with truncated ballots)", ours.len());
}

#[test]
fn plurality_matches_pref_voting() {
    differential("plurality", 1);
}

#[test]
fn borda_matches_pref_voting() {
    differential("borda", 2);
}

#[test]
fn instant_runoff_matches_pref_voting() {
    differential("instant-runoff", 3);
}

#[test]
fn copeland_matches_pref_voting() {
    differential("copeland", 4);
}

#[test]
fn schulze_matches_pref_voting() {
    differential("schulze", 5);
}

/// `k` for the weight `k/4` of each of `b` ballots: all equal in a third of the profiles.
fn quarter_weights(rng: &mut StdRng, b: usize) -> Vec<u32> {
    if rng.gen_bool(1.0 / 3.0) {
        vec![rng.gen_range(1..=12); b]
    } else {
        (0..b).map(|_| rng.gen_range(1..=12)).collect()
    }
}

/// Compares one rule on `PROFILES_PER_RULE` weighted profiles.
fn differential_weighted(rule: &str, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    let mut fractional = 0usize;
    for _ in 0..PROFILES_PER_RULE {
        let (n, ballots) = profile(&mut rng, rule != "plurality");
        let k = quarter_weights(&mut rng, ballots.len());
        if k.iter().any(|k| k % 4 != 0) {
            fractional += 1;
        }
        let key = |i: usize| format!("o{i}");
        let weight = |k: u32| json!(f64::from(k) / 4.0);
        let f = fixture(&keys(n));
        let data: Vec<(Value, Value)> = if rule == "plurality" {
            ballots.iter().zip(&k).map(|(b, &k)| (json!({"selected_option": key(b[0])}), weight(k))).collect()
        } else {
            ballots.iter().zip(&k).map(|(b, &k)| (json!({"ranking": b.iter().map(|&i| key(i)).collect::<Vec<_>>()}), weight(k))).collect()
        };
        let out = f.evaluate(rule, json!({}), &weighted_votes(data));
        assert_eq!(out["ignored"], 0, "{rule}: well-formed ballots were ignored");
        let mut w: Vec<usize> = common::winners(&out).iter().map(|w| w[1..].parse::<usize>().expect("o<i> key")).collect();
        w.sort_unstable();
        ours.push(w);
        if rule == "plurality" {
            let choices: Vec<usize> = ballots.iter().map(|b| b[0]).collect();
            requests.push(json!({"n": n, "choices": choices, "weights": k}));
        } else {
            requests.push(json!({"n": n, "rankings": ballots, "weights": k}));
        }
    }
    let answer = oracle(&json!({"mode": "winners", "rule": rule, "profiles": requests}));
    let theirs: Vec<Vec<usize>> = serde_json::from_value(answer["winners"].clone()).expect("winner lists");
    assert_eq!(theirs.len(), ours.len());
    let mismatches: Vec<String> = (0..ours.len())
        .filter(|&i| ours[i] != theirs[i])
        .take(5)
        .map(|i| format!("profile {i}: agora {:?}, pref_voting {:?}, profile {}", ours[i], theirs[i], requests[i]))
        .collect();
    assert!(mismatches.is_empty(), "{rule} (weighted): winner sets differ from pref_voting:\n{}", mismatches.join("\n"));
    let ties = theirs.iter().filter(|w| w.len() > 1).count();
    assert!(ties >= PROFILES_PER_RULE / 40, "{rule} (weighted): only {ties} tied profiles");
    assert!(fractional >= PROFILES_PER_RULE / 2, "{rule} (weighted): only {fractional} profiles with fractional weights");
    eprintln!(
        "{rule} (weighted): {} profiles equal pref_voting's winners ({ties} with ties, {fractional} with fractional weights)",
        ours.len()
    );
}

#[test]
fn plurality_weighted_matches_pref_voting() {
    differential_weighted("plurality", 11);
}

#[test]
fn borda_weighted_matches_pref_voting() {
    differential_weighted("borda", 12);
}

#[test]
fn instant_runoff_weighted_matches_pref_voting() {
    differential_weighted("instant-runoff", 13);
}

#[test]
fn copeland_weighted_matches_pref_voting() {
    differential_weighted("copeland", 14);
}

#[test]
fn schulze_weighted_matches_pref_voting() {
    differential_weighted("schulze", 15);
}
