//! Request fields, read at the edge: every invalid or missing field is reported by its dotted
//! path with what is wrong ("social_task.duration must be a positive integer, got 0"), all at once.
//!
//! Request limits: every id a request carries is at most [`MAX_ID_CHARS`] characters, every
//! tag or topic at most [`MAX_TAG_CHARS`], and a list of tags or topics holds at most
//! [`MAX_TAGS`] entries, so that no client stores an id or a tag of a megabyte. The checks are
//! [`id_within_limit`], [`tag_within_limit`] and [`tag_count_within_limit`]; the readers
//! [`Reader::id_string`], [`Reader::id_strings`] and [`Reader::tag_strings`], [`identifier`]
//! and [`document_id`] apply them.
//!
//! Keys: the free-form objects a request carries are stored as given, so every key inside them,
//! at any depth, must be one every store keeps alike: none holding a NUL (MongoDB cannot store
//! one) or starting with `$` (MongoDB reads it as an operator). [`storable_keys`] (and
//! [`Reader::storable`]) refuse the others by their full path, which a message shows with
//! control characters escaped ([`readable`]: `bid_data.a\u0000b`).

use crate::function_spec::FunctionSpec;
use crate::time::parse_datetime;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use std::fmt;

/// One problem with one field of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Dotted path of the field, e.g. `social_task.created_by_subject_id`.
    pub path: String,
    /// What is wrong, as a sentence fragment that follows the path ("is required").
    pub message: String,
}

impl fmt::Display for FieldError {
    /// `<path> <message>`, the path [`readable`] (a NUL in a key shows as `\u0000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{} {}", readable(&self.path), self.message)
        }
    }
}

/// `s` with each control character (NUL among them) written as a JSON escape (`\u0000`), so
/// that a field path or key holding one reads in a message and a log.
pub fn readable(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Every problem found in a request. Displayed as one message: the problems joined by `; `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ValidationErrors(pub Vec<FieldError>);

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl ValidationErrors {
    pub fn single(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self(vec![FieldError { path: path.into(), message: message.into() }])
    }
}

/// Reads the fields of one request object, collecting errors under a path prefix.
pub struct Reader<'a> {
    obj: &'a Map<String, Value>,
    prefix: &'static str,
    errors: &'a mut Vec<FieldError>,
}

impl<'a> Reader<'a> {
    /// Reads `obj`, whose fields are reported as `<prefix>.<key>` (just `<key>` for an empty prefix).
    pub fn new(obj: &'a Map<String, Value>, prefix: &'static str, errors: &'a mut Vec<FieldError>) -> Self {
        Self { obj, prefix, errors }
    }

