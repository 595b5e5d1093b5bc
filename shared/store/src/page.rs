//! Streaming finds ([`DocumentStore::find_stream`](crate::DocumentStore::find_stream)): which
//! matches to return ([`Page`]) and the stream they come in ([`DocStream`]), so that a query over
//! a million documents holds a batch of them at a time, never the whole answer.

use crate::{Json, StoreError};
use futures::stream::{self, BoxStream, Stream, StreamExt};

/// Which matches of a find to return: skip the first `skip`, then at most `limit` (None: all).
/// `Page::default()` is every match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Page {
    pub skip: u64,
    pub limit: Option<u64>,
}

/// The documents of a streaming find, in the order of [`DocumentStore::find`](crate::DocumentStore::find).
/// An `Err` item is the last: the stream ends after it. The stream owns what it reads with (it
/// outlives the call that made it and borrows nothing).
pub type DocStream = BoxStream<'static, Result<Json, StoreError>>;

impl Page {
    /// Every match.
    pub const ALL: Page = Page { skip: 0, limit: None };

    /// Skip `skip` matches, then at most `limit`.
    pub fn new(skip: u64, limit: Option<u64>) -> Page {
        Page { skip, limit }
    }

    /// Whether the page holds nothing whatever the matches (`limit` 0).
    pub fn is_empty(&self) -> bool {
        self.limit == Some(0)
    }

    /// How many matches a read must reach to fill the page (`skip + limit`), `None` when all.
    pub fn end(&self) -> Option<u64> {
        self.limit.map(|limit| self.skip.saturating_add(limit))
    }

    /// The page of `docs` (all the matches, in order), as a stream.
    pub fn of_vec(&self, docs: Vec<Json>) -> DocStream {
        let skip = usize::try_from(self.skip).unwrap_or(usize::MAX);
        let limit = self.limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        stream::iter(docs.into_iter().skip(skip).take(limit).map(Ok)).boxed()
    }

    /// The page of the stream of every match `all`: its first `skip` documents dropped, then at
    /// most `limit` passed on; an error is passed on (whether or not it falls in the skipped part)
    /// and ends the stream. `all` is read no further than the page needs.
    pub fn of_stream<S>(&self, all: S) -> DocStream
    where
        S: Stream<Item = Result<Json, StoreError>> + Send + 'static,
    {
        if self.is_empty() {
            return stream::empty().boxed();
        }
        struct State<S> {
            all: std::pin::Pin<Box<S>>,
            skip: u64,
            left: Option<u64>,
            done: bool,
        }
        let state = State { all: Box::pin(all), skip: self.skip, left: self.limit, done: false };
        stream::unfold(state, |mut state| async move {
            if state.done || state.left == Some(0) {
                return None;
            }
            loop {
                match state.all.next().await? {
                    Ok(_) if state.skip > 0 => state.skip -= 1,
                    Ok(doc) => {
                        state.left = state.left.map(|n| n - 1);
                        return Some((Ok(doc), state));
                    }
                    Err(e) => {
                        state.done = true;
                        return Some((Err(e), state));
                    }
                }
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::to_json;
    use futures::executor::block_on;
    use serde_json::json;

    fn docs(n: usize) -> Vec<Json> {
        (0..n).map(|i| to_json(&json!({ "i": i }))).collect()
    }

    fn numbers(stream: DocStream) -> Vec<Result<u64, StoreError>> {
        block_on(stream.map(|r| r.map(|d| serde_json::from_str::<serde_json::Value>(d.get()).unwrap()["i"].as_u64().unwrap())).collect())
    }

    #[test]
    fn pages_of_a_vec_and_of_a_stream_agree() {
        let pages = [
            Page::ALL,
            Page::new(0, Some(3)),
            Page::new(2, Some(3)),
            Page::new(4, None),
            Page::new(5, None),
            Page::new(9, Some(1)),
            Page::new(1, Some(0)),
        ];
        for page in pages {
            let from_vec = numbers(page.of_vec(docs(5)));
            let from_stream = numbers(page.of_stream(stream::iter(docs(5).into_iter().map(Ok))));
            assert_eq!(from_vec, from_stream, "{page:?}");
            let skip = page.skip.min(5) as usize;
            let end = page.end().map_or(5, |e| e.min(5) as usize).max(skip);
            assert_eq!(from_vec, (skip as u64..end as u64).map(Ok).collect::<Vec<_>>(), "{page:?}");
        }
        assert!(Page::new(3, Some(0)).is_empty() && !Page::ALL.is_empty());
        assert_eq!(
            (Page::new(3, Some(4)).end(), Page::new(3, None).end(), Page::new(u64::MAX, Some(2)).end()),
            (Some(7), None, Some(u64::MAX))
        );
    }

    #[test]
    fn an_error_ends_the_page_even_among_the_skipped() {
        let failing = || {
            let items: Vec<Result<Json, StoreError>> =
                vec![Ok(to_json(&json!({"i": 0}))), Err(StoreError::Backend("disk".into())), Ok(to_json(&json!({"i": 2})))];
            stream::iter(items)
        };
        assert_eq!(numbers(Page::new(0, Some(5)).of_stream(failing())), [Ok(0), Err(StoreError::Backend("disk".into()))]);
        assert_eq!(numbers(Page::new(2, None).of_stream(failing())), [Err(StoreError::Backend("disk".into()))]);
        assert_eq!(numbers(Page::new(0, Some(1)).of_stream(failing())), [Ok(0)], "the page is full before the error");
    }

    #[test]
    fn a_full_page_reads_no_further() {
        let read = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = {
            let read = read.clone();
            stream::iter(docs(100)).map(move |d| {
                read.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(d)
            })
        };
        assert_eq!(numbers(Page::new(10, Some(5)).of_stream(counted)).len(), 5);
        assert_eq!(read.load(std::sync::atomic::Ordering::SeqCst), 15);
    }
}
