//! A query's answer written as the store streams it: `prefix`, the documents joined by `,`, then
//! `suffix`, in chunks of about [`CHUNK_BYTES`], so that the process holds a chunk and the
//! store's current batch, never the whole answer.
//!
//! The first [`CHUNK_BYTES`] are read before anything is sent: a failure there (the store down,
//! a document that does not read) is the route's to answer, with its own status and JSON error.
//! An answer that fits in them is sent whole, with a `Content-Length`, exactly as a route that
//! built it in memory would. A failure after the status is sent cannot change it: it is logged,
//! and the body ends early, without the suffix and without the end of a complete body (HTTP/1.1's
//! last chunk, HTTP/2's end of stream), so that the client sees a broken response, never a short
//! list it could take for the whole answer. (A front door that collects the body before sending
//! it, as API Gateway's Lambda adapter does, fails the request instead.)

use agora_store::Json;
use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::stream::{Stream, StreamExt};
use std::pin::Pin;
use std::task::{Context, Poll};

/// About how many bytes each chunk of the body holds (and how much is read before answering).
pub const CHUNK_BYTES: usize = 64 * 1024;

/// A 200 `application/json` answer: `prefix`, the documents of `docs` joined by `,`, `suffix`.
/// Fails with the stream's error when it fails within the first [`CHUNK_BYTES`] (nothing is sent
/// then); a later failure ends the body early and is logged (see the module documentation).
pub async fn json_list<S, E>(prefix: impl Into<Bytes>, docs: S, suffix: impl Into<Bytes>) -> Result<Response, E>
where
    S: Stream<Item = Result<Json, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut list = List { docs: Box::pin(docs), chunk: Vec::new(), large: None, count: 0, suffix: Some(suffix.into()), ended: false };
    list.chunk.extend_from_slice(&prefix.into());
    while !list.ended && list.chunk.len() < CHUNK_BYTES && list.large.is_none() {
        match list.docs.next().await {
            Some(Ok(doc)) => list.push(doc),
            Some(Err(e)) => return Err(e),
            None => list.end(),
        }
    }
    let body = if list.ended { Body::from(std::mem::take(&mut list.chunk)) } else { Body::from_stream(list) };
    Ok((StatusCode::OK, [(CONTENT_TYPE, "application/json")], body).into_response())
}

/// The body being written.
struct List<E> {
    docs: Pin<Box<dyn Stream<Item = Result<Json, E>> + Send>>,
    /// What is written and not sent yet.
    chunk: Vec<u8>,
    /// A document of a chunk's size or more, sent after `chunk` as it is, uncopied.
    large: Option<Bytes>,
    /// Documents written so far.
    count: u64,
    /// Written once the documents end (`None` then).
    suffix: Option<Bytes>,
    /// The documents ended (or failed).
    ended: bool,
}

/// The error a body ends with when the documents fail midway.
#[derive(Debug, thiserror::Error)]
#[error("the answer failed after {0} documents; its body ends early")]
struct EndedEarly(u64);

impl<E> List<E> {
    fn push(&mut self, doc: Json) {
        if self.count > 0 {
            self.chunk.push(b',');
        }
        self.count += 1;
        if doc.get().len() >= CHUNK_BYTES {
            self.large = Some(Bytes::from(String::from(Box::<str>::from(doc))));
        } else {
            self.chunk.extend_from_slice(doc.get().as_bytes());
        }
    }

    fn end(&mut self) {
        self.ended = true;
        if let Some(suffix) = self.suffix.take() {
            self.chunk.extend_from_slice(&suffix);
        }
    }

    /// The chunk written so far, leaving an empty one with room for the next.
    fn take_chunk(&mut self) -> Bytes {
        Bytes::from(std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK_BYTES + 1024)))
    }
}

