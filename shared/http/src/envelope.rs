//! Success answers in the envelope of Orcade and Xchange: `{"ok": true, "data": <data>}`. Stored
//! documents pass through as they are (never decoded and encoded again), lists are streamed as
//! the store reads them ([`crate::json_list`]), values are serialized straight into the body.

use agora_store::{DocStream, Json, StoreError};
use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

/// What a list answer starts with: the envelope around the array.
pub const LIST_PREFIX: &str = r#"{"ok":true,"data":["#;
/// What a list answer ends with.
pub const LIST_SUFFIX: &str = "]}";

/// `{"ok": true, "data": <data>}` with `status`, where `data` is JSON text already encoded.
pub fn ok_raw(status: StatusCode, data: &str) -> Response {
    let mut body = String::with_capacity(data.len() + 20);
    body.push_str(r#"{"ok":true,"data":"#);
    body.push_str(data);
    body.push('}');
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}

/// A stored document in the envelope, as stored.
pub fn ok_doc(status: StatusCode, doc: &Json) -> Response {
    ok_raw(status, doc.get())
}

/// `{"ok": true, "data": <value>}` with `status`, the value serialized straight into the body (a
/// job's roster of thousands of ids is not copied into a JSON tree first).
pub fn ok<T: serde::Serialize>(status: StatusCode, value: &T) -> Response {
    #[derive(serde::Serialize)]
    struct Enveloped<'a, T> {
        ok: bool,
        data: &'a T,
    }
    (status, axum::Json(Enveloped { ok: true, data: value })).into_response()
}

/// Documents in the envelope's array, as the store streams them ([`crate::json_list`]): a
/// failure within the first chunk is the caller's to answer, a later one breaks the body.
pub async fn ok_list(docs: DocStream) -> Result<Response, StoreError> {
    crate::json_list(LIST_PREFIX, docs, LIST_SUFFIX).await
}

/// Documents already read, in the envelope's array (the same bytes as [`ok_list`]).
pub async fn ok_docs(docs: Vec<Json>) -> Result<Response, StoreError> {
    ok_list(futures::stream::iter(docs.into_iter().map(Ok)).boxed()).await
}
