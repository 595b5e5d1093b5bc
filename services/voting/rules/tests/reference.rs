//! The builtins that §4 gives a reference implementation for are compared with that reference,
//! copied verbatim into `tests/oracle/spec_reference.py` and run by `$AGORA_PYTHON` (default
//! `python3`; standard library only), on random hook inputs serialized exactly as a remote hook
//! would receive them:
//! - `plurality`: the same output byte for byte (tally key order included), plus `ignored`;
//! - `borda`: the same scores and winner set (the reference lists winners in option order, the
//!   builtin sorts them), on inputs with at least one vote;
//! - `earliest-vote`: the same winner, and an error exactly where the reference raises;
//! - `option-on-ballot`: the same output (reason text included); where the reference raises
//!   (an unhashable `selected_option`) the builtin refuses the vote;
//! - `assign-first-winner`: the same output.

mod common;

use agora_voting_rules::run;
use agora_voting_schema::{Hook, HookInput, Vote};
use common::{fixture, time, vote_at, Fixture};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

const CASES: usize = 500;

fn reference(rule: &str, inputs: &[Value]) -> Vec<Value> {
    let py = std::env::var("AGORA_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!("{}/tests/oracle/spec_reference.py", env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(&py)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start AGORA_PYTHON={py:?}: {e}"));
    let body = serde_json::to_vec(&json!({"rule": rule, "inputs": inputs})).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    assert!(out.status.success(), "spec_reference.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    answer["outputs"].as_array().unwrap().clone()
}

/// Option keys, including ones whose sort order and `repr` are not trivial.
const KEY_POOL: [&str; 12] = [
    "agent-translator-01",
    "agent-translator-02",
    "Zeta",
    "alpha",
    "é-option",
    "日本",
    "it's",
    "say \"hi\"",
    "back\\slash",
    "tab\there",
    "10",
    "9",
];

fn random_options(rng: &mut StdRng) -> Vec<String> {
    let mut keys: Vec<String> = KEY_POOL.iter().map(|s| s.to_string()).collect();
    keys.shuffle(rng);
    keys.truncate(rng.gen_range(1..=6));
    keys
}

struct Case {
    f: Fixture,
    votes: Vec<Vote>,
    winners: Vec<String>,
}

impl Case {
    fn input(&self, hook: Hook) -> HookInput<'_> {
        let winners = matches!(hook, Hook::TieBreaker | Hook::PostAward).then_some(&self.winners[..]);
        HookInput::evaluation(&self.f.task, &self.f.spec, &self.f.eval, &self.votes, winners)
    }
}

fn compare(rule: &str, hook: Hook, cases: &[Case], check: impl Fn(&Case, Result<Value, agora_voting_rules::RuleError>, &Value)) {
    let inputs: Vec<Value> = cases.iter().map(|c| serde_json::to_value(c.input(hook)).unwrap()).collect();
    let expected = reference(rule, &inputs);
    assert_eq!(expected.len(), cases.len());
    for (c, want) in cases.iter().zip(&expected) {
        check(c, run(hook, rule, &json!({}), &c.input(hook)), want);
    }
}

#[test]
fn plurality_equals_the_reference() {
    let mut rng = StdRng::seed_from_u64(11);
    let cases: Vec<Case> = (0..CASES)
        .map(|_| {
            let keys = random_options(&mut rng);
            let votes = (0..rng.gen_range(0..30))
                .map(|i| vote_at(i, json!({"selected_option": keys.choose(&mut rng).unwrap()}), time(i as i64)))
                .collect();
            Case { f: fixture(&keys), votes, winners: vec![] }
        })
        .collect();
    compare("plurality", Hook::ChoiceEvaluation, &cases, |_, ours, want| {
        let mut ours = ours.unwrap();
        assert_eq!(ours.as_object_mut().unwrap().remove("ignored"), Some(json!(0)));
        assert_eq!(serde_json::to_string(&ours).unwrap(), serde_json::to_string(want).unwrap());
    });
}

