//! The evaluator builtins (§4): the winner among the accepted bids.
//!
//! | Builtin | Winner | Tie |
//! |---|---|---|
//! | `lowest-price` | the lowest `bid_data.price_usd` (a number, not negative) | the earliest bid |
//! | `highest-score` | the highest `bid_data.score` (a number) | the earliest bid |
//! | `earliest-bid` | the earliest bid | |
//!
//! "Earliest" is the smallest `submission_time`; bids submitted in the same microsecond go by
//! their order in the input (the store's insertion order). A bid the PQT refused
//! (`bid_data.bid_rejected`), which the service does not hand to evaluators, is never a winner,
//! nor is a bid whose field is missing or not a usable number: each is listed in
//! `result_data.bids_ignored` with why.
//!
//! Output: `{"winner_subject_id", "status": "resolved", "result_data": {"rule", "winning_bid_id",
//! <the winning value: "price_usd" / "score" / "submission_time">, "bids_considered",
//! "bids_ignored"}}`, or, when no bid qualifies (no bids at all included), `{"status":
//! "no_valid_bids", "reason", "result_data": {"rule", "bids_considered": 0, "bids_ignored"}}`.

use crate::catalogue::Builtin;
use agora_orcade_schema::fields::kind;
use agora_orcade_schema::time::format_datetime;
use agora_orcade_schema::{Bid, Evaluation};
use serde_json::{json, Map, Value};
use std::cmp::Ordering;

/// A bid that can win, with what it is ranked by (lower ranks first).
struct Candidate<'a> {
    index: usize,
    bid: &'a Bid,
    rank: f64,
    shown: Value,
}

/// `lowest-price`.
pub fn lowest_price(bids: &[Bid]) -> Evaluation {
    by_number(Builtin::LowestPrice, "price_usd", bids, |price| (price >= 0.0).then_some(price).ok_or("must not be negative"))
}

/// `highest-score`.
pub fn highest_score(bids: &[Bid]) -> Evaluation {
    by_number(Builtin::HighestScore, "score", bids, |score| Ok(-score))
}

/// `earliest-bid`.
pub fn earliest_bid(bids: &[Bid]) -> Evaluation {
    let mut ignored = Vec::new();
    let candidates = bids
        .iter()
        .enumerate()
        .filter(|(_, bid)| not_rejected(bid, &mut ignored))
        .map(|(index, bid)| Candidate { index, bid, rank: 0.0, shown: Value::String(format_datetime(&bid.submission_time)) })
        .collect();
    decide(Builtin::EarliestBid, "submission_time", candidates, ignored, "no bid to award".into())
}

/// A rule over one numeric field of `bid_data`; `rank` turns a value into its rank (lower wins)
/// or says why it cannot win.
fn by_number(rule: Builtin, field: &'static str, bids: &[Bid], rank: impl Fn(f64) -> Result<f64, &'static str>) -> Evaluation {
    let mut ignored = Vec::new();
    let mut candidates = Vec::new();
    for (index, bid) in bids.iter().enumerate() {
        if !not_rejected(bid, &mut ignored) {
            continue;
        }
        let problem = match bid.bid_data.get(field) {
            None | Some(Value::Null) => format!("bid_data.{field} is missing"),
            Some(v @ Value::Number(n)) => match n.as_f64().map(&rank) {
                Some(Ok(r)) => {
                    candidates.push(Candidate { index, bid, rank: r, shown: v.clone() });
                    continue;
                }
                Some(Err(why)) => format!("bid_data.{field} {why}, got {v}"),
                None => format!("bid_data.{field} is not a usable number, got {v}"),
            },
            Some(other) => format!("bid_data.{field} must be a number, got {}", kind(other)),
        };
        ignored.push(ignore(bid, problem));
    }
    decide(rule, field, candidates, ignored, format!("no bid has a usable bid_data.{field}"))
}

fn not_rejected(bid: &Bid, ignored: &mut Vec<Value>) -> bool {
    if bid.is_rejected() {
        ignored.push(ignore(bid, "refused by the PQT".into()));
    }
    !bid.is_rejected()
}

fn ignore(bid: &Bid, reason: String) -> Value {
    json!({"bid_id": bid.bid_id, "bid_subject_id": bid.bid_subject_id, "reason": reason})
}

