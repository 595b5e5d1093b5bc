//! Hand-computed cases for every builtin, through the public JSON entry point.

mod common;

use agora_voting_rules::{check, run, RuleError};
use agora_voting_schema::{Hook, HookInput};
use common::{fixture, time, vote, vote_at, votes, winners, Fixture};
use serde_json::{json, Value};

fn ranked(f: &Fixture, rule: &str, ballots: &[(&[&str], usize)]) -> Value {
    let data = ballots.iter().flat_map(|(r, k)| std::iter::repeat_n(json!({ "ranking": r }), *k));
    f.evaluate(rule, json!({}), &votes(data))
}

// ---------------------------------------------------------------- plurality

#[test]
fn plurality_is_the_reference_output() {
    let f = fixture(&["agent-translator-01", "agent-translator-02"]);
    let v = votes([
        json!({"selected_option": "agent-translator-02"}),
        json!({"selected_option": "agent-translator-01"}),
        json!({"selected_option": "agent-translator-02"}),
    ]);
    let out = f.evaluate("plurality", json!({}), &v);
    // Byte for byte, including the tally's key order (Counter: first appearance).
    assert_eq!(
        serde_json::to_string(&out).unwrap(),
        r#"{"winners":["agent-translator-02"],"tally":{"agent-translator-02":2,"agent-translator-01":1},"ignored":0}"#
    );
}

#[test]
fn plurality_ties_are_sorted_and_no_votes_is_empty() {
    let f = fixture(&["a", "b", "c"]);
    let out = f.evaluate("plurality", json!({}), &votes([json!({"selected_option": "b"}), json!({"selected_option": "a"})]));
    assert_eq!(out, json!({"winners": ["a", "b"], "tally": {"b": 1, "a": 1}, "ignored": 0}));
    let out = f.evaluate("plurality", json!({}), &[]);
    assert_eq!(out, json!({"winners": [], "tally": {}, "ignored": 0}));
}

#[test]
fn plurality_ignores_ballots_that_do_not_fit() {
    let f = fixture(&["a", "b"]);
    let out = f.evaluate(
        "plurality",
        json!({}),
        &votes([
            json!({"selected_option": "a"}),
            json!({"selected_option": "zz"}),
            json!({"ranking": ["b"]}),
            json!("b"),
            json!({"selected_option": 1}),
        ]),
    );
    assert_eq!(out, json!({"winners": ["a"], "tally": {"a": 1}, "ignored": 4}));
}

#[test]
fn weighted_plurality() {
    let f = fixture(&["a", "b", "c"]);
    let out = f.evaluate(
        "weighted-plurality",
        json!({}),
        &votes([
            json!({"selected_option": "b"}),
            json!({"selected_option": "a", "weight": 2.5}),
            json!({"selected_option": "b", "weight": 1}),
            json!({"selected_option": "c", "weight": -1}),
            json!({"selected_option": "c", "weight": "heavy"}),
        ]),
    );
    assert_eq!(out, json!({"winners": ["a"], "tally": {"b": 2, "a": 2.5}, "ignored": 2}));
    let out = f.evaluate(
        "weighted-plurality",
        json!({}),
        &votes([
            json!({"selected_option": "c", "weight": 0.1}),
            json!({"selected_option": "c", "weight": 0.2}),
            json!({"selected_option": "a", "weight": 0.3}),
        ]),
    );
    // 0.1 + 0.2 == 0.3 here: weights are summed exactly (to 2^-32).
    assert_eq!(winners(&out), vec!["a", "c"]);
}

// ---------------------------------------------------------------- approval, score

#[test]
fn approval() {
    let f = fixture(&["a", "b", "c"]);
    let out = f.evaluate(
        "approval",
        json!({}),
        &votes([
            json!({"approved": ["a", "b"]}),
            json!({"approved": ["b"]}),
            json!({"approved": []}),
            json!({"approved": ["a", "a"]}),
            json!({"approved": ["zz"]}),
            json!({"approved": "a"}),
        ]),
    );
    assert_eq!(out, json!({"winners": ["b"], "tally": {"a": 1, "b": 2, "c": 0}, "ignored": 3}));
}

