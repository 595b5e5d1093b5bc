//! Weighted votes (the vote document's `weight`, absent = 1) through the public JSON entry point:
//! a hand-computed example for every choice rule, invalid weights refused with an error naming
//! the vote, and properties: a whole weight `k` counts as `k` copies of the ballot, weights of 1
//! change nothing (byte for byte), and the order of weighted ballots never matters.

mod common;

use agora_voting_rules::RuleError;
use agora_voting_schema::Hook;
use common::{all_shapes, fixture, vote, votes, weighted_vote, weighted_votes, Fixture};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Value};

const RULES: [&str; 8] = ["plurality", "weighted-plurality", "approval", "borda", "instant-runoff", "copeland", "schulze", "score"];

/// Four votes on options a, b, c, weighing 2.5, 1 (no weight), 0.5 and 2; every ballot shape.
fn example() -> (Fixture, Vec<agora_voting_schema::Vote>) {
    let f = fixture(&["a", "b", "c"]);
    let v = vec![
        weighted_vote(
            0,
            json!({"selected_option": "a", "ranking": ["a", "b", "c"], "approved": ["a", "b"], "scores": {"a": 4, "b": 2}}),
            json!(2.5),
        ),
        vote(1, json!({"selected_option": "b", "ranking": ["b", "c", "a"], "approved": ["b"], "scores": {"b": 6}})),
        weighted_vote(
            2,
            json!({"selected_option": "c", "ranking": ["c", "b"], "approved": ["c", "b"], "scores": {"c": 10, "a": 1}}),
            json!(0.5),
        ),
        weighted_vote(
            3,
            json!({"selected_option": "b", "weight": 0.5, "ranking": ["b", "a"], "approved": ["a"], "scores": {"a": 1}}),
            json!(2),
        ),
    ];
    (f, v)
}

fn evaluate(rule: &str) -> String {
    let (f, v) = example();
    serde_json::to_string(&f.evaluate(rule, json!({}), &v)).unwrap()
}

