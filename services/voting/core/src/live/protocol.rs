//! What a live-stream client sends and receives (§3.5), the same through every front door.

use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;
use std::time::Duration;

/// Sent (then the connection is closed) when the task does not exist or does not stream live.
pub const NOT_ENABLED: &str = "Live streaming not enabled for this task";

/// Sent (then the connection is closed) when the request is not what §3.5 asks for.
pub const BAD_REQUEST: &str = "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'";

/// The shortest and longest refresh intervals served, in seconds: 0.05 to 3600. A request
/// outside is refused with [`BAD_REQUEST`].
pub const REFRESH_RANGE: (f64, f64) = (0.05, 3600.0);

/// A client's request: `{"social_task_id": "...", "refresh_interval": seconds}`.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRequest {
    pub social_task_id: String,
    pub refresh_interval: Duration,
}

/// Reads a request. `None` when it is not JSON, lacks either field, or the interval is not a
/// number of seconds within [`REFRESH_RANGE`] (the client then gets [`BAD_REQUEST`]).
pub fn parse_request(text: &str) -> Option<LiveRequest> {
    #[derive(Deserialize)]
    struct Request {
        social_task_id: String,
        refresh_interval: f64,
    }
    let r: Request = serde_json::from_str(text).ok()?;
    let (min, max) = REFRESH_RANGE;
    let secs = Some(r.refresh_interval).filter(|s| (min..=max).contains(s))?;
    Some(LiveRequest { social_task_id: r.social_task_id, refresh_interval: Duration::from_secs_f64(secs) })
}

/// `{"error": message}`.
pub fn error_message(message: &str) -> String {
    json!({ "error": message }).to_string()
}

/// `{"type": "update", "data": <full task bundle>}`, the bundle passed through as stored.
pub fn update_message(bundle: &RawValue) -> String {
    format!(r#"{{"type":"update","data":{}}}"#, bundle.get())
}

/// One update for a task's streams, and whether it is the last (the task is complete).
#[derive(Debug, Clone)]
pub struct LiveUpdate {
    pub message: String,
    pub complete: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = parse_request(r#"{"social_task_id": "task_1", "refresh_interval": 5}"#).unwrap();
        assert_eq!(r, LiveRequest { social_task_id: "task_1".into(), refresh_interval: Duration::from_secs(5) });
        let r = parse_request(r#"{"social_task_id": "t", "refresh_interval": 0.05, "extra": 1}"#).unwrap();
        assert_eq!(r.refresh_interval, Duration::from_millis(50));
        let r = parse_request(r#"{"social_task_id": "t", "refresh_interval": 3600}"#).unwrap();
        assert_eq!(r.refresh_interval, Duration::from_secs(3600));
    }

    #[test]
    fn malformed_requests() {
        for bad in [
            "",
            "not json",
            "[]",
            r#"{"social_task_id": "t"}"#,
            r#"{"refresh_interval": 5}"#,
            r#"{"social_task_id": 7, "refresh_interval": 5}"#,
            r#"{"social_task_id": "t", "refresh_interval": "5"}"#,
            r#"{"social_task_id": "t", "refresh_interval": 0}"#,
            r#"{"social_task_id": "t", "refresh_interval": -1}"#,
            // Outside the range, huge and tiny: refused, never a panic.
            r#"{"social_task_id": "t", "refresh_interval": 0.049}"#,
            r#"{"social_task_id": "t", "refresh_interval": 3600.001}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e308}"#,
            r#"{"social_task_id": "t", "refresh_interval": -1e308}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e-308}"#,
            r#"{"social_task_id": "t", "refresh_interval": -0.0}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e400}"#,
            r#"{"social_task_id": "t", "refresh_interval": 18446744073709551616}"#,
        ] {
            assert_eq!(parse_request(bad), None, "{bad}");
        }
    }

    #[test]
    fn messages() {
        assert_eq!(error_message(NOT_ENABLED), r#"{"error":"Live streaming not enabled for this task"}"#);
        let bundle = RawValue::from_string(r#"{"task":{"status":"started"},"votes":[]}"#.into()).unwrap();
        let update: serde_json::Value = serde_json::from_str(&update_message(&bundle)).unwrap();
        assert_eq!(update, json!({"type": "update", "data": {"task": {"status": "started"}, "votes": []}}));
    }
}