#[test]
fn score() {
    let f = fixture(&["a", "b", "c"]);
    let v = votes([
        json!({"scores": {"a": 10, "b": 5}}),
        json!({"scores": {"b": 7.5}}),
        json!({"scores": {"a": 11}}),
        json!({"scores": {"zz": 1}}),
        json!({"scores": {"a": "ten"}}),
        json!({"scores": {}}),
    ]);
    let out = f.evaluate("score", json!({}), &v);
    assert_eq!(out, json!({"winners": ["b"], "scores": {"a": 10, "b": 12.5, "c": 0}, "ignored": 3}));
    // With a wider range the 11 counts.
    let out = f.evaluate("score", json!({"min": -5, "max": 20}), &v);
    assert_eq!(out, json!({"winners": ["a"], "scores": {"a": 21, "b": 12.5, "c": 0}, "ignored": 2}));
    let e = f.try_evaluate(Hook::ChoiceEvaluation, "score", json!({"min": 5, "max": 1}), &v, None).unwrap_err();
    assert!(matches!(&e, RuleError::BadParameters(m) if m.contains("parameters.min")), "{e}");
    let e = f.try_evaluate(Hook::ChoiceEvaluation, "score", json!({"max": "ten"}), &v, None).unwrap_err();
    assert_eq!(e.to_string(), "parameters.max must be a number, got \"ten\"");
}

// ---------------------------------------------------------------- ranked rules

/// Wikipedia's Tennessee capital example: Memphis 42%, Nashville 26%, Chattanooga 15%, Knoxville
/// 17%, each ranking the cities by distance.
fn tennessee(f: &Fixture, rule: &str) -> Value {
    ranked(
        f,
        rule,
        &[
            (&["Memphis", "Nashville", "Chattanooga", "Knoxville"], 42),
            (&["Nashville", "Chattanooga", "Knoxville", "Memphis"], 26),
            (&["Chattanooga", "Knoxville", "Nashville", "Memphis"], 15),
            (&["Knoxville", "Chattanooga", "Nashville", "Memphis"], 17),
        ],
    )
}

fn tennessee_fixture() -> Fixture {
    fixture(&["Memphis", "Nashville", "Chattanooga", "Knoxville"])
}

#[test]
fn borda_tennessee() {
    // Points 3, 2, 1, 0. Memphis 42·3 = 126; Nashville 42·2 + 26·3 + 15 + 17 = 194;
    // Chattanooga 42 + 26·2 + 15·3 + 17·2 = 173; Knoxville 26 + 15·2 + 17·3 = 107.
    let out = tennessee(&tennessee_fixture(), "borda");
    assert_eq!(
        out,
        json!({"winners": ["Nashville"], "scores": {"Memphis": 126, "Nashville": 194, "Chattanooga": 173, "Knoxville": 107}, "ignored": 0})
    );
}

#[test]
fn borda_truncated_and_reference_points() {
    let f = fixture(&["a", "b", "c", "d"]);
    // [b] -> b 3; [a, c] -> a 3, c 2; unranked get nothing.
    let out = ranked(&f, "borda", &[(&["b"], 1), (&["a", "c"], 1)]);
    assert_eq!(out, json!({"winners": ["a", "b"], "scores": {"a": 3, "b": 3, "c": 2, "d": 0}, "ignored": 0}));
    // A ranking naming an unknown option, or an option twice, or nothing, is ignored whole.
    let out = ranked(&f, "borda", &[(&["zz", "a"], 1), (&["a", "a"], 1), (&[], 1), (&["d"], 1)]);
    assert_eq!(out, json!({"winners": ["d"], "scores": {"a": 0, "b": 0, "c": 0, "d": 3}, "ignored": 3}));
    // No ballot: no winner (the reference would name every option).
    assert_eq!(ranked(&f, "borda", &[]), json!({"winners": [], "scores": {"a": 0, "b": 0, "c": 0, "d": 0}, "ignored": 0}));
}

#[test]
fn instant_runoff_tennessee() {
    // Round 1: Chattanooga (15) out, its ballots go to Knoxville (32).
    // Round 2: Nashville (26) out, its ballots go (past Chattanooga) to Knoxville (58).
    let out = tennessee(&tennessee_fixture(), "instant-runoff");
    assert_eq!(
        out,
        json!({
            "winners": ["Knoxville"],
            "rounds": [
                {"counts": {"Memphis": 42, "Nashville": 26, "Chattanooga": 15, "Knoxville": 17}, "eliminated": ["Chattanooga"], "exhausted": 0},
                {"counts": {"Memphis": 42, "Nashville": 26, "Knoxville": 32}, "eliminated": ["Nashville"], "exhausted": 0},
                {"counts": {"Memphis": 42, "Knoxville": 58}, "eliminated": [], "exhausted": 0},
            ],
            "ignored": 0
        })
    );
}