#[test]
fn plurality_sums_weights() {
    // a 2.5, b 1 + 2, c 0.5 (tally in order of first ballot).
    assert_eq!(evaluate("plurality"), r#"{"winners":["b"],"tally":{"a":2.5,"b":3,"c":0.5},"ignored":0}"#);
}

#[test]
fn weighted_plurality_multiplies_the_ballot_weight_by_the_vote_weight() {
    // The last ballot weighs 0.5 (vote_data) × 2 (vote) = 1: a 2.5, b 1 + 1, c 0.5.
    assert_eq!(evaluate("weighted-plurality"), r#"{"winners":["a"],"tally":{"a":2.5,"b":2,"c":0.5},"ignored":0}"#);
}

#[test]
fn approval_gives_each_approved_option_the_weight() {
    // a 2.5 + 2, b 2.5 + 1 + 0.5, c 0.5.
    assert_eq!(evaluate("approval"), r#"{"winners":["a"],"tally":{"a":4.5,"b":4,"c":0.5},"ignored":0}"#);
}

#[test]
fn score_sums_weighted_scores() {
    // a 4 × 2.5 + 1 × 0.5 + 1 × 2 = 12.5, b 2 × 2.5 + 6 = 11, c 10 × 0.5 = 5.
    assert_eq!(evaluate("score"), r#"{"winners":["a"],"scores":{"a":12.5,"b":11,"c":5},"ignored":0}"#);
}

#[test]
fn borda_multiplies_points_by_weight() {
    // Points 2, 1, 0. a 2 × 2.5 + 1 × 2 = 7; b 1 × 2.5 + 2 + 1 × 0.5 + 2 × 2 = 9;
    // c 1 (second on the second ballot) + 2 × 0.5 = 2.
    assert_eq!(evaluate("borda"), r#"{"winners":["b"],"scores":{"a":7,"b":9,"c":2},"ignored":0}"#);
}

#[test]
fn instant_runoff_transfers_weights() {
    // Round 1: a 2.5, b 3, c 0.5 of 6: b is not above 3; c goes, its 0.5 to b.
    // Round 2: a 2.5, b 3.5 of 6: b has a majority.
    assert_eq!(
        evaluate("instant-runoff"),
        r#"{"winners":["b"],"rounds":[{"counts":{"a":2.5,"b":3,"c":0.5},"eliminated":["c"],"exhausted":0},{"counts":{"a":2.5,"b":3.5},"eliminated":[],"exhausted":0}],"ignored":0}"#
    );
}

#[test]
fn copeland_and_schulze_count_weighted_pairs() {
    // a over b: 2.5; b over a: 1 + 0.5 (a unranked) + 2 = 3.5. a over c: 2.5 + 2 (c unranked);
    // c over a: 1 + 0.5. b over c: 2.5 + 1 + 2; c over b: 0.5. b beats both: the Condorcet winner.
    let pairwise = r#""pairwise":{"a":{"b":2.5,"c":4.5},"b":{"a":3.5,"c":5.5},"c":{"a":1.5,"b":0.5}}"#;
    assert_eq!(evaluate("copeland"), format!(r#"{{"winners":["b"],"scores":{{"a":0,"b":2,"c":-2}},{pairwise},"ignored":0}}"#));
    // Margins: b over a 1, a over c 3, b over c 5; p(b, c) = max(5, min(1, 3)) = 5.
    assert_eq!(
        evaluate("schulze"),
        format!(
            r#"{{"winners":["b"],{pairwise},"strongest_paths":{{"a":{{"b":0,"c":3}},"b":{{"a":1,"c":5}},"c":{{"a":0,"b":0}}}},"ignored":0}}"#
        )
    );
}

#[test]
fn weights_do_not_change_the_earliest_vote_tie_breaker() {
    // The earliest vote naming a tied option decides, whatever the weights.
    let (f, v) = example();
    let out = f.tie_break("earliest-vote", json!({}), &v, &["b", "c"]).unwrap();
    assert_eq!(out, json!({"winner": "b", "rule": "earliest_vote"}));
}

#[test]
fn invalid_weights_are_errors_naming_the_vote() {
    let f = fixture(&["a", "b"]);
    for bad in [json!(0), json!(-1), json!(-0.5), json!(1e10), json!(1e-12)] {
        let v = vec![
            vote(0, json!({"selected_option": "a", "ranking": ["a"]})),
            weighted_vote(1, json!({"selected_option": "b"}), bad.clone()),
        ];
        for rule in RULES {
            let e = f.try_evaluate(Hook::ChoiceEvaluation, rule, json!({}), &v, None).unwrap_err();
            assert!(matches!(&e, RuleError::BadWeight { vote_id, .. } if vote_id == "v1"), "{rule} {bad}: {e}");
            let m = e.to_string();
            assert!(m.starts_with("vote \"v1\": weight must be a number between 1e-9 and 1e9"), "{m}");
        }
    }
    // The bounds themselves are weights.
    let v = weighted_votes([(json!({"selected_option": "a"}), json!(1e-9)), (json!({"selected_option": "b"}), json!(1e9))]);
    assert_eq!(common::winners(&f.evaluate("plurality", json!({}), &v)), vec!["b"]);
}

/// A ranking of `0..n`, possibly truncated (at least one option).
fn ranking(n: usize) -> impl Strategy<Value = Vec<usize>> {
    Just((0..n).collect::<Vec<_>>()).prop_shuffle().prop_flat_map(move |perm| (1..=n).prop_map(move |k| perm[..k].to_vec()))
}

/// (options, ballots with a whole weight 1..=4) with 1–5 options and 0–15 ballots.
fn weighted_profile() -> impl Strategy<Value = (usize, Vec<(Vec<usize>, u32)>)> {
    (1usize..=5).prop_flat_map(|n| (Just(n), vec((ranking(n), 1u32..=4), 0..15)))
}

fn json_of(out: &Value) -> String {
    serde_json::to_string(out).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A vote of whole weight k gives every rule the same output as k unweighted copies of it.
    #[test]
    fn weight_k_is_k_copies((n, ballots) in weighted_profile()) {
        let f = fixture(&common::keys(n));
        let weighted = weighted_votes(ballots.iter().map(|(b, k)| (all_shapes(n, b), json!(k))));
        let copies = votes(ballots.iter().flat_map(|(b, k)| std::iter::repeat_n(all_shapes(n, b), *k as usize)));
        for rule in RULES {
            prop_assert_eq!(json_of(&f.evaluate(rule, json!({}), &weighted)), json_of(&f.evaluate(rule, json!({}), &copies)), "{}", rule);
        }
    }

    /// Every vote weighing 1 gives the output of no weights at all, byte for byte.
    #[test]
    fn weights_of_one_change_nothing((n, ballots) in weighted_profile()) {
        let f = fixture(&common::keys(n));
        let ones = weighted_votes(ballots.iter().map(|(b, _)| (all_shapes(n, b), json!(1))));
        let plain = votes(ballots.iter().map(|(b, _)| all_shapes(n, b)));
        for rule in RULES {
            prop_assert_eq!(json_of(&f.evaluate(rule, json!({}), &ones)), json_of(&f.evaluate(rule, json!({}), &plain)), "{}", rule);
        }
    }

    /// Permuting weighted ballots (fractional weights) never changes an output.
    #[test]
    fn weighted_ballot_order_never_matters(
        (n, ballots, shuffled) in weighted_profile().prop_flat_map(|(n, b)| (Just(n), Just(b.clone()), Just(b).prop_shuffle()))
    ) {
        let f = fixture(&common::keys(n));
        let of = |bs: &[(Vec<usize>, u32)]| weighted_votes(bs.iter().map(|(b, k)| (all_shapes(n, b), json!(f64::from(*k) * 0.3))));
        let (a, b) = (of(&ballots), of(&shuffled));
        for rule in RULES {
            prop_assert_eq!(f.evaluate(rule, json!({}), &a), f.evaluate(rule, json!({}), &b), "{}", rule);
        }
    }
}
