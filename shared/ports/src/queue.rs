//! Work to do later, at least once: a body and a key go in (SQS on AWS, the local queue in
//! process), and a [`WorkHandler`] answers each delivery with a [`WorkOutcome`]. Both queues
//! apply the same rule to it: `Done` removes the work, `Retry` delivers it again later, up to
//! the queue's limit, after which it is dead-lettered.

use async_trait::async_trait;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("work {key} could not be queued: {reason}")]
pub struct QueueError {
    /// The key the work was sent with.
    pub key: String,
    pub reason: String,
}

/// Where work goes.
#[async_trait]
pub trait WorkQueue: Send + Sync + 'static {
    /// Queues `body`, to be delivered once `delay` has passed (rounded as the queue can; zero
    /// for now). `key` names the work: a FIFO queue groups and deduplicates by it, logs show it.
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError>;

    /// Queues each `(key, body)` of `items`, due now, as [`send`](WorkQueue::send) would one by
    /// one (same keys, same grouping and deduplication, in the order given), in as few writes
    /// as the queue can: SQS sends ten at a time, the local queue stores many documents per
    /// insert. `Ok` means every item is queued, once. An error names the items that were not
    /// queued; every other item was (re-send only the ones it names).
    ///
    /// The default sends one by one and stops at the first failure.
    async fn send_batch(&self, items: &[(String, String)]) -> Result<(), QueueError> {
        for (i, (key, body)) in items.iter().enumerate() {
            if let Err(e) = self.send(key, body, Duration::ZERO).await {
                return Err(QueueError { reason: not_queued_after(e.reason, i, items), ..e });
            }
        }
        Ok(())
    }
}

/// `reason`, saying that the item at `failed` and every one after it in `items` was not queued
/// and the ones before it were.
fn not_queued_after(reason: String, failed: usize, items: &[(String, String)]) -> String {
    let rest = items.len() - failed - 1;
    match rest {
        0 => format!("{reason} (item {} of {}; the ones before it were queued)", failed + 1, items.len()),
        _ => format!(
            "{reason} (item {} of {}; neither it nor the {rest} after it were queued, the ones before it were)",
            failed + 1,
            items.len()
        ),
    }
}

/// `items` cut into runs of consecutive items for batched sends: at most `max_items` items and
/// `max_bytes` of bodies each (a larger body alone).
pub fn chunks(items: &[(String, String)], max_items: usize, max_bytes: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, (_, body)) in items.iter().enumerate() {
        if i > start && (i - start == max_items || bytes + body.len() > max_bytes) {
            out.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += body.len();
    }
    if start < items.len() {
        out.push(start..items.len());
    }
    out
}

/// What became of one delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkOutcome {
    /// Done: finished, found done already, or failed in a way a retry cannot mend (logged).
    Done,
    /// Deliver it again later; the reason is for the log. Counts as a failed attempt: after the
    /// queue's limit the work is dead-lettered.
    Retry(String),
    /// Another worker holds this work under a lease (or it died holding it): deliver it again
    /// after `after`, not counted as a failed attempt, since the lease bounds the wait.
    Busy { reason: String, after: Duration },
}

/// Does the work of one delivery. The same handler serves the SQS consumer and the local queue.
#[async_trait]
pub trait WorkHandler: Send + Sync + 'static {
    async fn handle(&self, body: &str) -> WorkOutcome;
}

/// A queue nobody reads: what is sent to it is dropped. For a service's events when no other
/// service listens (Orcade's resolutions without Xchange).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoListener;

#[async_trait]
impl WorkQueue for NoListener {
    async fn send(&self, _key: &str, _body: &str, _delay: Duration) -> Result<(), QueueError> {
        Ok(())
    }

    async fn send_batch(&self, _items: &[(String, String)]) -> Result<(), QueueError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Takes every send but the one whose key is `refuse`.
    #[derive(Default)]
    struct OneByOne {
        refuse: &'static str,
        sent: Mutex<Vec<(String, String, Duration)>>,
    }

    #[async_trait]
    impl WorkQueue for OneByOne {
        async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
            if key == self.refuse {
                return Err(QueueError { key: key.to_owned(), reason: "refused".into() });
            }
            self.sent.lock().unwrap().push((key.to_owned(), body.to_owned(), delay));
            Ok(())
        }
    }

    fn items(keys: &[&str]) -> Vec<(String, String)> {
        keys.iter().map(|k| (k.to_string(), format!("body of {k}"))).collect()
    }

    #[tokio::test]
    async fn the_default_batch_sends_one_by_one_in_order() {
        let queue = OneByOne::default();
        queue.send_batch(&items(&["a", "b", "a"])).await.unwrap();
        let sent = queue.sent.lock().unwrap().clone();
        let expected: Vec<(String, String, Duration)> =
            ["a", "b", "a"].iter().map(|k| (k.to_string(), format!("body of {k}"), Duration::ZERO)).collect();
        assert_eq!(sent, expected);
        queue.send_batch(&[]).await.unwrap();
        assert_eq!(queue.sent.lock().unwrap().len(), 3);
    }

    #[tokio::test]
    async fn the_default_batch_stops_at_a_failure_and_says_what_was_not_queued() {
        let queue = OneByOne { refuse: "c", ..Default::default() };
        let e = queue.send_batch(&items(&["a", "b", "c", "d", "e"])).await.unwrap_err();
        assert_eq!(e.key, "c");
        assert!(e.reason.starts_with("refused") && e.reason.contains("item 3 of 5") && e.reason.contains("the 2 after it"), "{e}");
        assert_eq!(queue.sent.lock().unwrap().len(), 2);
    }
}