impl<E: std::error::Error + Send + Sync + 'static> Stream for List<E> {
    type Item = Result<Bytes, EndedEarly>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            // Send what is written when it makes a chunk, when a large document waits behind it,
            // or when nothing more is ready.
            if !this.chunk.is_empty() && (this.chunk.len() >= CHUNK_BYTES || this.large.is_some() || this.ended) {
                return Poll::Ready(Some(Ok(this.take_chunk())));
            }
            if let Some(large) = this.large.take() {
                return Poll::Ready(Some(Ok(large)));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match this.docs.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(doc))) => this.push(doc),
                Poll::Ready(Some(Err(e))) => {
                    this.ended = true;
                    this.suffix = None;
                    this.chunk.clear();
                    tracing::error!(error = %agora_support::error_chain(&e), documents = this.count, "a streamed answer failed midway; its body ends early");
                    return Poll::Ready(Some(Err(EndedEarly(this.count))));
                }
                Poll::Ready(None) => this.end(),
                Poll::Pending if this.chunk.is_empty() => return Poll::Pending,
                Poll::Pending => return Poll::Ready(Some(Ok(this.take_chunk()))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::{to_json, StoreError};
    use axum::body::HttpBody;
    use futures::stream;
    use serde_json::json;

    fn docs(n: usize, pad: usize) -> Vec<Json> {
        (0..n).map(|i| to_json(&json!({"i": i, "pad": "x".repeat(pad)}))).collect()
    }

    fn ok(docs: Vec<Json>) -> impl Stream<Item = Result<Json, StoreError>> + Send + 'static {
        stream::iter(docs.into_iter().map(Ok))
    }

    /// What `prefix`, the documents joined by `,` and `suffix` make.
    fn joined(prefix: &str, docs: &[Json], suffix: &str) -> String {
        format!("{prefix}{}{suffix}", docs.iter().map(|d| d.get()).collect::<Vec<_>>().join(","))
    }

    async fn body_of(response: Response) -> Result<String, axum::Error> {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await?;
        Ok(String::from_utf8(bytes.to_vec()).expect("UTF-8"))
    }

    #[tokio::test]
    async fn small_answers_are_whole_with_a_length() {
        for n in [0, 1, 3] {
            let all = docs(n, 10);
            let response = json_list("[", ok(all.clone()), "]").await.expect("answer");
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(response.headers()[CONTENT_TYPE], "application/json");
            let expected = joined("[", &all, "]");
            assert_eq!(HttpBody::size_hint(response.body()).exact(), Some(expected.len() as u64), "a length hyper sends");
            assert_eq!(body_of(response).await.expect("body"), expected);
        }
        let response = json_list(r#"{"ok": true, "data": ["#, ok(docs(2, 1)), "]}").await.expect("answer");
        let body: serde_json::Value = serde_json::from_str(&body_of(response).await.expect("body")).expect("JSON");
        assert_eq!(body["data"][1]["i"], 1);
    }

    #[tokio::test]
    async fn large_answers_stream_in_chunks() {
        // 5,000 documents of about 130 bytes, and large ones among them.
        let mut all = docs(5_000, 100);
        all.insert(10, to_json(&json!({"big": "y".repeat(3 * CHUNK_BYTES)})));
        all.push(to_json(&json!({"big": "z".repeat(CHUNK_BYTES)})));
        let response = json_list("[", ok(all.clone()), "]").await.expect("answer");
        assert_eq!(HttpBody::size_hint(response.body()).exact(), None, "streamed");
        let mut body = response.into_body().into_data_stream();
        let mut chunks = Vec::new();
        while let Some(chunk) = body.next().await {
            chunks.push(chunk.expect("chunk"));
        }
        assert!(chunks.len() > 8, "{} chunks", chunks.len());
        assert!(chunks.iter().all(|c| c.len() <= 4 * CHUNK_BYTES), "no chunk holds much more than a chunk or one document");
        let text: String = chunks.iter().map(|c| std::str::from_utf8(c).expect("UTF-8")).collect();
        assert_eq!(text, joined("[", &all, "]"));
    }

    #[tokio::test]
    async fn a_failure_before_a_chunk_is_the_routes_to_answer() {
        let failing = |good: usize| {
            let items: Vec<Result<Json, StoreError>> =
                docs(good, 10).into_iter().map(Ok).chain([Err(StoreError::Backend("disk on fire".into()))]).collect();
            stream::iter(items)
        };
        for good in [0, 1, 50] {
            let refused = json_list("[", failing(good), "]").await.expect_err("no answer");
            assert_eq!(refused, StoreError::Backend("disk on fire".into()));
        }
    }

    #[tokio::test]
    async fn a_failure_midway_breaks_the_body() {
        let items: Vec<Result<Json, StoreError>> = docs(3_000, 100)
            .into_iter()
            .map(Ok)
            .chain([Err(StoreError::Backend("disk on fire".into()))])
            .chain(docs(5, 1).into_iter().map(Ok))
            .collect();
        let response = json_list("[", stream::iter(items), "]").await.expect("the status is sent");
        assert_eq!(response.status(), StatusCode::OK);
        let mut body = response.into_body().into_data_stream();
        let (mut sent, mut failed) = (Vec::new(), None);
        while let Some(chunk) = body.next().await {
            match chunk {
                Ok(chunk) => sent.extend_from_slice(&chunk),
                Err(e) => failed = Some(e.to_string()),
            }
        }
        assert!(failed.expect("the body fails").contains("after 3000 documents"));
        assert!(!sent.ends_with(b"]"), "no suffix");
        assert!(sent.len() < joined("[", &docs(3_000, 100), "]").len());
    }

    #[tokio::test]
    async fn documents_ready_are_sent_without_waiting_for_more() {
        // A document, then a stream that never ends: the first chunk still comes.
        let (tx, rx) = futures::channel::mpsc::unbounded::<Result<Json, StoreError>>();
        for doc in docs(2_000, 100) {
            tx.unbounded_send(Ok(doc)).expect("send");
        }
        let response = json_list("[", rx, "]").await.expect("answer");
        let mut body = response.into_body().into_data_stream();
        let mut sent = 0;
        while sent < 2_000 * 100 {
            let chunk = tokio::time::timeout(std::time::Duration::from_secs(5), body.next()).await.expect("a chunk in time");
            sent += chunk.expect("more").expect("chunk").len();
        }
        drop(tx);
    }
}
