//! What the services' `input_keys` tests share (issue 32, item 4): the keys no store may be
//! given (a NUL, which MongoDB cannot store; a leading `$`, which MongoDB reads as an operator),
//! the objects that hide them, and the refusal every service answers.

use serde_json::{json, Value};

/// The keys refused, each with how an error names it.
pub const BAD_KEYS: [(&str, &str); 3] = [("a\u{0}b", "a\\u0000b"), ("\u{0}", "\\u0000"), ("$where", "$where")];

/// Objects holding `key` at the top, nested and inside an array, each with the path (below the
/// object) an error names it by.
pub fn holding(key: &str, shown: &str) -> Vec<(Value, String)> {
    vec![
        (json!({"fine": 1, key: 1}), shown.to_owned()),
        (json!({"offer": {"ok.dotted": 1, key: {"x": 1}}}), format!("offer.{shown}")),
        (json!({"items": [1, {"n": [{key: true}]}]}), format!("items[1].n[0].{shown}")),
    ]
}

/// Asserts a 400 (in the envelope, for a service that has one) whose error names `path` and
/// says what is wrong with it.
#[track_caller]
pub fn refused_key(what: &str, (status, body): (u16, Value), path: &str) {
    assert_eq!(status, 400, "{what}: {body}");
    if let Some(ok) = body.get("ok") {
        assert_eq!(ok, &json!(false), "{what}: {body}");
    }
    let error = body["error"].as_str().unwrap_or_else(|| panic!("{what}: no error in {body}"));
    assert!(error.contains(path), "{what}: {error:?} does not name {path:?}");
    assert!(error.contains("NUL") || error.contains('$'), "{what}: {error:?} does not say why");
}