#[test]
fn borda_equals_the_reference() {
    let mut rng = StdRng::seed_from_u64(12);
    let cases: Vec<Case> = (0..CASES)
        .map(|_| {
            let keys = random_options(&mut rng);
            let votes = (0..rng.gen_range(1..30))
                .map(|i| {
                    let mut r = keys.clone();
                    r.shuffle(&mut rng);
                    r.truncate(rng.gen_range(1..=keys.len()));
                    vote_at(i, json!({ "ranking": r }), time(i as i64))
                })
                .collect();
            Case { f: fixture(&keys), votes, winners: vec![] }
        })
        .collect();
    compare("borda", Hook::ChoiceEvaluation, &cases, |_, ours, want| {
        let ours = ours.unwrap();
        assert_eq!(serde_json::to_string(&ours["scores"]).unwrap(), serde_json::to_string(&want["scores"]).unwrap());
        let mut w: Vec<&str> = want["winners"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        w.sort_unstable();
        assert_eq!(ours["winners"], json!(w));
    });
}

#[test]
fn earliest_vote_equals_the_reference() {
    let mut rng = StdRng::seed_from_u64(13);
    let cases: Vec<Case> = (0..CASES)
        .map(|_| {
            let keys = random_options(&mut rng);
            let votes = (0..rng.gen_range(0..12))
                .map(|i| {
                    // Few distinct times, so that equal times are common.
                    let t = time(rng.gen_range(0..4)) + chrono::Duration::microseconds(rng.gen_range(0..2) * 500_000);
                    vote_at(i, json!({"selected_option": keys.choose(&mut rng).unwrap()}), t)
                })
                .collect();
            let mut tied = keys.clone();
            tied.shuffle(&mut rng);
            tied.truncate(rng.gen_range(1..=keys.len()));
            Case { f: fixture(&keys), votes, winners: tied }
        })
        .collect();
    let raised = std::cell::Cell::new(0);
    compare("earliest-vote", Hook::TieBreaker, &cases, |_, ours, want| match (ours, want.get("exception")) {
        (Ok(out), None) => assert_eq!(&out, want),
        (Err(agora_voting_rules::RuleError::NoBallotForTie(_)), Some(e)) => {
            assert_eq!(e, "IndexError");
            raised.set(raised.get() + 1);
        }
        (ours, _) => panic!("builtin {ours:?}, reference {want}"),
    });
    // Both outcomes occur.
    assert!(raised.get() > 0 && raised.get() < CASES, "{} raised", raised.get());
}

#[test]
fn option_on_ballot_equals_the_reference() {
    let mut rng = StdRng::seed_from_u64(14);
    let f = fixture(&KEY_POOL[..5]);
    let choices = [
        json!("agent-translator-01"),
        json!("Zeta"),
        json!("it's"),
        json!("say \"hi\""),
        json!("back\\slash"),
        json!("tab\there"),
        json!("nul\u{0}\u{7f}\u{85}é"),
        json!(""),
        json!(null),
        json!(true),
        json!(7),
        json!(-1.5),
        json!(["agent-translator-01"]),
        json!({"a": 1}),
    ];
    let data: Vec<Value> = (0..CASES)
        .map(|_| match rng.gen_range(0..8) {
            0 => json!({}),
            1 => json!({"ranking": ["Zeta"]}),
            _ => json!({"selected_option": choices.choose(&mut rng).unwrap()}),
        })
        .collect();
    let inputs: Vec<Value> =
        data.iter().map(|d| serde_json::to_value(HookInput::pqt(&f.task, &f.spec, &f.eval, d, "voter")).unwrap()).collect();
    let expected = reference("option-on-ballot", &inputs);
    for (d, want) in data.iter().zip(&expected) {
        let input = HookInput::pqt(&f.task, &f.spec, &f.eval, d, "voter");
        let ours = run(Hook::Pqt, "option-on-ballot", &json!({}), &input).unwrap();
        if want.get("exception").is_some() {
            assert_eq!(ours["qualified"], false, "{d}");
        } else {
            assert_eq!(&ours, want, "{d}");
        }
    }
}

#[test]
fn assign_first_winner_equals_the_reference() {
    let keys = ["a", "b", "c"];
    let cases: Vec<Case> = [vec![], vec!["b"], vec!["c", "a"]]
        .into_iter()
        .map(|w| Case { f: fixture(&keys), votes: vec![], winners: w.into_iter().map(String::from).collect() })
        .collect();
    compare("assign-first-winner", Hook::PostAward, &cases, |_, ours, want| {
        assert_eq!(&ours.unwrap(), want);
    });
}
