//! Issue 25: the public upstream clients of Orcade and Xchange (`clients.md`), each replayed
//! over this server's HTTP API exactly as it calls it (same paths, same bodies, keys sent only
//! when the client sends them) and checked on what it reads: the envelope
//! `{"ok": true, "data": ...}`, the fields it reads, and datetimes that Python's
//! `datetime.fromisoformat` parses. Also the upstream delegate system, played by a real server
//! whose queues cross the replies of calls that share a `session_id`.
//!
//! | Module | Client |
//! |---|---|
//! | `orcade_sdk` | the bidding SDK, `OpenarcadeClient` |
//! | `bidding_client` | the agents' `BiddingClient` and `BidTaskPoller` |
//! | `xchange_sdk` | the exchange SDK, `XchangeClient` |
//! | `delegate` | Orcade and Xchange calling the upstream delegate system |

mod bidding_client;
mod delegate;
mod orcade_sdk;
mod xchange_sdk;

use agora_e2e::fromisoformat::fromisoformat;
use agora_e2e::Server;
use reqwest::Method;
use serde_json::{json, Value};

/// How every client reads a success: a JSON object `{"ok": true, "data": ...}` with the status
/// `want`; returns `data`.
pub fn read_ok(call: &str, (status, body): (u16, Value), want: u16) -> Value {
    assert_eq!(status, want, "{call}: {body}");
    assert!(body.is_object(), "{call}: the body is not a JSON object: {body}");
    assert_eq!(body["ok"], json!(true), "{call}: {body}");
    assert!(body.get("data").is_some(), "{call}: no data: {body}");
    body["data"].clone()
}

/// How every client reads a refusal: the status `want` and `{"ok": false, "error": "..."}`;
/// returns the message.
pub fn read_error(call: &str, (status, body): (u16, Value), want: u16) -> String {
    assert_eq!(status, want, "{call}: {body}");
    assert_eq!(body["ok"], json!(false), "{call}: {body}");
    body["error"].as_str().unwrap_or_else(|| panic!("{call}: an error message: {body}")).to_owned()
}

/// A datetime a client reads with `datetime.fromisoformat`.
#[track_caller]
pub fn assert_py_datetime(what: &str, value: &Value) {
    let text = value.as_str().unwrap_or_else(|| panic!("{what} is not a string: {value}"));
    if let Err(e) = fromisoformat(text) {
        panic!("{what}: Python's datetime.fromisoformat refuses it: {e}");
    }
}

/// A datetime a client reads with `fromisoformat` when it is not `null`.
#[track_caller]
pub fn assert_py_datetime_or_null(what: &str, value: &Value) {
    if !value.is_null() {
        assert_py_datetime(what, value);
    }
}

/// Sends one PATCH as the SDKs do (the caller's dict as the body, unchanged).
pub async fn patch(server: &Server, path: &str, body: &Value) -> (u16, Value) {
    server.send(Method::PATCH, path, Some(body)).await
}

/// Item 6: a PATCH body is a raw `$set`. `body` (unknown fields, dotted paths) is accepted at
/// `path` and stored: the answer and a fresh GET both show each value at its path.
pub async fn assert_raw_set_stored(server: &Server, path: &str, body: &Value) -> Value {
    let answer = read_ok(&format!("PATCH {path} {body}"), patch(server, path, body).await, 200);
    let stored = read_ok(&format!("GET {path}"), server.get(path).await, 200);
    for (key, value) in body.as_object().expect("a PATCH body is an object") {
        let pointer = format!("/{}", key.replace('.', "/"));
        assert_eq!(answer.pointer(&pointer), Some(value), "PATCH {path}: {key} in the answer {answer}");
        assert_eq!(stored.pointer(&pointer), Some(value), "PATCH {path}: {key} stored: {stored}");
    }
    stored
}

/// Item 6: each body is refused at `path` with 400 naming its field, and nothing of it stored.
pub async fn assert_patch_refused(server: &Server, path: &str, refused: &[(Value, String)]) {
    let before = read_ok(&format!("GET {path}"), server.get(path).await, 200);
    for (body, field) in refused {
        let error = read_error(&format!("PATCH {path} {body}"), patch(server, path, body).await, 400);
        assert!(error.contains(field.as_str()), "PATCH {path} {body}: the error names {field:?}: {error:?}");
        let after = read_ok(&format!("GET {path}"), server.get(path).await, 200);
        assert_eq!(after, before, "PATCH {path} {body} was refused, yet the document changed");
    }
}

/// Item 6: what every raw `$set` refuses on an entity whose id field is `id_field`: the id, `_id`,
/// paths starting with `$` or with an empty segment; and one refused key refuses the whole body
/// (`note` would be stored alone).
pub fn raw_set_refusals(id_field: &str) -> Vec<(Value, String)> {
    let mut refused: Vec<(Value, String)> = vec![
        (json!({id_field: "another-id"}), id_field.to_owned()),
        (json!({"_id": "another-id"}), "_id".to_owned()),
        (json!({"$set": {"note": 1}}), "$set".to_owned()),
        (json!({"$note.deep": 1}), "$note.deep".to_owned()),
        (json!({"note..deep": 1}), "note..deep".to_owned()),
        (json!({".note": 1}), ".note".to_owned()),
        (json!({"note.": 1}), "note.".to_owned()),
    ];
    refused.push((json!({"note": "kept if alone", id_field: "another-id"}), id_field.to_owned()));
    refused
}

