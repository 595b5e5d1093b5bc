//! How answers are printed: `json` (the body as the service sent it) or `table` (readable
//! tables of the documents an answer holds).

use crate::cli::OutputFormat;
use crate::error::CliError;
use crate::http::Answer;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde_json::Value;
use std::io::{IsTerminal, Write};

/// Longest cell, in characters, before it is cut.
const CELL: usize = 80;

/// Where and how a command prints.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    pub format: OutputFormat,
}

impl Output {
    /// `format` if given, else table on a terminal and json otherwise.
    pub fn new(format: Option<OutputFormat>) -> Output {
        let format = format.unwrap_or(if std::io::stdout().is_terminal() { OutputFormat::Table } else { OutputFormat::Json });
        Output { format }
    }

    pub fn is_table(&self) -> bool {
        self.format == OutputFormat::Table
    }

    /// Prints `answer` as json (its body as sent), or with `table` otherwise.
    pub fn answer(&self, answer: &Answer, table: impl FnOnce() -> String) -> Result<(), CliError> {
        match self.format {
            OutputFormat::Json => line(answer.text.trim_end()),
            OutputFormat::Table => line(table().trim_end()),
        }
    }
}

/// Writes `text` and a newline to standard output.
pub fn line(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// A table of `docs` (JSON objects), one row each, with `columns` (the fields shown); an empty
/// list says so.
pub fn rows(docs: &[Value], columns: &[&str]) -> String {
    if docs.is_empty() {
        return "(none)".to_owned();
    }
    let mut table = table();
    table.set_header(columns.iter().copied());
    for doc in docs {
        table.add_row(columns.iter().map(|c| cell(field(doc, c))));
    }
    table.to_string()
}

/// A two-column table of `doc`'s fields, in order.
pub fn fields(doc: &Value) -> String {
    let mut table = table();
    table.set_header(["field", "value"]);
    match doc.as_object() {
        Some(object) => {
            for (name, value) in object {
                table.add_row([name.clone(), cell(Some(value))]);
            }
        }
        None => {
            table.add_row(["(value)".to_owned(), cell(Some(doc))]);
        }
    }
    table.to_string()
}

/// A two-column table of `(label, value)` pairs.
pub fn pairs(pairs: &[(&str, String)]) -> String {
    let mut table = table();
    for (label, value) in pairs {
        table.add_row([(*label).to_owned(), value.clone()]);
    }
    table.to_string()
}

fn table() -> Table {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table
}

/// The value at a dotted path of `doc`.
pub fn field<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(doc, |v, key| v.get(key))
}

/// A value as a cell: strings bare, others as compact JSON, cut to [`CELL`] characters.
pub fn cell(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
            items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", ")
        }
        Some(other) => other.to_string(),
    };
    match text.char_indices().nth(CELL) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cells_show_strings_bare_lists_joined_and_cut_long_values() {
        assert_eq!(cell(Some(&json!("a"))), "a");
        assert_eq!(cell(Some(&json!(["a", "b"]))), "a, b");
        assert_eq!(cell(Some(&json!({"x": 1}))), r#"{"x":1}"#);
        assert_eq!(cell(None), "");
        assert_eq!(cell(Some(&json!("y".repeat(100)))).chars().count(), CELL + 1);
    }

    #[test]
    fn rows_show_the_named_columns_and_dotted_paths() {
        let docs = [json!({"id": "j1", "meta": {"mode": "closed"}, "other": 1})];
        let text = rows(&docs, &["id", "meta.mode"]);
        assert!(text.contains("j1") && text.contains("closed") && text.contains("meta.mode"), "{text}");
        assert!(!text.contains("other"), "{text}");
        assert_eq!(rows(&[], &["id"]), "(none)");
    }
}
