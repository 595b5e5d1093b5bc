//! `cargo bench -p agora-voting-rules`: ballots per second for every choice rule.
//!
//! - Rust core: the typed count on 1,000,000 random ballots of 5 options (profile built
//!   beforehand, best of 3 runs).
//! - Rust run(): the JSON entry point on 1,000,000 stored votes (`&[Vote]` → output JSON), what the
//!   evaluator calls.
//! - pref_voting: the same kind of ballots, 100,000 of them, via `tests/oracle/pref_voting_oracle.py`
//!   run by `$AGORA_PYTHON` (default `python3`), timing only the rule call (warmed up, profile
//!   built beforehand). "n/a" when pref_voting is not installed.
//!
//! Note: pref_voting's `Profile` constructor already computes the pairwise tally, so its Copeland
//! and Schulze rule call alone does no counting: for those two the tally computation (timed by
//! the oracle with the constructor's own kernel) is added. The last two columns time
//! pref_voting from ballot lists to winners (profile construction + rule call).

use agora_voting_rules::profile::{ApprovalProfile, RankingProfile, ScoreProfile, ScoreRange};
use agora_voting_rules::{approval, borda, condorcet, irv, plurality, run, score};
use agora_voting_schema::{Entity, Hook, HookInput, SocialChoiceEvaluationInput};
use agora_voting_schema::{SocialChoiceSubjectSpecInput, SocialTaskCoreData, Vote};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use std::hint::black_box;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

const OPTIONS: usize = 5;
const BALLOTS: usize = 1_000_000;
const PY_BALLOTS: usize = 100_000;

const RULES: [&str; 8] = ["plurality", "weighted-plurality", "approval", "borda", "instant-runoff", "copeland", "schulze", "score"];

struct Data {
    rankings: Vec<Vec<u32>>,
    weights: Vec<u32>,
    approvals: Vec<Vec<u32>>,
    scores: Vec<Vec<(u32, u32)>>,
}

fn data(rng: &mut StdRng) -> Data {
    let mut rankings = Vec::with_capacity(BALLOTS);
    let mut approvals = Vec::with_capacity(BALLOTS);
    let mut scores = Vec::with_capacity(BALLOTS);
    let mut weights = Vec::with_capacity(BALLOTS);
    let base: Vec<u32> = (0..OPTIONS as u32).collect();
    for _ in 0..BALLOTS {
        let mut r = base.clone();
        r.shuffle(rng);
        rankings.push(r);
        approvals.push(base.iter().copied().filter(|_| rng.gen_bool(0.4)).collect());
        scores.push(base.iter().map(|&o| (o, rng.gen_range(0..=10))).collect());
        weights.push(rng.gen_range(1..=3));
    }
    Data { rankings, weights, approvals, scores }
}