/// The best candidate: lowest rank, then earliest submission, then first in the input.
fn decide(rule: Builtin, field: &str, candidates: Vec<Candidate<'_>>, ignored: Vec<Value>, none_reason: String) -> Evaluation {
    let considered = candidates.len();
    let best = candidates.into_iter().min_by(|a, b| {
        a.rank
            .partial_cmp(&b.rank)
            .unwrap_or(Ordering::Equal)
            .then(a.bid.submission_time.cmp(&b.bid.submission_time))
            .then(a.index.cmp(&b.index))
    });
    let mut result_data = Map::new();
    result_data.insert("rule".into(), json!(rule.name()));
    match best {
        Some(winner) => {
            result_data.insert("winning_bid_id".into(), json!(winner.bid.bid_id));
            result_data.insert(field.into(), winner.shown);
            result_data.insert("bids_considered".into(), json!(considered));
            result_data.insert("bids_ignored".into(), Value::Array(ignored));
            Evaluation::Resolved { winner_subject_id: winner.bid.bid_subject_id.clone(), result_data }
        }
        None => {
            let reason = if ignored.is_empty() { "no bids".to_owned() } else { none_reason };
            result_data.insert("bids_considered".into(), json!(0));
            result_data.insert("bids_ignored".into(), Value::Array(ignored));
            Evaluation::NoValidBids { reason, result_data }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::bid;

    fn winner(e: &Evaluation) -> &str {
        e.winner().unwrap_or_else(|| panic!("no winner: {}", e.to_output()))
    }

    #[test]
    fn lowest_price_wins_and_the_output_names_the_bid() {
        let bids =
            [bid("a", 0, json!({"price_usd": 120.0})), bid("b", 1, json!({"price_usd": 99.5})), bid("c", 2, json!({"price_usd": 130}))];
        let e = lowest_price(&bids);
        assert_eq!(
            e.to_output(),
            json!({"winner_subject_id": "b", "status": "resolved", "result_data": {
                "rule": "lowest-price", "winning_bid_id": "bid-b", "price_usd": 99.5, "bids_considered": 3, "bids_ignored": []
            }})
        );
    }

    #[test]
    fn lowest_price_ties_go_to_the_earliest_bid_whatever_the_order() {
        let bids = [
            bid("late", 5, json!({"price_usd": 100})),
            bid("early", 1, json!({"price_usd": 100.0})),
            bid("dear", 0, json!({"price_usd": 101})),
        ];
        assert_eq!(winner(&lowest_price(&bids)), "early");
        // Same microsecond: the first in the input.
        let bids = [bid("first", 1, json!({"price_usd": 7})), bid("second", 1, json!({"price_usd": 7}))];
        assert_eq!(winner(&lowest_price(&bids)), "first");
        let reversed = [bids[1].clone(), bids[0].clone()];
        assert_eq!(winner(&lowest_price(&reversed)), "second");
    }

    #[test]
    fn lowest_price_ignores_bids_without_a_usable_price() {
        let bids = [
            bid("none", 0, json!({})),
            bid("null", 0, json!({"price_usd": null})),
            bid("text", 0, json!({"price_usd": "10"})),
            bid("negative", 0, json!({"price_usd": -1})),
            bid("free", 3, json!({"price_usd": 0})),
        ];
        let out = lowest_price(&bids).to_output();
        assert_eq!(out["winner_subject_id"], "free");
        assert_eq!(out["result_data"]["bids_considered"], 1);
        let reasons: Vec<&str> =
            out["result_data"]["bids_ignored"].as_array().unwrap().iter().map(|i| i["reason"].as_str().unwrap()).collect();
        assert_eq!(
            reasons,
            [
                "bid_data.price_usd is missing",
                "bid_data.price_usd is missing",
                "bid_data.price_usd must be a number, got a string",
                "bid_data.price_usd must not be negative, got -1"
            ]
        );
        assert_eq!(
            out["result_data"]["bids_ignored"][2],
            json!({"bid_id": "bid-text", "bid_subject_id": "text", "reason": "bid_data.price_usd must be a number, got a string"})
        );
    }

    #[test]
    fn no_valid_bids_says_why() {
        assert_eq!(
            lowest_price(&[]).to_output(),
            json!({"status": "no_valid_bids", "reason": "no bids", "result_data": {"rule": "lowest-price", "bids_considered": 0, "bids_ignored": []}})
        );
        let out = lowest_price(&[bid("a", 0, json!({"price": 3}))]).to_output();
        assert_eq!(out["status"], "no_valid_bids");
        assert_eq!(out["reason"], "no bid has a usable bid_data.price_usd");
        assert!(out.get("winner_subject_id").is_none());
        assert_eq!(highest_score(&[]).to_output()["reason"], "no bids");
        assert_eq!(earliest_bid(&[]).to_output()["result_data"]["rule"], "earliest-bid");
    }

    #[test]
    fn refused_bids_never_win() {
        let mut cheap = bid("cheap", 0, json!({"price_usd": 1, "score": 99}));
        cheap.reject("confidence 0.1 is below the minimum 0.8");
        let bids = [cheap, bid("fair", 9, json!({"price_usd": 50, "score": 1}))];
        for e in [lowest_price(&bids), highest_score(&bids), earliest_bid(&bids)] {
            assert_eq!(winner(&e), "fair");
            let out = e.to_output();
            assert_eq!(out["result_data"]["bids_ignored"][0]["reason"], "refused by the PQT");
        }
        let only_refused = [bids[0].clone()];
        assert_eq!(earliest_bid(&only_refused).to_output()["reason"], "no bid to award");
    }

    #[test]
    fn highest_score_wins_with_ties_to_the_earliest() {
        let bids = [bid("low", 0, json!({"score": 3})), bid("late", 9, json!({"score": 8.5})), bid("early", 2, json!({"score": 8.5}))];
        let out = highest_score(&bids).to_output();
        assert_eq!(out["winner_subject_id"], "early");
        assert_eq!(out["result_data"]["score"], 8.5);
        // Negative scores are scores.
        let bids = [bid("a", 0, json!({"score": -5})), bid("b", 1, json!({"score": -2})), bid("c", 2, json!({"score": "9"}))];
        let out = highest_score(&bids).to_output();
        assert_eq!(out["winner_subject_id"], "b");
        assert_eq!(out["result_data"]["bids_ignored"][0]["reason"], "bid_data.score must be a number, got a string");
    }

    #[test]
    fn earliest_bid_needs_no_data() {
        let bids = [bid("b", 5, json!({})), bid("a", 2, json!({"anything": 1})), bid("c", 3, json!({}))];
        let out = earliest_bid(&bids).to_output();
        assert_eq!(out["winner_subject_id"], "a");
        assert_eq!(out["result_data"]["submission_time"], "2026-09-09T10:00:02");
        assert_eq!(out["result_data"]["bids_considered"], 3);
    }

    #[test]
    fn outputs_read_back_as_the_schema_reads_a_remote_evaluator() {
        let bids = [bid("a", 0, json!({"price_usd": 1}))];
        for e in [lowest_price(&bids), lowest_price(&[])] {
            assert_eq!(Evaluation::from_output(&e.to_output()).unwrap(), e);
        }
    }
}