#[test]
fn instant_runoff_ties_at_elimination_and_exhaustion() {
    let f = fixture(&["a", "b", "c", "d"]);
    let out = ranked(&f, "instant-runoff", &[(&["a"], 3), (&["b", "a"], 2), (&["c", "b"], 2), (&["d"], 1)]);
    // Round 1: d (1) out; its ballot is exhausted. Round 2: b and c tie at 2 and both go at
    // once; b's ballots move to a, c's are exhausted (b is out too). Round 3: a has 5 of 5.
    assert_eq!(
        out,
        json!({
            "winners": ["a"],
            "rounds": [
                {"counts": {"a": 3, "b": 2, "c": 2, "d": 1}, "eliminated": ["d"], "exhausted": 0},
                {"counts": {"a": 3, "b": 2, "c": 2}, "eliminated": ["b", "c"], "exhausted": 1},
                {"counts": {"a": 5}, "eliminated": [], "exhausted": 3},
            ],
            "ignored": 0
        })
    );
    // Options nobody ranks first go out together in round 1; a final 2–2 is a tie.
    let out = ranked(&f, "instant-runoff", &[(&["a", "c"], 2), (&["b", "d"], 2)]);
    assert_eq!(winners(&out), vec!["a", "b"]);
    assert_eq!(out["rounds"][0]["eliminated"], json!(["c", "d"]));
    assert_eq!(out["rounds"][1]["counts"], json!({"a": 2, "b": 2}));
}

#[test]
fn condorcet_cycle_is_a_tie_everywhere() {
    // Rock, paper, scissors: r > s > p, p > r > s, s > p > r.
    let f = fixture(&["rock", "paper", "scissors"]);
    let ballots: &[(&[&str], usize)] =
        &[(&["rock", "scissors", "paper"], 1), (&["paper", "rock", "scissors"], 1), (&["scissors", "paper", "rock"], 1)];
    for rule in ["borda", "instant-runoff", "copeland", "schulze"] {
        assert_eq!(winners(&ranked(&f, rule, ballots)), vec!["paper", "rock", "scissors"], "{rule}");
    }
    let out = ranked(&f, "copeland", ballots);
    assert_eq!(out["scores"], json!({"rock": 0, "paper": 0, "scissors": 0}));
    assert_eq!(out["pairwise"]["rock"], json!({"paper": 1, "scissors": 2}));
    let out = ranked(&f, "schulze", ballots);
    // Every defeat is 2–1 (margin 1), so every strongest path has strength 1.
    assert_eq!(
        out["strongest_paths"],
        json!({"rock": {"paper": 1, "scissors": 1}, "paper": {"rock": 1, "scissors": 1}, "scissors": {"rock": 1, "paper": 1}})
    );
}

#[test]
fn copeland_tennessee() {
    // Nashville beats everyone (Condorcet winner); Chattanooga beats Knoxville and Memphis;
    // Knoxville beats Memphis.
    let out = tennessee(&tennessee_fixture(), "copeland");
    assert_eq!(winners(&out), vec!["Nashville"]);
    assert_eq!(out["scores"], json!({"Memphis": -3, "Nashville": 3, "Chattanooga": 1, "Knoxville": -1}));
    assert_eq!(out["pairwise"]["Nashville"], json!({"Memphis": 58, "Chattanooga": 68, "Knoxville": 68}));
    assert_eq!(out["pairwise"]["Chattanooga"], json!({"Memphis": 58, "Nashville": 32, "Knoxville": 83}));
}

#[test]
fn copeland_counts_a_pairwise_tie_as_zero() {
    let f = fixture(&["a", "b", "c"]);
    // a–b tie 1–1; a beats c 2–0; b beats c 2–0 (truncated: ranked above unranked).
    let out = ranked(&f, "copeland", &[(&["a", "b"], 1), (&["b", "a"], 1)]);
    assert_eq!(out["scores"], json!({"a": 1, "b": 1, "c": -2}));
    assert_eq!(winners(&out), vec!["a", "b"]);
}

