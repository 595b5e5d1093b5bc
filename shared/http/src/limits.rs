//! Limits on a request's head: a URI longer than [`MAX_URI_BYTES`] is a 414, more than
//! [`MAX_HEADERS`] headers or more than [`MAX_HEADER_BYTES`] of them a 431. The HTTP server's own
//! limits sit above these (hyper answers a head beyond 100 headers or its read buffer itself,
//! without a body), so every head the server can still read is answered by the service, in its
//! own JSON error shape (each service's middleware, [`check_request`], turns [`head_problem`] into
//! its error). API Gateway applies its own limits before a function sees the request.

use crate::access;
use crate::body::Refusal;
use axum::extract::Request as AxumRequest;
use axum::http::{Request, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// The longest request URI (path and query) taken.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most headers a request may carry.
pub const MAX_HEADERS: usize = 64;
/// The most bytes of header names and values a request may carry.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The status and message refusing a request whose head is over the limits; `None` for the
/// others.
pub fn head_problem<B>(request: &Request<B>) -> Option<(StatusCode, String)> {
    let uri = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if uri > MAX_URI_BYTES {
        return Some((StatusCode::URI_TOO_LONG, format!("Request URI is too long: {uri} bytes, the limit is {MAX_URI_BYTES}")));
    }
    let headers = request.headers();
    let bytes: usize = headers.iter().map(|(name, value)| name.as_str().len() + value.len()).sum();
    if headers.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        let message = format!(
            "Request headers are too large: {} headers of {bytes} bytes, the limits are {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes",
            headers.len()
        );
        return Some((StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, message));
    }
    None
}

/// The checks every route of a service runs before its handler, answered in the service's error
/// shape by `refuse`: the head's limits ([`head_problem`]), then the caller (a 401 with its
/// `WWW-Authenticate` challenge when the front door refused it, [`access::refused`]), then the
/// body's size (a 413 over the limit on every route, [`crate::body::buffer_body`]).
pub async fn check_request(request: AxumRequest, next: Next, refuse: impl Fn(Refusal) -> Response) -> Response {
    if let Some(problem) = head_problem(&request) {
        return refuse(problem);
    }
    if let Some(error) = access::refused(&request) {
        let error = error.clone();
        return access::with_challenge(refuse(access::unauthorized(&error)), &error);
    }
    match crate::body::buffer_body(request).await {
        Ok(request) => next.run(request).await,
        Err(refusal) => refuse(refusal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_over_the_limits_are_named() {
        let ok = Request::builder().uri("/x?a=1").body(()).unwrap();
        assert_eq!(head_problem(&ok), None);
        let long = Request::builder().uri(format!("/x?a={}", "a".repeat(MAX_URI_BYTES))).body(()).unwrap();
        assert_eq!(head_problem(&long).map(|p| p.0), Some(StatusCode::URI_TOO_LONG));
        let mut many = Request::builder().uri("/x");
        for i in 0..=MAX_HEADERS {
            many = many.header(format!("x-h{i}"), "v");
        }
        assert_eq!(head_problem(&many.body(()).unwrap()).map(|p| p.0), Some(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE));
        let big = Request::builder().uri("/x").header("x-big", "v".repeat(MAX_HEADER_BYTES)).body(()).unwrap();
        let (status, message) = head_problem(&big).unwrap();
        assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        assert!(message.contains("16384"), "{message}");
    }
}
