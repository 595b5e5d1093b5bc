//! The functions' input and output (§4): exactly these inputs, no voting-style `user_input`
//! wrapper. An output may be the object itself or `{"data": {...}}`, read as its `data`.
//!
//! Function mode's `parameters` (`task_metadata.task_assignment.parameters`) reach every
//! selector, as the builtins get theirs: a selector that runs elsewhere (an HTTP URL, a Lambda
//! ARN, a registry function) receives them as the input's `parameters`, beside `task` and
//! `subjects` (the key the platform's HTTP hooks carry their parameters under), when the task
//! gives some (`{}` included); a task without `parameters` sends §4's input unchanged.

use crate::subject::ExchangeSubject;
use crate::task::ExchangeTask;
use serde::Serialize;
use serde_json::{Map, Value};

/// Function mode's selector: `{"task": {...}, "subjects": [...every subject, by subject_id...]}`,
/// and `"parameters": {...}` when the task gives them.
#[derive(Debug, Serialize)]
pub struct SelectorInput<'a> {
    pub task: &'a ExchangeTask,
    pub subjects: &'a [ExchangeSubject],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<&'a Map<String, Value>>,
}

impl<'a> SelectorInput<'a> {
    /// The selector's input for `task`: its `parameters` with it, when it gives some.
    pub fn new(task: &'a ExchangeTask, subjects: &'a [ExchangeSubject]) -> Self {
        let parameters = task.assignment().get("parameters").and_then(Value::as_object);
        SelectorInput { task, subjects, parameters }
    }
}

/// Open mode's question to one subject's evaluation function: `{"task": {...}, "subject": {...}}`.
#[derive(Debug, Serialize)]
pub struct OpenInput<'a> {
    pub task: &'a ExchangeTask,
    pub subject: &'a ExchangeSubject,
}

/// The object an output holds: its `data` when it has an object there, else itself.
fn body(out: &Value) -> &Value {
    match out.get("data") {
        Some(data @ Value::Object(_)) => data,
        _ => out,
    }
}

/// What a selector answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorOutput {
    pub selected_subject_id: String,
}

impl SelectorOutput {
    /// Reads a selector's output: a truthy `selected_subject_id` string; `Err` says what the
    /// output holds instead.
    pub fn from_output(out: &Value) -> Result<SelectorOutput, String> {
        match body(out).get("selected_subject_id") {
            Some(Value::String(id)) if !id.trim().is_empty() => Ok(SelectorOutput { selected_subject_id: id.clone() }),
            Some(Value::String(_)) | Some(Value::Null) | None => Err("the selector named no subject (no selected_subject_id)".into()),
            Some(other) => Err(format!("the selector's selected_subject_id is not a subject id: {other}")),
        }
    }
}

/// What a subject's evaluation function answered in open mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenAnswer {
    pub accepted: bool,
}

impl OpenAnswer {
    /// `"accepted": true` or `"status": "accepted"` accepts; anything else declines.
    pub fn from_output(out: &Value) -> OpenAnswer {
        let b = body(out);
        let accepted = b.get("accepted") == Some(&Value::Bool(true)) || b.get("status").and_then(Value::as_str) == Some("accepted");
        OpenAnswer { accepted }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_selector_gets_the_task_s_parameters_when_it_gives_some() {
        let task = |assignment: Value| -> ExchangeTask {
            serde_json::from_value(json!({"task_id": "t", "task_assignment_type": "function", "task_data": {},
                "task_assignment_status": "pending", "task_metadata": {"task_assignment": assignment}}))
            .unwrap()
        };
        let keys = |t: &ExchangeTask| -> Vec<String> {
            let v = serde_json::to_value(SelectorInput::new(t, &[])).unwrap();
            v.as_object().unwrap().keys().cloned().collect()
        };
        let with = task(json!({"function_id": "http://x/", "parameters": {"require": ["gpu"]}}));
        assert_eq!(keys(&with), ["task", "subjects", "parameters"]);
        assert_eq!(serde_json::to_value(SelectorInput::new(&with, &[])).unwrap()["parameters"], json!({"require": ["gpu"]}));
        assert_eq!(keys(&task(json!({"function_id": "http://x/", "parameters": {}}))), ["task", "subjects", "parameters"]);
        assert_eq!(keys(&task(json!({"function_id": "http://x/"}))), ["task", "subjects"], "§4's input unchanged");
    }

    #[test]
    fn a_selector_must_name_a_subject() {
        assert_eq!(SelectorOutput::from_output(&json!({"selected_subject_id": "s1"})).unwrap().selected_subject_id, "s1");
        assert_eq!(SelectorOutput::from_output(&json!({"data": {"selected_subject_id": "s2"}})).unwrap().selected_subject_id, "s2");
        for out in [json!({}), json!({"selected_subject_id": ""}), json!({"selected_subject_id": null})] {
            assert!(SelectorOutput::from_output(&out).unwrap_err().contains("named no subject"), "{out}");
        }
        assert!(SelectorOutput::from_output(&json!({"selected_subject_id": 7})).unwrap_err().contains("7"));
    }

    #[test]
    fn open_answers_accept_two_ways() {
        for (out, accepted) in [
            (json!({"accepted": true}), true),
            (json!({"status": "accepted"}), true),
            (json!({"data": {"accepted": true}}), true),
            (json!({"accepted": "yes"}), false),
            (json!({"status": "declined"}), false),
            (json!({}), false),
        ] {
            assert_eq!(OpenAnswer::from_output(&out).accepted, accepted, "{out}");
        }
    }
}