#[test]
fn schulze_wikipedia_example() {
    // Wikipedia's Schulze method example: 45 voters, 5 candidates, winner E.
    let f = fixture(&["A", "B", "C", "D", "E"]);
    let out = ranked(
        &f,
        "schulze",
        &[
            (&["A", "C", "B", "E", "D"], 5),
            (&["A", "D", "E", "C", "B"], 5),
            (&["B", "E", "D", "A", "C"], 8),
            (&["C", "A", "B", "E", "D"], 3),
            (&["C", "A", "E", "B", "D"], 7),
            (&["C", "B", "A", "D", "E"], 2),
            (&["D", "C", "E", "B", "A"], 7),
            (&["E", "B", "A", "D", "C"], 8),
        ],
    );
    assert_eq!(winners(&out), vec!["E"]);
    // d[X,Y] as on Wikipedia.
    let d = [
        ("A", [0, 20, 26, 30, 22]),
        ("B", [25, 0, 16, 33, 18]),
        ("C", [19, 29, 0, 17, 24]),
        ("D", [15, 12, 28, 0, 14]),
        ("E", [23, 27, 21, 31, 0]),
    ];
    // Strongest paths in winning votes, as on Wikipedia; in margins each is 2·p − 45 (all
    // ballots are complete, so margin = 2·support − 45 and widest paths are the same).
    let p = [
        ("A", [0, 28, 28, 30, 24]),
        ("B", [25, 0, 28, 33, 24]),
        ("C", [25, 29, 0, 29, 24]),
        ("D", [25, 28, 28, 0, 24]),
        ("E", [25, 28, 28, 31, 0]),
    ];
    let names = ["A", "B", "C", "D", "E"];
    for ((x, row_d), (_, row_p)) in d.iter().zip(p.iter()) {
        for (j, y) in names.iter().enumerate() {
            if x == y {
                continue;
            }
            assert_eq!(out["pairwise"][x][y], json!(row_d[j]), "d[{x},{y}]");
            assert_eq!(out["strongest_paths"][x][y], json!(2 * row_p[j] - 45), "p[{x},{y}]");
        }
    }
}

#[test]
fn ranked_rules_without_votes_have_no_winner() {
    let f = fixture(&["a", "b"]);
    for rule in ["borda", "instant-runoff", "copeland", "schulze"] {
        assert_eq!(winners(&ranked(&f, rule, &[])), Vec::<String>::new(), "{rule}");
    }
    assert_eq!(ranked(&f, "instant-runoff", &[])["rounds"], json!([]));
}

#[test]
fn every_rule_survives_an_empty_option_map() {
    let f = fixture::<&str>(&[]);
    let v = votes([
        json!({"selected_option": "a", "ranking": ["a"], "approved": ["a"], "scores": {"a": 1}}),
        json!({"approved": [], "scores": {}}),
    ]);
    for rule in agora_voting_rules::names(Hook::ChoiceEvaluation) {
        let out = f.evaluate(rule, json!({}), &v);
        assert_eq!(winners(&out), Vec::<String>::new(), "{rule}");
    }
}

#[test]
fn pairwise_rules_refuse_too_many_options() {
    let keys: Vec<String> = (0..1001).map(|i| format!("o{i}")).collect();
    let f = fixture(&keys);
    let e = f.try_evaluate(Hook::ChoiceEvaluation, "schulze", json!({}), &[], None).unwrap_err();
    assert_eq!(e, RuleError::TooManyOptions { rule: "schulze", n: 1001, max: 1000 });
}

// ---------------------------------------------------------------- PQTs

#[test]
fn option_on_ballot_is_the_reference() {
    let f = fixture(&["agent-translator-01", "agent-translator-02"]);
    let pqt = |d: Value| f.pqt("option-on-ballot", json!({}), d);
    assert_eq!(pqt(json!({"selected_option": "agent-translator-01"})), json!({"qualified": true}));
    assert_eq!(
        pqt(json!({"selected_option": "agent-translator-09"})),
        json!({"qualified": false, "reason": "option 'agent-translator-09' is not on the ballot"})
    );
    assert_eq!(pqt(json!({})), json!({"qualified": false, "reason": "option None is not on the ballot"}));
    assert_eq!(pqt(json!({"selected_option": 7})), json!({"qualified": false, "reason": "option 7 is not on the ballot"}));
    assert_eq!(pqt(json!(["agent-translator-01"])), json!({"qualified": false, "reason": "vote_data must be an object"}));
}

