//! What commands read besides their options: request bodies from JSON or YAML files, and JSON
//! given on the command line.

use crate::error::CliError;
use serde_json::Value;
use std::io::Read;
use std::path::Path;

/// A request body from `path`: YAML when it ends in `.yaml` or `.yml`, JSON otherwise; `-` reads
/// standard input, as JSON or else YAML. It must be an object.
pub fn body_from_file(path: &Path) -> Result<Value, CliError> {
    let (text, format) = if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(|e| CliError::Input(format!("cannot read standard input: {e}")))?;
        (text, Format::Either)
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| CliError::Input(format!("cannot read {}: {e}", path.display())))?;
        let yaml =
            path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        (text, if yaml { Format::Yaml } else { Format::Json })
    };
    let what = path.display().to_string();
    let value = match format {
        Format::Json => parse_json(&text, &what)?,
        Format::Yaml => parse_yaml(&text, &what)?,
        Format::Either => parse_json(&text, &what).or_else(|_| parse_yaml(&text, &what))?,
    };
    object(value, &what)
}

enum Format {
    Json,
    Yaml,
    Either,
}

fn parse_json(text: &str, what: &str) -> Result<Value, CliError> {
    serde_json::from_str(text).map_err(|e| CliError::Input(format!("{what} is not valid JSON: {e}")))
}

fn parse_yaml(text: &str, what: &str) -> Result<Value, CliError> {
    serde_norway::from_str(text).map_err(|e| CliError::Input(format!("{what} is not valid YAML: {e}")))
}

/// `value` if it is a JSON object.
fn object(value: Value, what: &str) -> Result<Value, CliError> {
    match value {
        Value::Object(_) => Ok(value),
        other => Err(CliError::Input(format!("{what} must hold an object, not {}", kind(&other)))),
    }
}

/// A JSON object given as an option (`--data`, `--filter`), named `option` in errors.
pub fn json_object_arg(text: &str, option: &str) -> Result<Value, CliError> {
    let value = parse_json(text, option)?;
    object(value, option)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_and_json_files_give_the_same_body() {
        let dir = std::env::temp_dir().join(format!("agora-cli-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let yaml = dir.join("task.yaml");
        std::fs::write(&yaml, "task_assignment_type: direct\ntask_data:\n  text: hi\n").unwrap();
        let json_file = dir.join("task.json");
        std::fs::write(&json_file, r#"{"task_assignment_type": "direct", "task_data": {"text": "hi"}}"#).unwrap();
        assert_eq!(body_from_file(&yaml).unwrap(), body_from_file(&json_file).unwrap());
        std::fs::write(&json_file, "[1]").unwrap();
        assert!(matches!(body_from_file(&json_file), Err(CliError::Input(m)) if m.contains("must hold an object, not an array")));
        assert!(matches!(body_from_file(&dir.join("missing.json")), Err(CliError::Input(m)) if m.contains("cannot read")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_arguments_must_be_objects() {
        assert_eq!(json_object_arg(r#"{"a": 1}"#, "--data").unwrap(), json!({"a": 1}));
        assert!(matches!(json_object_arg("1", "--data"), Err(CliError::Input(m)) if m == "--data must hold an object, not a number"));
        assert!(matches!(json_object_arg("{", "--filter"), Err(CliError::Input(m)) if m.starts_with("--filter is not valid JSON")));
    }
}
