//! The trace id of a unit of work. It is born at the front door (the caller's own [`HEADER`]
//! when it sends a valid one, else API Gateway's request id on AWS, a fresh id on the local
//! server), lives in a task-local while the work runs ([`scope`], read by [`current`]), and travels
//! with everything queued for that work: an SQS message attribute ([`ATTRIBUTE`]), a field of
//! the local queue's document, and the [`HEADER`] of every hook and delegate request. The
//! consumer of a queued message runs it in the scope of the id it carries, so that the log lines
//! of one vote in the HTTP function, on the queue and in the evaluator share one `trace_id`.
//!
//! The id is also a field of the span each unit of work opens (`trace_id`), which is what puts
//! it on every log line: [`scope`] only carries it to the places that send it on.

use std::future::Future;
use std::sync::Arc;

/// The HTTP header that carries a trace id: answered by every route, sent with every hook and
/// delegate request, taken from a request that brings a valid one ([`accept`]).
pub const HEADER: &str = "x-agora-trace-id";

/// The SQS message attribute (String) and the local queue document's field that carry the trace
/// id of queued work.
pub const ATTRIBUTE: &str = "agora_trace_id";

/// Longest trace id accepted from outside ([`accept`]).
pub const MAX_LEN: usize = 128;

tokio::task_local! {
    static TRACE_ID: Arc<str>;
}

/// A new trace id: 32 hex digits.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// `id`, when it can be a trace id: 1 to [`MAX_LEN`] letters, digits, `-`, `_`, `.`, `:`, `=`
/// (API Gateway's request ids, X-Ray's `1-5f84…-…`, uuids). Anything else (in a header or a message
/// attribute someone else wrote) is dropped, so that it cannot put arbitrary text into logs or requests.
pub fn accept(id: &str) -> Option<&str> {
    let ok = !id.is_empty()
        && id.len() <= MAX_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':' | b'='));
    ok.then_some(id)
}

/// The trace id of the work running now, if it runs in a [`scope`].
pub fn current() -> Option<String> {
    TRACE_ID.try_with(|id| id.to_string()).ok()
}

/// Runs `work` with `id` as its trace id ([`current`] inside it, and in everything it awaits on
/// the same task; a task it spawns starts without one).
pub async fn scope<F: Future>(id: &str, work: F) -> F::Output {
    TRACE_ID.scope(Arc::from(id), work).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_id_is_current_inside_its_scope_only() {
        assert_eq!(current(), None);
        let inside = scope("t-1", async {
            tokio::task::yield_now().await;
            let nested = scope("t-2", async { current() }).await;
            (current(), nested)
        })
        .await;
        assert_eq!(inside, (Some("t-1".to_owned()), Some("t-2".to_owned())));
        assert_eq!(current(), None);
    }

    #[test]
    fn only_plain_ids_are_accepted() {
        assert_eq!(accept("1-5f84c7a5-0a1b2c3d4e5f6a7b8c9d0e1f"), Some("1-5f84c7a5-0a1b2c3d4e5f6a7b8c9d0e1f"));
        assert_eq!(accept(&new_id()).map(str::len), Some(32));
        for bad in ["", "a b", "a\nb", "x\"y", &"a".repeat(MAX_LEN + 1)] {
            assert_eq!(accept(bad), None, "{bad:?}");
        }
    }
}
