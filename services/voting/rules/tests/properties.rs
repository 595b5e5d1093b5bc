//! Property tests: ballot order never matters, a Condorcet winner wins Copeland and Schulze,
//! plurality is monotone, the PQTs accept exactly the ballots the rules count, and nothing panics
//! on arbitrary `vote_data`.

mod common;

use agora_voting_rules::condorcet::{self, Pairwise};
use agora_voting_rules::profile::RankingProfile;
use agora_voting_rules::{borda, irv, names, plurality};
use agora_voting_schema::Hook;
use common::{all_shapes, fixture, keys, vote, votes, winners};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Value};

/// A ranking of `0..n`, possibly truncated (at least one option).
fn ranking(n: usize) -> impl Strategy<Value = Vec<usize>> {
    Just((0..n).collect::<Vec<_>>()).prop_shuffle().prop_flat_map(move |perm| (1..=n).prop_map(move |k| perm[..k].to_vec()))
}

/// (options, ballots) with 1–6 options and 0–40 ballots.
fn ranked_profile() -> impl Strategy<Value = (usize, Vec<Vec<usize>>)> {
    (1usize..=6).prop_flat_map(|n| (Just(n), vec(ranking(n), 0..40)))
}

/// A profile that tends to have a Condorcet winner: one ranking type repeated, plus noise.
fn skewed_profile() -> impl Strategy<Value = (usize, Vec<Vec<usize>>)> {
    (2usize..=6).prop_flat_map(|n| {
        (ranking(n), 1usize..12, vec(ranking(n), 0..10)).prop_map(move |(top, k, rest)| {
            let mut b: Vec<Vec<usize>> = std::iter::repeat_n(top, k).collect();
            b.extend(rest);
            (n, b)
        })
    })
}

const RULES: [&str; 8] = ["plurality", "weighted-plurality", "approval", "borda", "instant-runoff", "copeland", "schulze", "score"];

/// The Condorcet winner computed naively from the rankings (ranked above unranked).
fn naive_condorcet_winner(n: usize, ballots: &[Vec<usize>]) -> Option<usize> {
    let pos = |b: &Vec<usize>, o: usize| b.iter().position(|&x| x == o).unwrap_or(n);
    (0..n).find(|&a| {
        (0..n).filter(|&c| c != a).all(|c| {
            let a_over = ballots.iter().filter(|b| pos(b, a) < pos(b, c)).count();
            let c_over = ballots.iter().filter(|b| pos(b, c) < pos(b, a)).count();
            a_over > c_over
        })
    })
}

/// Arbitrary JSON shaped like vote_data: known keys, option keys, junk of every type.
fn arb_vote_data() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("selected_option".to_string()),
        Just("ranking".to_string()),
        Just("approved".to_string()),
        Just("scores".to_string()),
        Just("weight".to_string()),
        Just("o0".to_string()),
        Just("o1".to_string()),
        Just("o2".to_string()),
        "[a-z'\"\\\\]{0,3}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-20i64..20).prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        (-1.0e13f64..1.0e13).prop_map(Value::from),
        prop_oneof![Just("o0"), Just("o1"), Just("o2"), Just("o9"), Just("")].prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..5).prop_map(Value::Array),
            vec((key.clone(), inner), 0..5).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The PQT whose accepted ballots a rule counts.
