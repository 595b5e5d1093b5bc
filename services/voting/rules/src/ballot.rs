//! Reading one vote's `vote_data` into a typed ballot, and saying what is wrong when it does not
//! fit. The PQTs turn a [`Defect`] into their `reason`; the choice rules count the ballot as
//! ignored. Both use these functions, so a ballot a PQT accepts is a ballot the matching rule
//! counts, and the other way round.

use crate::json::{field, py_repr, py_str_repr, OptionLookup};
use crate::profile::{OptionIndex, ScoreRange, SeenSet, MAX_MAGNITUDE};
use serde_json::Value;

static NULL: Value = Value::Null;

/// Why a ballot does not fit a rule.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Defect<'a> {
    NotAnObject,
    Missing(&'static str),
    WrongType(&'static str, &'static str),
    NotAKey(&'static str, usize),
    NotOnBallot(&'a Value),
    NotOnBallotKey(&'a str),
    Duplicate(&'static str, &'a str),
    Empty(&'static str),
    ScoreNotANumber(&'a str),
    ScoreOutOfRange(&'a str, f64, ScoreRange),
    BadWeight(&'a Value),
}

impl Defect<'_> {
    /// The PQT's `reason`.
    pub(crate) fn reason(&self) -> String {
        match self {
            Defect::NotAnObject => "vote_data must be an object".into(),
            Defect::Missing(f) => format!("vote_data.{f} is missing"),
            Defect::WrongType(f, expected) => format!("vote_data.{f} must be {expected}"),
            Defect::NotAKey(f, i) => format!("vote_data.{f}[{i}] must be an option key (a string)"),
            Defect::NotOnBallot(v) => format!("option {} is not on the ballot", py_repr(v)),
            Defect::NotOnBallotKey(k) => {
                format!("option {} is not on the ballot", py_str_repr(k))
            }
            Defect::Duplicate(f, k) => {
                format!("option {} appears twice in vote_data.{f}", py_str_repr(k))
            }
            Defect::Empty(f) => format!("vote_data.{f} is empty"),
            Defect::ScoreNotANumber(k) => {
                format!("the score of option {} must be a number", py_str_repr(k))
            }
            Defect::ScoreOutOfRange(k, s, r) => format!("the score of option {} ({s}) is outside {}..{}", py_str_repr(k), r.min, r.max),
            Defect::BadWeight(v) => format!("vote_data.weight must be a number between 0 and 1e9, got {}", py_repr(v)),
        }
    }
}

pub(crate) const SELECTED: &str = "selected_option";
pub(crate) const RANKING: &str = "ranking";
pub(crate) const APPROVED: &str = "approved";
pub(crate) const SCORES: &str = "scores";
pub(crate) const WEIGHT: &str = "weight";

/// `selected_option`: a key of `voting_options_map`. As §4.3's reference, an absent option reads
/// as `None` ("option None is not on the ballot").
pub(crate) fn selected<'a>(vote_data: &'a Value, options: &OptionLookup<'_>) -> Result<OptionIndex, Defect<'a>> {
    if !vote_data.is_object() {
        return Err(Defect::NotAnObject);
    }
    let choice = field(vote_data, SELECTED).unwrap_or(&NULL);
    choice.as_str().and_then(|k| options.index(k)).ok_or(Defect::NotOnBallot(choice))
}

/// `weight`: absent means 1; otherwise a number in `0 ..= 1e9`.
pub(crate) fn weight(vote_data: &Value) -> Result<f64, Defect<'_>> {
    match field(vote_data, WEIGHT) {
        None => Ok(1.0),
        Some(v) => match v.as_f64() {
            Some(w) if (0.0..=MAX_MAGNITUDE).contains(&w) => Ok(w),
            _ => Err(Defect::BadWeight(v)),
        },
    }
}

/// `ranking` or `approved`: an array of option keys, appended to `out` as indices. Duplicates
/// and emptiness are left to [`distinct`] (or the profile's `push`).
pub(crate) fn option_list<'a>(
    vote_data: &'a Value,
    name: &'static str,
    options: &OptionLookup<'_>,
    out: &mut Vec<OptionIndex>,
) -> Result<(), Defect<'a>> {
    if !vote_data.is_object() {
        return Err(Defect::NotAnObject);
    }
    let items = match field(vote_data, name) {
        None => return Err(Defect::Missing(name)),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(Defect::WrongType(name, "an array of option keys")),
    };
    for (i, item) in items.iter().enumerate() {
        let key = item.as_str().ok_or(Defect::NotAKey(name, i))?;
        out.push(options.index(key).ok_or(Defect::NotOnBallotKey(key))?);
    }
    Ok(())
}

/// Checks that `list` names each option once and, when `non_empty`, at least one.
pub(crate) fn distinct<'o>(
    list: &[OptionIndex],
    name: &'static str,
    non_empty: bool,
    options: &OptionLookup<'o>,
    seen: &mut SeenSet,
) -> Result<(), Defect<'o>> {
    if non_empty && list.is_empty() {
        return Err(Defect::Empty(name));
    }
    seen.reset();
    match list.iter().find(|&&o| !seen.insert(o as usize)) {
        Some(&o) => Err(Defect::Duplicate(name, options.key(o))),
        None => Ok(()),
    }
}

/// `scores`: an object of option key → number within `range`, appended to `out`.
pub(crate) fn scores<'a>(
    vote_data: &'a Value,
    options: &OptionLookup<'_>,
    range: ScoreRange,
    out: &mut Vec<(OptionIndex, f64)>,
) -> Result<(), Defect<'a>> {
    if !vote_data.is_object() {
        return Err(Defect::NotAnObject);
    }
    let entries = match field(vote_data, SCORES) {
        None => return Err(Defect::Missing(SCORES)),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(Defect::WrongType(SCORES, "an object of option key → number")),
    };
    for (key, v) in entries {
        let o = options.index(key).ok_or(Defect::NotOnBallotKey(key))?;
        let s = v.as_f64().ok_or(Defect::ScoreNotANumber(key))?;
        if !range.contains(s) {
            return Err(Defect::ScoreOutOfRange(key, s, range));
        }
        out.push((o, s));
    }
    Ok(())
}