#[test]
fn valid_ranking_and_approval() {
    let f = fixture(&["a", "b", "c"]);
    let reason = |rule: &str, d: Value| {
        let out = f.pqt(rule, json!({}), d);
        match out["qualified"] {
            Value::Bool(true) => "ok".to_string(),
            _ => out["reason"].as_str().unwrap().to_string(),
        }
    };
    assert_eq!(reason("valid-ranking", json!({"ranking": ["c", "a"]})), "ok");
    assert_eq!(reason("valid-ranking", json!({"ranking": []})), "vote_data.ranking is empty");
    assert_eq!(reason("valid-ranking", json!({"ranking": ["a", "b", "a"]})), "option 'a' appears twice in vote_data.ranking");
    assert_eq!(reason("valid-ranking", json!({"ranking": ["a", "x"]})), "option 'x' is not on the ballot");
    assert_eq!(reason("valid-ranking", json!({"ranking": ["a", 2]})), "vote_data.ranking[1] must be an option key (a string)");
    assert_eq!(reason("valid-ranking", json!({"ranking": "a"})), "vote_data.ranking must be an array of option keys");
    assert_eq!(reason("valid-ranking", json!({"approved": ["a"]})), "vote_data.ranking is missing");
    assert_eq!(reason("valid-approval", json!({"approved": []})), "ok");
    assert_eq!(reason("valid-approval", json!({"approved": ["b", "c"]})), "ok");
    assert_eq!(reason("valid-approval", json!({"approved": ["b", "b"]})), "option 'b' appears twice in vote_data.approved");
}

#[test]
fn valid_scores() {
    let f = fixture(&["a", "b"]);
    let pqt = |p: Value, d: Value| f.pqt("valid-scores", p, d);
    assert_eq!(pqt(json!({}), json!({"scores": {"a": 0, "b": 10}})), json!({"qualified": true}));
    assert_eq!(
        pqt(json!({}), json!({"scores": {"a": 11}})),
        json!({"qualified": false, "reason": "the score of option 'a' (11) is outside 0..10"})
    );
    assert_eq!(
        pqt(json!({"min": 1, "max": 5}), json!({"scores": {"b": 0.5}})),
        json!({"qualified": false, "reason": "the score of option 'b' (0.5) is outside 1..5"})
    );
    assert_eq!(
        pqt(json!({}), json!({"scores": {"a": null}})),
        json!({"qualified": false, "reason": "the score of option 'a' must be a number"})
    );
    assert_eq!(
        pqt(json!({}), json!({"scores": ["a"]})),
        json!({"qualified": false, "reason": "vote_data.scores must be an object of option key → number"})
    );
    let e = f.try_pqt("valid-scores", json!({"min": "low"}), &json!({"scores": {}})).unwrap_err();
    assert!(e.to_string().starts_with("parameters.min must be a number"), "{e}");
}

// ---------------------------------------------------------------- tie-breakers

#[test]
fn earliest_vote_is_the_reference() {
    let f = fixture(&["a", "b", "c"]);
    let v = vec![
        vote_at(0, json!({"selected_option": "c"}), time(5)),
        vote_at(1, json!({"selected_option": "b"}), time(3)),
        vote_at(2, json!({"selected_option": "c"}), time(1)),
        vote_at(3, json!({"selected_option": "a"}), time(4)),
    ];
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap(), json!({"winner": "b", "rule": "earliest_vote"}));
    // Equal times: the earlier vote in the list wins (Python's sort is stable).
    let v = vec![vote_at(0, json!({"selected_option": "b"}), time(1)), vote_at(1, json!({"selected_option": "a"}), time(1))];
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap()["winner"], "b");
}

#[test]
fn earliest_vote_reads_rankings_when_there_is_no_selected_option() {
    let f = fixture(&["a", "b", "c"]);
    let v = vec![vote_at(0, json!({"ranking": ["c", "b", "a"]}), time(1)), vote_at(1, json!({"selected_option": "a"}), time(2))];
    // The ranking's highest tied option is b.
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap()["winner"], "b");
    let v = vec![vote_at(0, json!({"approved": ["c", "a"]}), time(1))];
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap()["winner"], "a");
    let v = vec![vote_at(0, json!({"scores": {"a": 1, "b": 4, "c": 9}}), time(1))];
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap()["winner"], "b");
    // A selected_option outside the tie is not overridden by the ranking (as the reference).
    let v = vec![vote_at(0, json!({"selected_option": "c", "ranking": ["a"]}), time(1))];
    let e = f.tie_break("earliest-vote", json!({}), &v, &["a", "b"]).unwrap_err();
    assert_eq!(e, RuleError::NoBallotForTie("a, b".into()));
    assert_eq!(f.tie_break("earliest-vote", json!({}), &v, &[]).unwrap_err(), RuleError::NoTiedWinners);
}