    pub fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }

    pub fn fail(&mut self, key: &str, message: impl Into<String>) {
        let path = self.path(key);
        self.errors.push(FieldError { path, message: message.into() });
    }

    /// The value of a key; `null` counts as absent.
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key).filter(|v| !v.is_null())
    }

    pub fn required(&mut self, key: &str) -> Option<&'a Value> {
        let v = self.get(key);
        if v.is_none() {
            self.fail(key, "is required");
        }
        v
    }

    pub fn string(&mut self, key: &str) -> Option<String> {
        match self.required(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.fail(key, format!("must be a string, got {}", kind(other)));
                None
            }
        }
    }

    pub fn object(&mut self, key: &str) -> Option<Map<String, Value>> {
        match self.required(key)? {
            Value::Object(m) => Some(m.clone()),
            other => {
                self.fail(key, format!("must be an object, got {}", kind(other)));
                None
            }
        }
    }

    pub fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        match self.required(key)? {
            Value::Array(items) => {
                let out: Option<Vec<String>> = items.iter().map(|i| i.as_str().map(str::to_owned)).collect();
                if out.is_none() {
                    self.fail(key, "must be an array of strings");
                }
                out
            }
            other => {
                self.fail(key, format!("must be an array of strings, got {}", kind(other)));
                None
            }
        }
    }

    /// A required string that is an id: at most [`MAX_ID_CHARS`] characters (any characters,
    /// `""` too; [`identifier`] is stricter).
    pub fn id_string(&mut self, key: &str) -> Option<String> {
        let s = self.string(key)?;
        id_within_limit(self, key, &s).then_some(s)
    }

    /// A required array of strings that are ids, each at most [`MAX_ID_CHARS`] characters,
    /// reported by position (`org_ids[2]`).
    pub fn id_strings(&mut self, key: &str) -> Option<Vec<String>> {
        let ids = self.strings(key)?;
        let mut ok = true;
        for (i, id) in ids.iter().enumerate() {
            ok &= id_within_limit(self, &format!("{key}[{i}]"), id);
        }
        ok.then_some(ids)
    }

    /// A required array of tags or topics: at most [`MAX_TAGS`] of them, each at most
    /// [`MAX_TAG_CHARS`] characters (see [`tags_within_limits`]).
    pub fn tag_strings(&mut self, key: &str) -> Option<Vec<String>> {
        let tags = self.strings(key)?;
        tags_within_limits(self, key, &tags).then_some(tags)
    }

    pub fn datetime(&mut self, key: &str, required: bool) -> Option<DateTime<Utc>> {
        let v = if required { self.required(key)? } else { self.get(key)? };
        let parsed = parse_datetime(v);
        if parsed.is_none() {
            let shown = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            self.fail(key, format!("is not a datetime: Invalid datetime: {shown}"));
        }
        parsed
    }

    pub fn opt_string(&mut self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.fail(key, format!("must be a string, got {}", kind(other)));
                None
            }
        }
    }

    pub fn opt_bool(&mut self, key: &str) -> Option<bool> {
        match self.get(key)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.fail(key, format!("must be a boolean, got {}", kind(other)));
                None
            }
        }
    }

    pub fn opt_positive_int(&mut self, key: &str) -> Option<i64> {
        let v = self.get(key)?;
        match v.as_i64() {
            Some(n) if n >= 1 => Some(n),
            _ => {
                self.fail(key, format!("must be a positive integer, got {v}"));
                None
            }
        }
    }

    /// Whether every key inside `value`, the value of `key`, is storable ([`storable_keys`]);
    /// each one that is not is reported below `key`'s path.
    pub fn storable(&mut self, key: &str, value: &Value) -> bool {
        let path = self.path(key);
        storable_keys(&path, value, self.errors)
    }

    pub fn function_spec(&mut self, key: &str) -> Option<FunctionSpec> {
        let map = self.object(key)?;
        let spec = FunctionSpec(map);
        match spec.target() {
            Ok(_) => Some(spec),
            Err(e) => {
                self.fail(key, format!("is not a valid function spec: {e}"));
                None
            }
        }
    }
}

/// The longest id a request may carry: a client-chosen document id (Orcade's `bid_job_id`,
/// Xchange's `task_id` and `subject_id`, which travel in URL paths) and every id of something
/// else (subject, creator, vote and task ids, roster entries, option ids).
pub const MAX_ID_CHARS: usize = 128;

/// The longest tag or topic a request may carry (`bid_job_tags`, `topics`, ...).
pub const MAX_TAG_CHARS: usize = 128;

/// The most entries a request's list of tags or topics may hold.
pub const MAX_TAGS: usize = 64;

/// Whether `s` has at most `max` characters; if not, reports `path` ("must be at most 128
/// characters, got 300").
fn chars_within(r: &mut Reader<'_>, path: &str, s: &str, max: usize) -> bool {
    // At most `max` bytes is at most `max` characters: only a long string is counted.
    if s.len() <= max {
        return true;
    }
    let count = s.chars().count();
    if count <= max {
        return true;
    }
    r.fail(path, format!("must be at most {max} characters, got {count}"));
    false
}

/// Whether the id `id` has at most [`MAX_ID_CHARS`] characters; if not, reports `path`.
pub fn id_within_limit(r: &mut Reader<'_>, path: &str, id: &str) -> bool {
    chars_within(r, path, id, MAX_ID_CHARS)
}

/// Whether the tag or topic `tag` has at most [`MAX_TAG_CHARS`] characters; if not, reports
/// `path` (the tag's position, `bid_job_tags[3]`).
pub fn tag_within_limit(r: &mut Reader<'_>, path: &str, tag: &str) -> bool {
    chars_within(r, path, tag, MAX_TAG_CHARS)
}

/// Whether a list of `count` tags or topics holds at most [`MAX_TAGS`]; if not, reports `path`
/// ("must hold at most 64 entries, got 65").
pub fn tag_count_within_limit(r: &mut Reader<'_>, path: &str, count: usize) -> bool {
    if count <= MAX_TAGS {
        return true;
    }
    r.fail(path, format!("must hold at most {MAX_TAGS} entries, got {count}"));
    false
}

