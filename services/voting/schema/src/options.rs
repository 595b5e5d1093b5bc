//! The voting options beyond the spec: a deadline, a quorum, changed votes and
//! weights. They are optional keys of the create request's `social_task` section
//! (`deadline` or `deadline_seconds`, `quorum`, `vote_changes`, `weights`) and are stored in
//! `social_task_properties.voting`, so that every stored field of §2 keeps its meaning and a task
//! created without them is stored byte for byte as before (no `voting` key is added).
//!
//! Stored form (`social_task_properties.voting`), each key present only when given:
//! `{"deadline": "<naive UTC ISO-8601>", "deadline_seconds": n, "quorum": n,
//! "vote_changes": n, "weights": {"<voter>": w, ...} | <function spec>}`.

use agora_schema::fields::{kind, Reader};
use agora_schema::time::{format_datetime, parse_datetime};
use agora_schema::FunctionSpec;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The key of `social_task_properties` that holds the options.
pub const PROPERTIES_KEY: &str = "voting";

/// The request keys of `social_task` that are options, in the order they are stored.
pub const OPTION_KEYS: [&str; 5] = ["deadline", "deadline_seconds", "quorum", "vote_changes", "weights"];

/// When voting closes.
#[derive(Debug, Clone, PartialEq)]
pub enum Deadline {
    /// At this instant (UTC).
    At(DateTime<Utc>),
    /// This many seconds after the task starts (`start_time`).
    AfterStart(i64),
}

/// How much each voter's vote weighs.
#[derive(Debug, Clone, PartialEq)]
pub enum Weights {
    /// A private task's members and their weights; a member not named weighs 1.
    Voters(BTreeMap<String, f64>),
    /// A hook (§2.5) asked for each voter's weight (`{"weight": w}`).
    Function(FunctionSpec),
}

/// A task's options; all absent is a task as the spec has it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VotingOptions {
    pub deadline: Option<Deadline>,
    pub quorum: Option<i64>,
    pub vote_changes: Option<i64>,
    pub weights: Option<Weights>,
}

impl VotingOptions {
    /// Whether no option is set.
    pub fn is_empty(&self) -> bool {
        *self == VotingOptions::default()
    }

    /// The options stored in a task's properties (`social_task_properties.voting`); none when
    /// the key is absent. Read as written at creation, where they were validated; a value of
    /// another shape (a task whose creator wrote `properties.voting` by hand) is ignored.
    pub fn from_properties(properties: &Map<String, Value>) -> Self {
        let Some(Value::Object(stored)) = properties.get(PROPERTIES_KEY) else { return Self::default() };
        let positive = |key: &str| stored.get(key).and_then(Value::as_i64).filter(|n| *n >= 1);
        let deadline = match (stored.get("deadline").and_then(parse_datetime), positive("deadline_seconds")) {
            (Some(at), _) => Some(Deadline::At(at)),
            (None, Some(secs)) => Some(Deadline::AfterStart(secs)),
            (None, None) => None,
        };
        let weights = stored.get("weights").and_then(|w| match w {
            Value::Object(m) if is_function_spec(m) => Some(Weights::Function(FunctionSpec(m.clone()))),
            Value::Object(m) => {
                let voters: Option<BTreeMap<String, f64>> =
                    m.iter().map(|(k, v)| v.as_f64().filter(|w| valid_weight(*w)).map(|w| (k.clone(), w))).collect();
                voters.map(Weights::Voters)
            }
            _ => None,
        });
        Self { deadline, quorum: positive("quorum"), vote_changes: positive("vote_changes"), weights }
    }