fn pqt_of(rule: &str) -> (&'static str, Value) {
    match rule {
        "plurality" => ("option-on-ballot", json!({})),
        "approval" => ("valid-approval", json!({})),
        "score" => ("valid-scores", json!({})),
        _ => ("valid-ranking", json!({})),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Permuting the ballots never changes the output of any choice rule (winners and evidence;
    /// object key order aside).
    #[test]
    fn ballot_order_never_matters(
        (n, ballots, shuffled) in ranked_profile().prop_flat_map(|(n, b)| {
            (Just(n), Just(b.clone()), Just(b).prop_shuffle())
        })
    ) {
        let f = fixture(&keys(n));
        let a = votes(ballots.iter().map(|b| all_shapes(n, b)));
        let b = votes(shuffled.iter().map(|b| all_shapes(n, b)));
        for rule in RULES {
            prop_assert_eq!(f.evaluate(rule, json!({}), &a), f.evaluate(rule, json!({}), &b), "{}", rule);
        }
    }

    /// Grouping identical ballots (the fast path for few options and many ballots) never changes
    /// a count.
    #[test]
    fn grouped_counts_equal_ballot_by_ballot_counts(
        (n, ballots) in (1usize..=4).prop_flat_map(|n| (Just(n), vec(ranking(n), 160..400)))
    ) {
        let mut p = RankingProfile::new(n);
        for b in &ballots {
            let b: Vec<u32> = b.iter().map(|&o| o as u32).collect();
            prop_assert!(p.push(&b));
        }
        let g = p.grouped().expect("few options, many ballots: grouped");
        prop_assert_eq!(borda::count_ballots(&g), borda::count_ballots(&p));
        prop_assert_eq!(irv::count_ballots(&g), irv::count_ballots(&p));
        prop_assert_eq!(Pairwise::count_ballots(&g), Pairwise::count_ballots(&p));
        prop_assert_eq!(condorcet::schulze(&p), condorcet::schulze_from(Pairwise::count_ballots(&p)));
    }

    /// A Condorcet winner, when one exists, is the only Copeland and Schulze winner.
    #[test]
    fn condorcet_winner_wins_copeland_and_schulze(
        (n, ballots) in prop_oneof![ranked_profile(), skewed_profile()]
    ) {
        let f = fixture(&keys(n));
        let v = votes(ballots.iter().map(|b| all_shapes(n, b)));
        let expected = naive_condorcet_winner(n, &ballots);

        let mut typed = RankingProfile::new(n);
        for b in &ballots {
            let b: Vec<u32> = b.iter().map(|&o| o as u32).collect();
            prop_assert!(typed.push(&b));
        }
        prop_assert_eq!(Pairwise::count(&typed).condorcet_winner().map(|o| o as usize), expected);

        if let (Some(cw), false) = (expected, ballots.is_empty()) {
            for rule in ["copeland", "schulze"] {
                prop_assert_eq!(winners(&f.evaluate(rule, json!({}), &v)), vec![format!("o{cw}")], "{}", rule);
            }
        }
    }

    /// Adding a ballot for a plurality winner never makes it lose (it becomes the only winner).
    #[test]
    fn plurality_is_monotone(n in 1usize..=6, choices in vec(0usize..6, 0..60)) {
        let choices: Vec<usize> = choices.into_iter().map(|c| c % n).collect();
        let f = fixture(&keys(n));
        let data = |cs: &[usize]| votes(cs.iter().map(|c| json!({"selected_option": format!("o{c}")})));
        let before = winners(&f.evaluate("plurality", json!({}), &data(&choices)));
        for w in &before {
            let mut more = choices.clone();
            more.push(w[1..].parse().unwrap());
            let after = winners(&f.evaluate("plurality", json!({}), &data(&more)));
            prop_assert_eq!(&after, &vec![w.clone()]);
        }
        // Typed core agrees.
        let typed: Vec<u32> = choices.iter().map(|&c| c as u32).collect();
        let c = plurality::count(n, &typed);
        prop_assert_eq!(c.winners.len(), before.len());
    }

    /// No panic on arbitrary vote_data, for every builtin; a PQT accepts a ballot exactly when the
    /// matching rule counts it.
    #[test]
    fn arbitrary_vote_data_never_panics(data in vec(arb_vote_data(), 0..6), seed in any::<u64>()) {
        let f = fixture(&keys(3));
        let v: Vec<_> = data.iter().cloned().enumerate().map(|(i, d)| vote(i, d)).collect();
        for rule in RULES {
            let out = f.evaluate(rule, json!({}), &v);
            let ignored = out["ignored"].as_u64().unwrap();
            let (pqt, params) = pqt_of(rule);
            let accepted = data.iter().filter(|d| f.pqt(pqt, params.clone(), (*d).clone())["qualified"] == true).count();
            if rule != "weighted-plurality" {
                prop_assert_eq!(accepted as u64 + ignored, data.len() as u64, "{}", rule);
            }
        }
        for rule in names(Hook::Pqt) {
            for d in &data {
                let out = f.pqt(rule, json!({}), d.clone());
                prop_assert!(out["qualified"].is_boolean());
                prop_assert_eq!(out.get("reason").is_some(), out["qualified"] == false);
            }
        }
        let tied = ["o0", "o2"];
        for rule in names(Hook::TieBreaker) {
            let r = f.tie_break(rule, json!({"seed": seed}), &v, &tied);
            if let Ok(out) = r {
                prop_assert!(tied.contains(&out["winner"].as_str().unwrap()));
            } else {
                prop_assert_eq!(rule, "earliest-vote");
            }
        }
    }
}