/// Whether the list of tags or topics `tags` at `path` is within both limits: its count, then
/// each entry's length (reported by position). Every problem is reported.
pub fn tags_within_limits(r: &mut Reader<'_>, path: &str, tags: &[String]) -> bool {
    let mut ok = tag_count_within_limit(r, path, tags.len());
    for (i, tag) in tags.iter().enumerate() {
        ok &= tag_within_limit(r, &format!("{path}[{i}]"), tag);
    }
    ok
}

/// A subject or creator id: a non-empty string without surrounding whitespace (which would make
/// it a different id from the one its owner uses), of at most [`MAX_ID_CHARS`] characters.
pub fn identifier(r: &mut Reader<'_>, path: &str, v: &Value) -> Option<String> {
    let Value::String(s) = v else {
        r.fail(path, format!("must be a string, got {}", kind(v)));
        return None;
    };
    if s.trim().is_empty() {
        r.fail(path, "must not be empty");
        None
    } else if !id_within_limit(r, path, s) {
        // Before the whitespace check, whose message shows the id.
        None
    } else if s.trim() != s {
        r.fail(path, format!("must not begin or end with whitespace, got {s:?}"));
        None
    } else {
        Some(s.clone())
    }
}

/// A client-chosen document id: an [`identifier`] (so at most [`MAX_ID_CHARS`] characters) with
/// no `/` and no control character, so that it addresses the document in a URL path, and none
/// of `route_words`, the fixed segments that stand where the id does in the service's paths
/// (`/tasks/query`): a document with such an id could never be read, changed or deleted.
pub fn document_id(r: &mut Reader<'_>, path: &str, v: &Value, route_words: &[&str]) -> Option<String> {
    let s = identifier(r, path, v)?;
    if s.chars().any(|c| c == '/' || c.is_control()) {
        r.fail(path, format!("must not hold '/' or control characters (it is used in URL paths), got {s:?}"));
        None
    } else if route_words.contains(&s.as_str()) {
        r.fail(path, format!("must not be {s:?}: the routes read it as a word of their own ({})", route_words.join(", ")));
        None
    } else {
        Some(s)
    }
}

/// The most unstorable keys [`storable_keys`] reports of one value; the rest are counted.
pub const MAX_KEY_ERRORS: usize = 10;

/// Why `key`, a key of a free-form object, cannot be stored the same way on every store, if it
/// cannot: a NUL character (MongoDB cannot hold one in a key: BSON writes keys as C strings) or
/// a leading `$` (MongoDB reads it as an operator: such a field cannot be queried or set by
/// path). Dots are fine: every store keeps `{"a.b": 1}` as given.
pub fn unstorable_key(key: &str) -> Option<&'static str> {
    if key.contains('\0') {
        Some("is not a storable key: it holds a NUL character, which MongoDB cannot store in a key")
    } else if key.starts_with('$') {
        Some("is not a storable key: it starts with '$', which MongoDB reads as an operator")
    } else {
        None
    }
}

/// Checks every key of every object inside `value` (which a request carries at `path`, and the
/// store keeps as given: `bid_data`, `task_data`, a PATCH's value, ...), at any depth and
/// through arrays, with [`unstorable_key`]: each bad key is reported at its full path
/// (`bid_data.offer.$price`, `task_data[2].a\u0000b` as displayed), at most
/// [`MAX_KEY_ERRORS`] of them and then how many more. Whether every key is storable.
///
/// The same input is so refused the same way on every store, before anything is written: the
/// embedded store and DynamoDB could keep such keys, MongoDB could not (or not as data).
pub fn storable_keys(path: &str, value: &Value, errors: &mut Vec<FieldError>) -> bool {
    let mut found = 0usize;
    let mut trail = Vec::new();
    walk_keys(value, &mut trail, &mut |trail, message| {
        found += 1;
        if found <= MAX_KEY_ERRORS {
            errors.push(FieldError { path: joined(path, trail), message: message.to_owned() });
        }
    });
    if found > MAX_KEY_ERRORS {
        errors.push(FieldError {
            path: path.to_owned(),
            message: format!("holds {} more keys that are not storable (a NUL character, or a leading '$')", found - MAX_KEY_ERRORS),
        });
    }
    found == 0
}

/// A step of a path inside a value: an object's key or an array's position.
enum Step<'v> {
    Key(&'v str),
    Index(usize),
}