    /// The stored form (see the module docs).
    pub fn to_stored(&self) -> Value {
        let mut out = Map::new();
        match &self.deadline {
            Some(Deadline::At(at)) => {
                out.insert("deadline".into(), Value::String(format_datetime(at)));
            }
            Some(Deadline::AfterStart(secs)) => {
                out.insert("deadline_seconds".into(), Value::from(*secs));
            }
            None => {}
        }
        if let Some(q) = self.quorum {
            out.insert("quorum".into(), Value::from(q));
        }
        if let Some(n) = self.vote_changes {
            out.insert("vote_changes".into(), Value::from(n));
        }
        match &self.weights {
            Some(Weights::Voters(m)) => {
                out.insert("weights".into(), Value::Object(m.iter().map(|(k, w)| (k.clone(), Value::from(*w))).collect()));
            }
            Some(Weights::Function(spec)) => {
                out.insert("weights".into(), Value::Object(spec.0.clone()));
            }
            None => {}
        }
        Value::Object(out)
    }

    /// The instant voting closes, for a task that started at `start_time` (`None` before it
    /// starts when the deadline is relative to the start).
    pub fn deadline_at(&self, start_time: Option<DateTime<Utc>>) -> Option<DateTime<Utc>> {
        match self.deadline.as_ref()? {
            Deadline::At(at) => Some(*at),
            Deadline::AfterStart(secs) => start_time.map(|s| s + chrono::Duration::seconds(*secs)),
        }
    }

    /// The weight of `voter`'s vote from a weights map: its entry, else 1. `None` when the task
    /// has no weights map (unweighted, or weighted by a function).
    pub fn mapped_weight(&self, voter: &str) -> Option<f64> {
        match &self.weights {
            Some(Weights::Voters(m)) => Some(m.get(voter).copied().unwrap_or(1.0)),
            _ => None,
        }
    }
}

/// What the options are checked against: the task's other fields as the request gives them.
pub struct TaskShape<'a> {
    pub org_ids: Option<&'a [String]>,
    pub private: bool,
    pub public: bool,
    pub scheduled_time: Option<DateTime<Utc>>,
    /// A public task's trigger count (`duration`, default 5).
    pub trigger_count: i64,
    /// `properties` as the request gives it.
    pub properties: Option<&'a Map<String, Value>>,
}

/// Reads the options from the `social_task` section `r`, each problem reported by its path
/// (`social_task.quorum must ...`). `None` when one of them is invalid.
pub fn parse_options(r: &mut Reader<'_>, shape: &TaskShape<'_>) -> Option<VotingOptions> {
    let given: Vec<&str> = OPTION_KEYS.iter().copied().filter(|k| r.get(k).is_some()).collect();
    if given.is_empty() {
        return Some(VotingOptions::default());
    }
    let mut ok = true;
    if shape.properties.is_some_and(|p| p.contains_key(PROPERTIES_KEY)) {
        r.fail(
            "properties.voting",
            format!("is where the voting options ({}) are stored; give them as keys of social_task, not in properties", given.join(", ")),
        );
        ok = false;
    }
    let deadline = match (r.get("deadline").is_some(), r.get("deadline_seconds").is_some()) {
        (true, true) => {
            r.fail("deadline_seconds", "cannot be given with deadline: give one of them");
            ok = false;
            None
        }
        (true, false) => match r.datetime("deadline", true) {
            Some(at) if shape.scheduled_time.is_some_and(|s| at <= s) => {
                r.fail("deadline", "must be after scheduled_time");
                ok = false;
                None
            }
            Some(at) => Some(Deadline::At(at)),
            None => {
                ok = false;
                None
            }
        },
        (false, true) => match r.opt_positive_int("deadline_seconds") {
            Some(secs) => Some(Deadline::AfterStart(secs)),
            None => {
                ok = false;
                None
            }
        },
        (false, false) => None,
    };
    let quorum = optional_count(r, "quorum", &mut ok);
    if let Some(q) = quorum {
        ok &= quorum_reachable(r, q, deadline.is_some() || r.get("deadline").is_some() || r.get("deadline_seconds").is_some(), shape);
    }
    let vote_changes = optional_count(r, "vote_changes", &mut ok);
    if vote_changes.is_some() {
        // Replacing a vote is not built: refused rather than stored and ignored.
        r.fail("vote_changes", "is not supported yet: a voter cannot replace a vote (a second vote gets 409)");
        ok = false;
    }
    let weights = match r.get("weights") {
        None => None,
        Some(w) => {
            let parsed = parse_weights(r, w, shape);
            ok &= parsed.is_some();
            parsed
        }
    };
    ok.then_some(VotingOptions { deadline, quorum, vote_changes, weights })
}

