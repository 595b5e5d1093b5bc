//! JSON helpers: option lookup, field access, Python-style `repr`, number output.

use crate::profile::{Exact, OptionIndex};
use serde_json::{Map, Number, Value};
use std::collections::HashMap;

/// Option keys of `voting_options_map`, in creation order, with their index.
#[derive(Debug, Clone)]
pub(crate) struct OptionLookup<'a> {
    keys: Vec<&'a str>,
    /// Only for many options; a linear scan is faster for a handful.
    map: Option<HashMap<&'a str, OptionIndex>>,
}

const LINEAR_SCAN_MAX: usize = 12;

impl<'a> OptionLookup<'a> {
    pub(crate) fn new(options: &'a Map<String, Value>) -> Self {
        let keys: Vec<&str> = options.keys().map(String::as_str).collect();
        let map = (keys.len() > LINEAR_SCAN_MAX).then(|| keys.iter().enumerate().map(|(i, k)| (*k, i as OptionIndex)).collect());
        Self { keys, map }
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn index(&self, key: &str) -> Option<OptionIndex> {
        match &self.map {
            Some(m) => m.get(key).copied(),
            None => self.keys.iter().position(|k| k.len() == key.len() && *k == key).map(|i| i as OptionIndex),
        }
    }

    pub(crate) fn key(&self, i: OptionIndex) -> &'a str {
        self.keys.get(i as usize).copied().unwrap_or("")
    }

    /// Option keys of `indices`, sorted (byte order, which is Python's `sorted` on `str`).
    pub(crate) fn sorted_keys(&self, indices: &[OptionIndex]) -> Vec<Value> {
        let mut keys: Vec<&str> = indices.iter().map(|&i| self.key(i)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|k| Value::String(k.to_owned())).collect()
    }

    /// `{key: value(i)}` over `indices`, in that order.
    pub(crate) fn object_of<T>(&self, indices: impl IntoIterator<Item = OptionIndex>, value: impl Fn(OptionIndex) -> T) -> Value
    where
        T: Into<Value>,
    {
        Value::Object(indices.into_iter().map(|i| (self.key(i).to_owned(), value(i).into())).collect())
    }

    /// `{key: value(i)}` over every option, in creation order.
    pub(crate) fn object_all<T>(&self, value: impl Fn(OptionIndex) -> T) -> Value
    where
        T: Into<Value>,
    {
        self.object_of(0..self.keys.len() as OptionIndex, value)
    }
}

/// `value[key]` for an object, else `None`. Scans small objects instead of hashing.
pub(crate) fn field<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    match value {
        Value::Object(m) if m.len() <= 8 => m.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v),
        Value::Object(m) => m.get(key),
        _ => None,
    }
}

/// An exact sum as a JSON number: an integer when it is whole, else a float.
pub(crate) fn exact_number(x: Exact) -> Value {
    match x.as_integer() {
        Some(i) => Value::from(i),
        None => Number::from_f64(x.to_f64()).map_or(Value::Null, Value::Number),
    }
}

/// A count as a JSON number: `u64` and `i64` counts as integers, [`Exact`] sums by
/// [`exact_number`] (so a weighted count that is whole is written exactly as the unweighted one).
pub(crate) trait ToJson: Copy {
    fn to_json(self) -> Value;
}

impl ToJson for u64 {
    fn to_json(self) -> Value {
        Value::from(self)
    }
}

impl ToJson for i64 {
    fn to_json(self) -> Value {
        Value::from(self)
    }
}

impl ToJson for Exact {
    fn to_json(self) -> Value {
        exact_number(self)
    }
}

/// Python's `repr()` of the JSON value as Python sees it (`None`, `True`, `'text'`, `[1, 2]`,
/// `{'a': 1}`), for messages that quote the reference implementations.
pub(crate) fn py_repr(value: &Value) -> String {
    let mut out = String::new();
    write_py_repr(&mut out, value);
    out
}

fn write_py_repr(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => out.push_str(&py_str_repr(s)),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_py_repr(out, v);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&py_str_repr(k));
                out.push_str(": ");
                write_py_repr(out, v);
            }
            out.push('}');
        }
    }
}

/// Python's `repr()` of a `str`: single quotes unless the text has a single quote and no double
/// quote; backslash, the quote, `\t \n \r` and control characters escaped.
pub(crate) fn py_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7f..=0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_are_integers_when_whole() {
        let e = |x: f64| Exact::from_f64(x).unwrap();
        assert_eq!(serde_json::to_string(&e(3.0).to_json()).unwrap(), "3");
        assert_eq!(serde_json::to_string(&3u64.to_json()).unwrap(), "3");
        assert_eq!(serde_json::to_string(&e(-2.0).to_json()).unwrap(), "-2");
        assert_eq!(serde_json::to_string(&e(2.5).to_json()).unwrap(), "2.5");
        // 0.1 is counted to 2^-32.
        assert_eq!(e(0.1).to_json(), json!(0.09999999986030161));
    }

    #[test]
    fn repr_like_python() {
        assert_eq!(py_repr(&json!("agent-9")), "'agent-9'");
        assert_eq!(py_repr(&json!("it's")), "\"it's\"");
        assert_eq!(py_repr(&json!("a'b\"c")), "'a\\'b\"c'");
        assert_eq!(py_repr(&json!("tab\there")), "'tab\\there'");
        assert_eq!(py_repr(&json!(null)), "None");
        assert_eq!(py_repr(&json!(true)), "True");
        assert_eq!(py_repr(&json!(3)), "3");
        assert_eq!(py_repr(&json!(["a", 1])), "['a', 1]");
        assert_eq!(py_repr(&json!({"a": null})), "{'a': None}");
    }

    #[test]
    fn lookup_small_and_large() {
        let small: Map<String, Value> = (0..3).map(|i| (format!("o{i}"), json!({}))).collect();
        let large: Map<String, Value> = (0..50).map(|i| (format!("o{i}"), json!({}))).collect();
        for m in [&small, &large] {
            let l = OptionLookup::new(m);
            assert_eq!(l.index("o2"), Some(2));
            assert_eq!(l.index("zz"), None);
            assert_eq!(l.key(1), "o1");
        }
    }
}
