//! A service's errors as a client reads them: [`ServiceError`] is what each service's error type
//! says of itself (its status and wording, from the service's one table), [`ErrorShape`] the JSON
//! its errors are written in, and [`ApiError`] the two together on their way to the client.
//!
//! The table lives in the service's API crate, over its core's error type: Rust lets a crate
//! implement a trait of another crate for a type of a third only when a type of its own takes
//! part, so [`ServiceError`] is implemented for the service's [`Service`] marker (`impl
//! ServiceError<Api> for VotingError`). For the same reason a refusal of the platform's checks
//! ([`Refusal`], [`ParamError`]) becomes an [`ApiError`] by [`ApiError::refused`] and
//! [`ApiError::param`], not by `From`: a `From` of them beside the service error's could overlap.

use super::Shell;
use crate::body::Refusal;
use crate::ParamError;
use agora_support::InternalError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::fmt::Debug;
use std::marker::PhantomData;

/// A service, as its HTTP shell knows it: the marker type its API crate declares.
pub trait Service: 'static {
    /// Its paths and its refusals (written in its [`ErrorShape`]).
    const SHELL: &'static Shell;
}

/// What a service's error type says of itself over HTTP.
pub trait ServiceError<A: Service>: Debug + Send + 'static {
    /// The status of the service's table for this error.
    fn status(&self) -> StatusCode;
    /// What the client reads (an internal error reads only `Internal server error`).
    fn wording(&self) -> String;
    /// The cause of an internal error (logged, never shown); `None` for every refusal.
    fn internal(&self) -> Option<&InternalError>;
}

/// The JSON a service writes its errors in.
pub trait ErrorShape: Send + Sync + 'static {
    /// The body of an error reading `message`.
    fn body(message: &str) -> Value;
}

/// Voting's errors: `{"error": "<message>"}` (voting-1-3-5.md §3).
#[derive(Debug, Clone, Copy)]
pub struct Bare;

impl ErrorShape for Bare {
    fn body(message: &str) -> Value {
        json!({ "error": message })
    }
}

/// Orcade's and Xchange's errors, in their envelope: `{"ok": false, "error": "<message>"}`.
#[derive(Debug, Clone, Copy)]
pub struct Envelope;

impl ErrorShape for Envelope {
    fn body(message: &str) -> Value {
        json!({ "ok": false, "error": message })
    }
}

/// An error on its way to the client: a status and a message, written in the shape of the service
/// `A`, with the service's error `E` it came from (if any) for the log.
pub struct ApiError<E, A> {
    status: StatusCode,
    message: String,
    error: Option<E>,
    service: PhantomData<fn() -> A>,
}

impl<E: Debug, A> Debug for ApiError<E, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiError").field("status", &self.status).field("message", &self.message).field("error", &self.error).finish()
    }
}

impl<E: ServiceError<A>, A: Service> From<E> for ApiError<E, A> {
    fn from(e: E) -> Self {
        // A document the store refused is the input's fault (a request's own checks refuse
        // what a store would, by field, first): a 400 with the store's reason, never a 500.
        if let Some(reason) = e.internal().and_then(|cause| agora_store::StoreError::refused_document_in(cause)) {
            let message = format!("The store refused the document: {reason}");
            return ApiError { status: StatusCode::BAD_REQUEST, message, error: Some(e), service: PhantomData };
        }
        ApiError { status: e.status(), message: e.wording(), error: Some(e), service: PhantomData }
    }
}

impl<E, A> ApiError<E, A> {
    /// A 400 with `message`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, message)
    }

    /// An answer of `status` with `message`.
    pub fn with_status(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), error: None, service: PhantomData }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error reading `prefix` before its message, unless it is a 500 (whose wording
    /// says nothing more): voting's `Vote rejected: <why>`.
    pub fn prefixed(mut self, prefix: &str) -> Self {
        if self.status != StatusCode::INTERNAL_SERVER_ERROR {
            self.message.insert_str(0, prefix);
        }
        self
    }

    /// A refusal of the platform's request checks (a 401, a 403, a 413).
    pub fn refused((status, message): Refusal) -> Self {
        ApiError::with_status(status, message)
    }

    /// A paging parameter a query route refuses: `Invalid limit: must be ...`.
    pub fn param(e: ParamError) -> Self {
        ApiError::bad_request(format!("Invalid {}: {}", e.name, e.problem))
    }
}