/// An optional positive integer option; a wrong value clears `ok`.
fn optional_count(r: &mut Reader<'_>, key: &str, ok: &mut bool) -> Option<i64> {
    r.get(key)?;
    let n = r.opt_positive_int(key);
    *ok &= n.is_some();
    n
}

/// Whether `quorum` can ever matter and be met: it needs a deadline (without one a task is
/// evaluated only when its trigger holds, which is the quorum met or not reached for ever), and
/// it cannot exceed the votes the task can take (a private task's members, a public task's
/// `duration`).
fn quorum_reachable(r: &mut Reader<'_>, quorum: i64, has_deadline: bool, shape: &TaskShape<'_>) -> bool {
    if !has_deadline {
        r.fail("quorum", "needs a deadline or deadline_seconds: without one, a task is evaluated only when its trigger holds");
        return false;
    }
    let most = if shape.private {
        shape.org_ids.map(|ids| ids.iter().collect::<std::collections::BTreeSet<_>>().len() as i64)
    } else if shape.public {
        Some(shape.trigger_count.max(1))
    } else {
        None
    };
    match most {
        Some(most) if quorum > most => {
            let what = if shape.private { "the number of distinct org_ids" } else { "duration" };
            r.fail("quorum", format!("must be at most {what} ({most}), got {quorum}"));
            false
        }
        _ => true,
    }
}

/// `weights`: a function spec (an object whose `mode` is a string), or, for a private task, a
/// map from members to positive finite numbers.
fn parse_weights(r: &mut Reader<'_>, w: &Value, shape: &TaskShape<'_>) -> Option<Weights> {
    let Value::Object(map) = w else {
        r.fail("weights", format!("must be an object (voter → weight, or a function spec), got {}", kind(w)));
        return None;
    };
    if is_function_spec(map) {
        let spec = r.function_spec("weights")?;
        if spec.is_empty() {
            r.fail("weights", "must name a function");
            return None;
        }
        return r.storable("weights", w).then_some(Weights::Function(spec));
    }
    if !shape.private {
        r.fail("weights", "a map of voters' weights is for private tasks; give a function spec");
        return None;
    }
    let mut ok = true;
    let mut voters = BTreeMap::new();
    for (voter, value) in map {
        let path = format!("weights.{voter}");
        if shape.org_ids.is_some_and(|ids| !ids.contains(voter)) {
            r.fail(&path, "is not a member of org_ids");
            ok = false;
            continue;
        }
        match value.as_f64().filter(|w| valid_weight(*w)) {
            Some(weight) => {
                voters.insert(voter.clone(), weight);
            }
            None => {
                r.fail(&path, format!("must be a number from {MIN_WEIGHT:e} to {MAX_WEIGHT:e}, got {value}"));
                ok = false;
            }
        }
    }
    (ok && r.storable("weights", w)).then_some(Weights::Voters(voters))
}

/// A function spec has a string `mode`; a weights map has only numbers.
fn is_function_spec(map: &Map<String, Value>) -> bool {
    map.get("mode").is_some_and(Value::is_string)
}

/// The smallest weight a vote may carry: above zero at the resolution the rules count weights
/// in (2⁻³²).
pub const MIN_WEIGHT: f64 = 1e-9;

/// The largest weight a vote may carry (the rules' bound on any counted magnitude).
pub const MAX_WEIGHT: f64 = 1e9;

/// A weight is a number within [`MIN_WEIGHT`] ..= [`MAX_WEIGHT`] (so finite and positive): what
/// the builtin rules count.
pub fn valid_weight(w: f64) -> bool {
    (MIN_WEIGHT..=MAX_WEIGHT).contains(&w)
}