/// Calls `bad` with the trail to each unstorable key inside `value` (the key last) and why.
fn walk_keys<'v>(value: &'v Value, trail: &mut Vec<Step<'v>>, bad: &mut dyn FnMut(&[Step<'v>], &'static str)) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                trail.push(Step::Key(key));
                if let Some(why) = unstorable_key(key) {
                    bad(trail, why);
                }
                walk_keys(inner, trail, bad);
                trail.pop();
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                trail.push(Step::Index(i));
                walk_keys(inner, trail, bad);
                trail.pop();
            }
        }
        _ => {}
    }
}

/// `path` followed by `trail`: `.key` for a key (no dot first when `path` is empty), `[i]` for
/// a position.
fn joined(path: &str, trail: &[Step<'_>]) -> String {
    let mut out = path.to_owned();
    for step in trail {
        match step {
            Step::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A JSON value's truthiness as Python reads it: not `null`, `false`, `0`, `""`, `[]` or `{}`.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// How a value's type reads in an error message: `a string`, `an object`, ...
pub fn kind(v: &Value) -> &'static str {
    match v {
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

    /// Runs `check` on a reader of `{}` prefixed `section`: its result and the errors as text.
    fn run<T>(check: impl FnOnce(&mut Reader<'_>) -> T) -> (T, Vec<String>) {
        let obj = Map::new();
        let mut errors = Vec::new();
        let out = check(&mut Reader::new(&obj, "section", &mut errors));
        (out, errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn ids_are_at_most_128_characters_counted_as_characters() {
        assert_eq!((MAX_ID_CHARS, MAX_TAG_CHARS, MAX_TAGS), (128, 128, 64));
        assert_eq!(run(|r| id_within_limit(r, "id", &"x".repeat(128))), (true, vec![]));
        // 128 characters of 2 bytes each: 256 bytes, still within the limit.
        assert_eq!(run(|r| id_within_limit(r, "id", &"é".repeat(128))), (true, vec![]));
        assert_eq!(
            run(|r| id_within_limit(r, "id", &"é".repeat(129))),
            (false, vec!["section.id must be at most 128 characters, got 129".to_owned()])
        );
        let id = json!("x".repeat(129));
        assert_eq!(
            run(|r| identifier(r, "creator", &id)),
            (None, vec!["section.creator must be at most 128 characters, got 129".to_owned()])
        );
        assert_eq!(run(|r| identifier(r, "creator", &json!("x".repeat(128)))).0.map(|s| s.len()), Some(128));
        // Too long is said before the surrounding whitespace, whose message would show the id.
        let padded = json!(format!(" {}", "x".repeat(200)));
        assert_eq!(run(|r| identifier(r, "creator", &padded)).1, ["section.creator must be at most 128 characters, got 201"]);
        assert_eq!(run(|r| document_id(r, "id", &id, &[])).1, ["section.id must be at most 128 characters, got 129"]);
        assert_eq!(run(|r| document_id(r, "id", &json!("x".repeat(128)), &[])).1, Vec::<String>::new());
        assert_eq!(
            run(|r| document_id(r, "id", &json!("query"), &["query", "by-tags"])).1,
            ["section.id must not be \"query\": the routes read it as a word of their own (query, by-tags)"]
        );
        assert_eq!(run(|r| document_id(r, "id", &json!("queries"), &["query"])).1, Vec::<String>::new());
    }

    #[test]
    fn keys_with_a_nul_or_a_leading_dollar_are_refused_at_any_depth_by_their_path() {
        let check = |path: &str, v: Value| {
            let mut errors = Vec::new();
            let ok = storable_keys(path, &v, &mut errors);
            (ok, errors.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        let fine = json!({"a.b": 1, "x$": [{"€": {"": null}}], "text": "$not a key \u{0}", "n": [1, "$x"]});
        assert_eq!(check("bid_data", fine), (true, vec![]));
        assert_eq!(check("task_data", json!("$x")), (true, vec![]));
        let (ok, errors) =
            check("bid_data", json!({"a\u{0}b": 1, "offer": {"$price": 3, "ok": [0, {"deep": {"$in": [1]}}]}, "$": {"\u{0}": 2}}));
        assert!(!ok);
        assert_eq!(
            errors,
            [
                "bid_data.a\\u0000b is not a storable key: it holds a NUL character, which MongoDB cannot store in a key",
                "bid_data.offer.$price is not a storable key: it starts with '$', which MongoDB reads as an operator",
                "bid_data.offer.ok[1].deep.$in is not a storable key: it starts with '$', which MongoDB reads as an operator",
                "bid_data.$ is not a storable key: it starts with '$', which MongoDB reads as an operator",
                "bid_data.$.\\u0000 is not a storable key: it holds a NUL character, which MongoDB cannot store in a key",
            ]
        );
        // At the top of a body (no path), and inside arrays.
        assert_eq!(
            check("", json!({"$set": {}})).1,
            ["$set is not a storable key: it starts with '$', which MongoDB reads as an operator"]
        );
        assert_eq!(
            check("task_data", json!([{}, [{"$x": 1}]])).1[0],
            "task_data[1][0].$x is not a storable key: it starts with '$', which MongoDB reads as an operator"
        );
        // Many: the first ten, then a count.
        let many: Map<String, Value> = (0..25).map(|i| (format!("${i}"), json!(i))).collect();
        let (ok, errors) = check("m", Value::Object(many));
        assert!(!ok);
        assert_eq!(errors.len(), MAX_KEY_ERRORS + 1);
        assert_eq!(errors[MAX_KEY_ERRORS], "m holds 15 more keys that are not storable (a NUL character, or a leading '$')");
        // Through a reader: below the reader's prefix.
        let obj = json!({"vote_data": {"x": {"$y": 1}}});
        let mut errors = Vec::new();
        let mut r = Reader::new(obj.as_object().unwrap(), "", &mut errors);
        assert!(!r.storable("vote_data", &obj["vote_data"]));
        assert_eq!(errors[0].path, "vote_data.x.$y");
    }

    #[test]
    fn control_characters_in_paths_are_shown_escaped() {
        assert_eq!(readable("plain.path"), "plain.path");
        assert_eq!(readable("a\u{0}b\tc\u{7f}"), "a\\u0000b\\u0009c\\u007f");
        let e = FieldError { path: "bid_data.a\u{0}b".into(), message: "is odd".into() };
        assert_eq!(e.to_string(), "bid_data.a\\u0000b is odd");
    }

    #[test]
    fn tags_are_at_most_128_characters_and_64_to_a_list() {
        assert_eq!(run(|r| tag_within_limit(r, "tags[3]", &"t".repeat(128))), (true, vec![]));
        assert_eq!(
            run(|r| tag_within_limit(r, "tags[3]", &"t".repeat(300))),
            (false, vec!["section.tags[3] must be at most 128 characters, got 300".to_owned()])
        );
        assert_eq!(run(|r| tag_count_within_limit(r, "tags", 64)), (true, vec![]));
        assert_eq!(
            run(|r| tag_count_within_limit(r, "tags", 65)),
            (false, vec!["section.tags must hold at most 64 entries, got 65".to_owned()])
        );
        let full: Vec<String> = (0..64).map(|i| format!("{i:0>128}")).collect();
        assert_eq!(run(|r| tags_within_limits(r, "tags", &full)), (true, vec![]));
        let mut over = full.clone();
        over.push("x".repeat(129));
        assert_eq!(
            run(|r| tags_within_limits(r, "tags", &over)).1,
            ["section.tags must hold at most 64 entries, got 65", "section.tags[64] must be at most 128 characters, got 129"]
        );
    }

    #[test]
    fn the_readers_apply_the_limits_by_position() {
        let obj = json!({
            "id": "x".repeat(129),
            "empty": "",
            "ids": ["a", "x".repeat(128), "x".repeat(130)],
            "tags": ["t".repeat(128), "t".repeat(129)],
            "many": vec!["t"; 65],
            "ok": vec!["t"; 64]
        });
        let obj = obj.as_object().unwrap();
        let mut errors = Vec::new();
        let mut r = Reader::new(obj, "s", &mut errors);
        assert_eq!(r.id_string("id"), None);
        assert_eq!(r.id_string("empty").as_deref(), Some(""), "the limit is the only check");
        assert_eq!(r.id_strings("ids"), None);
        assert_eq!(r.tag_strings("tags"), None);
        assert_eq!(r.tag_strings("many"), None);
        assert_eq!(r.tag_strings("ok").map(|t| t.len()), Some(64));
        let errors: Vec<String> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [
                "s.id must be at most 128 characters, got 129",
                "s.ids[2] must be at most 128 characters, got 130",
                "s.tags[1] must be at most 128 characters, got 129",
                "s.many must hold at most 64 entries, got 65",
            ]
        );
    }
}