impl<E: ServiceError<A>, A: Service> IntoResponse for ApiError<E, A> {
    fn into_response(self) -> Response {
        match self.error.as_ref().and_then(|e| e.internal()) {
            // The cause's chain is in its Display (`context: cause: ...`).
            Some(cause) if self.status == StatusCode::INTERNAL_SERVER_ERROR => tracing::error!(error = %cause, "internal error"),
            _ => tracing::debug!(status = self.status.as_u16(), error = %self.message, "request refused"),
        }
        (A::SHELL.refuse)((self.status, self.message))
    }
}

/// `refusal`'s status and message as an error in the shape `S`.
pub fn refusal<S: ErrorShape>((status, message): Refusal) -> Response {
    (status, axum::Json(S::body(&message))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::StoreError;

    enum Plain {}
    impl Service for Plain {
        const SHELL: &'static Shell = &Shell { paths: &[], prefixes: &[], refuse: refusal::<Bare> };
    }
    enum Enveloped {}
    impl Service for Enveloped {
        const SHELL: &'static Shell = &Shell { paths: &[], prefixes: &[], refuse: refusal::<Envelope> };
    }

    #[derive(Debug)]
    enum Failure {
        Missing,
        Internal(InternalError),
    }

    impl<A: Service> ServiceError<A> for Failure {
        fn status(&self) -> StatusCode {
            match self {
                Failure::Missing => StatusCode::NOT_FOUND,
                Failure::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            }
        }
        fn wording(&self) -> String {
            match self {
                Failure::Missing => "Not found".into(),
                Failure::Internal(_) => "Internal server error".into(),
            }
        }
        fn internal(&self) -> Option<&InternalError> {
            match self {
                Failure::Internal(cause) => Some(cause),
                Failure::Missing => None,
            }
        }
    }

    async fn body_of(response: Response) -> (u16, Value) {
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn each_shape_writes_the_status_and_wording_of_the_services_table() {
        let bare = ApiError::<Failure, Plain>::from(Failure::Missing).into_response();
        assert_eq!(body_of(bare).await, (404, json!({"error": "Not found"})));
        let enveloped = ApiError::<Failure, Enveloped>::from(Failure::Missing).into_response();
        assert_eq!(body_of(enveloped).await, (404, json!({"ok": false, "error": "Not found"})));
    }

    #[test]
    fn a_document_the_store_refused_is_a_400_with_its_reason_and_other_store_failures_a_500() {
        let refused = StoreError::InvalidDocument { collection: "c".into(), reason: "document exceeds 16 MB".into() };
        let answer = ApiError::<_, Enveloped>::from(Failure::Internal(InternalError::caused("storing", refused)));
        assert_eq!((answer.status().as_u16(), answer.message()), (400, "The store refused the document: document exceeds 16 MB"));
        let answer =
            ApiError::<_, Enveloped>::from(Failure::Internal(InternalError::caused("storing", StoreError::Backend("down".into()))));
        assert_eq!((answer.status().as_u16(), answer.message()), (500, "Internal server error"));
    }

    #[test]
    fn a_prefix_reads_before_a_refusal_but_not_before_an_internal_error() {
        let refused = ApiError::<Failure, Plain>::from(Failure::Missing).prefixed("Vote rejected: ");
        assert_eq!(refused.message(), "Vote rejected: Not found");
        let internal = ApiError::<Failure, Plain>::from(Failure::Internal(InternalError::new("queue down"))).prefixed("Vote rejected: ");
        assert_eq!(internal.message(), "Internal server error");
    }

    #[test]
    fn paging_and_platform_refusals_keep_their_words() {
        let param = ApiError::<Failure, Plain>::param(ParamError { name: "limit", problem: "must be a non-negative integer".into() });
        assert_eq!((param.status().as_u16(), param.message()), (400, "Invalid limit: must be a non-negative integer"));
        let refusal = ApiError::<Failure, Plain>::refused((StatusCode::PAYLOAD_TOO_LARGE, "too big".to_owned()));
        assert_eq!((refusal.status().as_u16(), refusal.message()), (413, "too big"));
    }
}