/// Best of 3 runs, in seconds.
fn best_of_3(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn core_seconds(rule: &str, d: &Data) -> f64 {
    match rule {
        "plurality" => {
            let choices: Vec<u32> = d.rankings.iter().map(|r| r[0]).collect();
            best_of_3(|| {
                black_box(plurality::count(OPTIONS, black_box(&choices)));
            })
        }
        "weighted-plurality" => {
            let ballots: Vec<(u32, f64)> = d.rankings.iter().zip(&d.weights).map(|(r, &w)| (r[0], f64::from(w))).collect();
            best_of_3(|| {
                black_box(plurality::count_weighted(OPTIONS, black_box(&ballots)));
            })
        }
        "approval" => {
            let mut p = ApprovalProfile::new(OPTIONS);
            for a in &d.approvals {
                p.push(a);
            }
            best_of_3(|| {
                black_box(approval::count(black_box(&p)));
            })
        }
        "score" => {
            let mut p = ScoreProfile::new(OPTIONS, ScoreRange::DEFAULT);
            for s in &d.scores {
                let s: Vec<(u32, f64)> = s.iter().map(|&(o, x)| (o, f64::from(x))).collect();
                p.push(&s);
            }
            best_of_3(|| {
                black_box(score::count(black_box(&p)));
            })
        }
        _ => {
            let mut p = RankingProfile::with_capacity(OPTIONS, BALLOTS);
            for r in &d.rankings {
                p.push(r);
            }
            let p = black_box(&p);
            match rule {
                "borda" => best_of_3(|| {
                    black_box(borda::count(p));
                }),
                "instant-runoff" => best_of_3(|| {
                    black_box(irv::count(p));
                }),
                "copeland" => best_of_3(|| {
                    black_box(condorcet::copeland(p));
                }),
                _ => best_of_3(|| {
                    black_box(condorcet::schulze(p));
                }),
            }
        }
    }
}

fn key(o: u32) -> String {
    format!("agent-translator-{o:02}")
}

fn vote_data(rule: &str, d: &Data, i: usize) -> Value {
    let r = &d.rankings[i];
    let keys = |os: &[u32]| os.iter().map(|&o| key(o)).collect::<Vec<_>>();
    match rule {
        "plurality" => json!({"selected_option": key(r[0])}),
        "weighted-plurality" => json!({"selected_option": key(r[0]), "weight": d.weights[i]}),
        "approval" => json!({"approved": keys(&d.approvals[i])}),
        "score" => {
            let scores: Map<String, Value> = d.scores[i].iter().map(|&(o, s)| (key(o), json!(s))).collect();
            json!({ "scores": scores })
        }
        _ => json!({"ranking": keys(r)}),
    }
}

/// Seconds for `run()` on `BALLOTS` stored votes (best of 3).
fn json_seconds(rule: &str, d: &Data) -> f64 {
    let options: Map<String, Value> = (0..OPTIONS as u32).map(|o| (key(o), json!({"name": key(o)}))).collect();
    let task = SocialTaskCoreData::from_dict(&json!({
        "social_task_id": "task_bench000", "created_by_subject_id": "c",
        "created_by_subject_data": {}, "org_ids": [], "social_task_access_type": "public",
        "goal_data": {}, "social_tasks_topics": [], "social_task_properties": {},
        "creation_time": "2026-10-22T09:00:00"}))
    .expect("task");
    let spec = SocialChoiceSubjectSpecInput::from_dict(&json!({
        "social_task_id": "task_bench000", "topic_title": "t", "topic_description": "",
        "voting_options_map": options, "voting_option_metadata_map": {},
        "supported_protocols": [], "voting_message_request_creator": {}}))
    .expect("spec");
    let eval = SocialChoiceEvaluationInput::from_dict(&json!({
        "social_task_id": "task_bench000", "constraints_entry_id": "", "constraints_entry_id_1": "",
        "voting_pqt": {}, "choice_evaluation": {}, "tie_breaker": {}, "post_awarding": {}}))
    .expect("evaluation input");
    // An unweighted vote document as a store holds it; each vote is a copy with its own ids
    // and ballot.
    let base: Vote = serde_json::from_value(json!({
        "vote_id": "v", "social_task_id": "task_bench000", "submitter_subject_id": "voter",
        "vote_data": {}, "submission_time": "2026-10-22T09:00:00", "qualified": true}))
    .expect("vote");
    let votes: Vec<Vote> = (0..BALLOTS)
        .map(|i| Vote {
            vote_id: format!("v{i}"),
            submitter_subject_id: format!("voter{i}"),
            vote_data: vote_data(rule, d, i),
            ..base.clone()
        })
        .collect();
    let input = HookInput::evaluation(&task, &spec, &eval, &votes, None);
    let params = json!({});
    best_of_3(|| {
        let out = run(Hook::ChoiceEvaluation, rule, &params, black_box(&input)).expect("rule runs");
        assert_eq!(out["ignored"], 0, "{rule}: bench ballots must all count");
        black_box(out);
    })
}

/// pref_voting's answer (`results` per rule, `version`), or why there is none.
fn pref_voting(d: &Data) -> Result<Value, String> {
    let py = std::env::var("AGORA_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = format!("{}/tests/oracle/pref_voting_oracle.py", env!("CARGO_MANIFEST_DIR"));
    let n = PY_BALLOTS;
    let request = json!({
        "mode": "bench",
        "n": OPTIONS,
        "rules": RULES,
        "rankings": &d.rankings[..n],
        "weights": &d.weights[..n],
        "approvals": &d.approvals[..n],
        "scores": &d.scores[..n],
    });
    let mut child = Command::new(&py)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {py}: {e}"))?;
    let body = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
    }
    let answer: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    if answer["results"].is_object() {
        Ok(answer)
    } else {
        Err("the oracle returned no results".into())
    }
}

fn rate(ballots: usize, secs: f64) -> f64 {
    ballots as f64 / secs
}

fn human(per_sec: f64) -> String {
    if per_sec >= 1e9 {
        format!("{:.2} G/s", per_sec / 1e9)
    } else if per_sec >= 1e6 {
        format!("{:.1} M/s", per_sec / 1e6)
    } else if per_sec >= 1e3 {
        format!("{:.1} k/s", per_sec / 1e3)
    } else {
        format!("{per_sec:.0} /s")
    }
}

fn main() {
    let started = Instant::now();
    let mut rng = StdRng::seed_from_u64(2026);
    eprintln!("generating {BALLOTS} random ballots of {OPTIONS} options ...");
    let d = data(&mut rng);

    eprintln!("running pref_voting on {PY_BALLOTS} ballots ...");
    let py = pref_voting(&d);
    if let Err(e) = &py {
        eprintln!("pref_voting unavailable: {e}");
    }

    let mut rows = Vec::new();
    for rule in RULES {
        eprintln!("{rule} ...");
        let core = rate(BALLOTS, core_seconds(rule, &d));
        let json = rate(BALLOTS, json_seconds(rule, &d));
        let (py_call, py_total) = match &py {
            Ok(answer) => match (answer["results"][rule]["seconds"].as_f64(), answer["results"][rule]["build_seconds"].as_f64()) {
                (Some(call), Some(build)) => {
                    let count = answer["results"][rule]["count_seconds"].as_f64().unwrap_or(0.0);
                    (Some(rate(PY_BALLOTS, call + count)), Some(rate(PY_BALLOTS, call + build)))
                }
                _ => (None, None),
            },
            Err(_) => (None, None),
        };
        rows.push((rule, core, json, py_call, py_total));
    }

    println!();
    println!(
        "ballots per second, {OPTIONS} options (Rust: {BALLOTS} ballots in process; pref_voting {}: {PY_BALLOTS} ballots)",
        match &py {
            Ok(answer) => answer["version"].as_str().unwrap_or("?").to_string(),
            Err(_) => "n/a (not installed: run the test script)".to_string(),
        }
    );
    println!(
        "{:<20} {:>12} {:>16} {:>22} {:>8} {:>26} {:>8}",
        "rule", "Rust core", "Rust run() JSON", "pref_voting rule call", "ratio", "pref_voting build + call", "ratio"
    );
    let opt = |x: Option<f64>| x.map_or("n/a".to_string(), human);
    let ratio = |core: f64, x: Option<f64>| x.map_or("n/a".to_string(), |p| format!("{:.0}x", core / p));
    for (rule, core, json, py_call, py_total) in rows {
        println!(
            "{:<20} {:>12} {:>16} {:>22} {:>8} {:>26} {:>8}",
            if rule == "copeland" || rule == "schulze" { format!("{rule} *") } else { rule.to_string() },
            human(core),
            human(json),
            opt(py_call),
            ratio(core, py_call),
            opt(py_total),
            ratio(core, py_total),
        );
    }
    println!(
        "\"Rust core\": the typed count on a prebuilt profile. \"Rust run() JSON\": the whole \
         builtin on &[Vote] (parse vote_data, count, write the output JSON).\n\
         \"pref_voting rule call\": the rule function on a prebuilt pref_voting profile (numba \
         kernels, warmed up). * Copeland and Schulze read the pairwise tally that pref_voting's \
         Profile constructor computes, so their figure adds that computation (the constructor's \
         own _support kernel).\n\
         \"pref_voting build + call\": Profile/GradeProfile construction from the ballot lists \
         plus the rule call, i.e. ballots to winners.\n\
         Total bench time {:.0} s.",
        started.elapsed().as_secs_f64()
    );
}