/// The checker agrees with CPython 3.11's `datetime.fromisoformat` (each verdict below is what
/// Python 3.11.7 answered), quirks included. (It also agreed with Python on 130,000 generated
/// ISO-like strings when it was written.)
#[test]
fn the_datetime_checker_agrees_with_python() {
    let cases = [
        ("2026-09-09T10:00:00.000000+00:00", true),
        ("2026-09-09T10:15:32.481203", true),
        ("2026-09-09T10:15:32", true),
        ("2026-09-09", true),
        ("20260909", true),
        ("2026-09-09T", false),
        ("2026-09-09T10", true),
        ("2026-09-09T10:30", true),
        ("2026-09-09T1030", true),
        ("2026-09-09T10:30.5", true),
        ("2026-09-09T10.5", true),
        ("2026-09-09T103000", true),
        ("2026-09-09T10300012", true),
        ("2026-09-09T10:30:00Z", true),
        ("2026-09-09T10:30:00z", false),
        ("2026-09-09 10:30:00", true),
        ("2026-09-09\u{e9}10:30:00", true),
        ("2026-09-09\u{20ac}10:30:00", true),
        ("2026-09-09\u{1f600}10:30:00", true),
        ("2026-09-09\u{e9}", false),
        ("9999-12-31T0531\u{663}+05:30", false),
        ("2026-09-0910:30:00", false),
        ("2026-09-09T10:30:00+05", true),
        ("2026-09-09T10:30:00+0530", true),
        ("2026-09-09T10:30:00+05:30", true),
        ("2026-09-09T10:30:00+05:30:15.5", true),
        ("2026-09-09T10:30:00+24:00", false),
        ("2026-09-09T10:30:00-23:59:59.999999", true),
        ("2026-09-09T10:30:00+5", false),
        ("2026-09-09T10:30:00+", false),
        ("2026-09-09T10:30:00.1234567", true),
        ("2026-09-09T10:30:00.123456789+00:00", true),
        ("2026-09-09T10:30:00,5", true),
        ("2026-09-09T10:30:00.", false),
        ("2026-09-09T10:30:00.Z", true),
        ("2026-09-09T10:30:00:00", true),
        ("2026-09-09T10:30:60", false),
        ("2026-09-09T24:00:00", false),
        ("2026-02-29T00:00:00", false),
        ("2024-02-29T00:00:00", true),
        ("2026-13-01", false),
        ("2026-04-31", false),
        ("2026-W01", true),
        ("2026-W01-1", true),
        ("2026W011", true),
        ("2026W01", true),
        ("2026-W53-1", true),
        ("2025-W53-1", false),
        ("2026-W01-8", false),
        ("2026-W01-", false),
        ("2026-W01-1T10:00", true),
        ("0000-01-01", false),
        ("9999-12-31T23:59:59.999999", true),
        ("9999-W52-6", false),
        ("2026-09-09T10:30:00Z+00:00", false),
        ("2026-09-09T10:30:00 ", false),
        ("2026-09-09T10:3", false),
        ("2026-9-09", false),
        ("2026-0909", false),
        ("+2026-09-09", false),
        ("2026-09-09T10:30:00.123abc", false),
        ("2026-09-09T1030:00", false),
        ("2026-09-09T10:3000", false),
        ("2026-09-09T10:30:00+05:3", false),
        ("2026-09-09T10:30:00+05:60", true),
        ("2026-09-09T1", false),
        ("2026-09-09T10:", false),
        ("2026-09-09T1:30:00", false),
        ("2026-09-09T10:30:00.\u{663}", false),
        ("2026-09-09T10:30:00+00:00 ", false),
        ("2026-09-09T10:30:00.000000+00:00Z", false),
        ("2026", false),
        ("null", false),
        ("2026-09-09T10:30:00.000000+0000", true),
        ("2026-09-09T10:30:00-00:00", true),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(s, ok)| fromisoformat(s).is_ok() != *ok)
        .map(|(s, ok)| format!("{s:?}: Python {}, the checker {:?}", if *ok { "accepts" } else { "refuses" }, fromisoformat(s)))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
    let parsed = fromisoformat("2026-09-09T10:15:32.4812+05:30").expect("valid");
    assert_eq!((parsed.hour, parsed.minute, parsed.second, parsed.microsecond), (10, 15, 32, 481_200));
    assert_eq!(parsed.offset_us, Some(19_800_000_000));
    assert_eq!(fromisoformat("2026-09-09T10:15:32").expect("valid").offset_us, None);
    assert_eq!(fromisoformat("2026-W01-1").map(|d| (d.year, d.month, d.day)), Ok((2025, 12, 29)));
}
