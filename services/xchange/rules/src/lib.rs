//! Xchange's builtin selectors (xchange-1-3-5.md §4), run for a function-mode task whose
//! `function_id` is `builtin:<name>`: pure functions over every subject of the exchange, sorted
//! by `subject_id` (the order the selector's input gives them). No I/O, no panic on any input.
//!
//! | Builtin | Chooses | Output |
//! |---|---|---|
//! | `first-subject` | the first subject | `{"selected_subject_id", "reason"}` |
//! | `by-capability` | the first subject whose `subject_capabilities` has every key of `parameters.require` truthy | as above |
//! | `round-robin` | the subject after the one it chose last, wrapping around | as above |
//!
//! `round-robin` needs its last choice: the caller keeps it in the store (so that consecutive
//! tasks go to different subjects across processes) and hands it in.
//!
//! # Choices where the spec is silent
//!
//! * No subject qualifies (none at all, or none with the capabilities): the output has no
//!   `selected_subject_id` and a `reason`, which fails the task (§4: the selector must name a
//!   known subject).
//! * `require` must be an array of strings; absent means `[]` (every subject qualifies). A
//!   capability is truthy as JSON is in Python: not `null`, `false`, `0`, `""`, `[]` or `{}`.
//! * `round-robin` with a last choice that is no longer a subject takes the first subject after
//!   it in `subject_id` order.

use agora_xchange_schema::fields::truthy;
use agora_xchange_schema::ExchangeSubject;
use serde_json::{json, Map, Value};

/// The builtin selectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    FirstSubject,
    ByCapability,
    RoundRobin,
}

impl Selector {
    pub const ALL: [Selector; 3] = [Selector::FirstSubject, Selector::ByCapability, Selector::RoundRobin];

    /// The name after `builtin:`.
    pub fn name(self) -> &'static str {
        match self {
            Selector::FirstSubject => "first-subject",
            Selector::ByCapability => "by-capability",
            Selector::RoundRobin => "round-robin",
        }
    }

    pub fn find(name: &str) -> Option<Selector> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Chooses among `subjects` (sorted by `subject_id`) with `parameters` (the task's
    /// `task_assignment.parameters`); `last` is round-robin's previous choice. Err names a
    /// parameter that is not usable.
    pub fn select(self, subjects: &[ExchangeSubject], parameters: &Map<String, Value>, last: Option<&str>) -> Result<Value, String> {
        let chosen = match self {
            Selector::FirstSubject => subjects.first(),
            Selector::ByCapability => {
                let require = required_capabilities(parameters)?;
                subjects.iter().find(|s| require.iter().all(|key| s.subject_capabilities.get(*key).is_some_and(truthy)))
            }
            Selector::RoundRobin => match last {
                None => subjects.first(),
                Some(last) => subjects.iter().find(|s| s.subject_id.as_str() > last).or(subjects.first()),
            },
        };
        Ok(match chosen {
            Some(s) => json!({"selected_subject_id": s.subject_id, "reason": format!("{} chose {}", self.name(), s.subject_id)}),
            None if subjects.is_empty() => json!({"selected_subject_id": null, "reason": "the exchange has no subjects"}),
            None => json!({"selected_subject_id": null, "reason": format!("no subject has every required capability ({})", self.name())}),
        })
    }
}

fn required_capabilities(parameters: &Map<String, Value>) -> Result<Vec<&str>, String> {
    match parameters.get("require") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| i.as_str().ok_or_else(|| format!("parameters.require must be an array of strings, got {i} in it")))
            .collect(),
        Some(other) => Err(format!("parameters.require must be an array of capability names, got {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(id: &str, capabilities: Value) -> ExchangeSubject {
        ExchangeSubject {
            subject_id: id.into(),
            subject_capabilities: capabilities.as_object().cloned().unwrap_or_default(),
            ..Default::default()
        }
    }

    fn chosen(out: Result<Value, String>) -> Option<String> {
        out.expect("selects")["selected_subject_id"].as_str().map(str::to_owned)
    }

    #[test]
    fn each_builtin_chooses_as_section_4_says() {
        let subjects =
            [subject("a", json!({"ocr": false})), subject("b", json!({"ocr": true, "gpu": 1})), subject("c", json!({"ocr": "yes"}))];
        let none = Map::new();
        assert_eq!(chosen(Selector::FirstSubject.select(&subjects, &none, None)), Some("a".into()));
        let require = |keys: Value| json!({"require": keys}).as_object().cloned().unwrap();
        assert_eq!(chosen(Selector::ByCapability.select(&subjects, &require(json!(["ocr"])), None)), Some("b".into()));
        assert_eq!(chosen(Selector::ByCapability.select(&subjects, &require(json!(["ocr", "gpu"])), None)), Some("b".into()));
        assert_eq!(chosen(Selector::ByCapability.select(&subjects, &require(json!(["tpu"])), None)), None);
        assert_eq!(chosen(Selector::ByCapability.select(&subjects, &none, None)), Some("a".into()), "no requirement: the first");
        assert!(Selector::ByCapability.select(&subjects, &require(json!("ocr")), None).unwrap_err().contains("parameters.require"));
        let mut order = Vec::new();
        let mut last = None;
        for _ in 0..4 {
            let next = chosen(Selector::RoundRobin.select(&subjects, &none, last.as_deref()));
            order.push(next.clone().unwrap());
            last = next;
        }
        assert_eq!(order, ["a", "b", "c", "a"], "consecutive tasks go to different subjects, wrapping around");
        assert_eq!(chosen(Selector::RoundRobin.select(&subjects, &none, Some("bb"))), Some("c".into()), "after a subject that is gone");
        let out = Selector::FirstSubject.select(&[], &none, None).unwrap();
        assert_eq!(out["selected_subject_id"], Value::Null);
        assert!(out["reason"].as_str().unwrap().contains("no subjects"));
    }

    #[test]
    fn names_round_trip() {
        for s in Selector::ALL {
            assert_eq!(Selector::find(s.name()), Some(s));
        }
        assert_eq!(Selector::find("random"), None);
    }
}