#[test]
fn lexicographic() {
    let f = fixture(&["a", "b", "c"]);
    assert_eq!(f.tie_break("lexicographic", json!({}), &[], &["c", "b", "Z"]).unwrap(), json!({"winner": "Z", "rule": "lexicographic"}));
}

#[test]
fn seeded_random_is_deterministic_and_uniform() {
    let f = fixture(&["a", "b", "c"]);
    let pick = |seed: Value, tied: &[&str]| {
        f.tie_break("seeded-random", json!({ "seed": seed }), &[], tied).unwrap()["winner"].as_str().unwrap().to_owned()
    };
    for seed in 0..50 {
        // Same seed, same winner, whatever the order of the tied list.
        assert_eq!(pick(json!(seed), &["a", "b", "c"]), pick(json!(seed), &["c", "a", "b"]));
    }
    assert_eq!(pick(json!("release-7"), &["a", "b"]), pick(json!("release-7"), &["b", "a"]));
    let mut counts = std::collections::BTreeMap::new();
    for seed in 0..6_000u64 {
        *counts.entry(pick(json!(seed), &["a", "b", "c"])).or_insert(0) += 1;
    }
    assert_eq!(counts.len(), 3);
    for (k, c) in &counts {
        assert!((1_850..=2_150).contains(c), "{k}: {c} of 6000 ({counts:?})");
    }
    // Default seed: the task id.
    let out = f.tie_break("seeded-random", json!({}), &[], &["a", "b"]).unwrap();
    assert_eq!(out["seed"], "task_0000abcd");
    assert_eq!(out["winner"], pick(json!("task_0000abcd"), &["a", "b"]).as_str());
    let e = f.tie_break("seeded-random", json!({"seed": 1.5}), &[], &["a", "b"]).unwrap_err();
    assert!(e.to_string().starts_with("parameters.seed must be"), "{e}");
}

// ---------------------------------------------------------------- post-award

#[test]
fn post_award_rules() {
    let f = fixture(&["a", "b"]);
    assert_eq!(f.post_award("assign-first-winner", &[], &[]), json!({"decision": "none", "reason": "no qualified votes"}));
    assert_eq!(
        f.post_award("assign-first-winner", &[], &["b", "a"]),
        json!({"decision": "assigned", "assigned_to": "b", "goal": {"translate": "handbook"}})
    );
    assert_eq!(f.post_award("echo", &[], &["b", "a"]), json!({"winners": ["b", "a"], "goal": {"translate": "handbook"}}));
}

// ---------------------------------------------------------------- catalogue and errors

#[test]
fn unknown_names_and_bad_inputs_are_errors() {
    let f = fixture(&["a"]);
    assert!(check(Hook::Pqt, "valid-scores").is_ok());
    let e = check(Hook::PostAward, "plurality").unwrap_err();
    assert!(
        e.starts_with("builtin rule \"plurality\" is not available for the post-award hook (available: assign-first-winner, echo)"),
        "{e}"
    );
    assert!(check(Hook::Invitation, "echo").is_err());

    let v = votes([json!({"selected_option": "a"})]);
    let e = f.try_evaluate(Hook::ChoiceEvaluation, "nope", json!({}), &v, None).unwrap_err();
    assert!(matches!(e, RuleError::UnknownRule(_)));
    let e = f.try_evaluate(Hook::ChoiceEvaluation, "plurality", json!([1]), &v, None).unwrap_err();
    assert_eq!(e, RuleError::BadParameters("parameters must be an object".into()));
    // null parameters read as {}.
    assert!(f.try_evaluate(Hook::ChoiceEvaluation, "plurality", Value::Null, &v, None).is_ok());
    // A tie-breaker without winners, a choice rule without votes.
    let e = f.try_evaluate(Hook::TieBreaker, "lexicographic", json!({}), &v, None).unwrap_err();
    assert_eq!(e.to_string(), "user_input.winners is missing (the lexicographic rule reads it)");
    let data = json!({"selected_option": "a"});
    let input = HookInput::pqt(&f.task, &f.spec, &f.eval, &data, "voter");
    let e = run(Hook::ChoiceEvaluation, "borda", &json!({}), &input).unwrap_err();
    assert_eq!(e, RuleError::MissingInput("votes", "borda"));
    let _ = vote(0, json!({}));
}
