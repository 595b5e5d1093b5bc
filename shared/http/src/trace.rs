//! Every request as one unit of work: [`trace_requests`] gives it its trace id, runs the route
//! inside a `request` span carrying `trace_id`, method and path, and in the id's
//! [`scope`](agora_telemetry::trace::scope), so that what the route queues, and the hooks and
//! delegates it calls, carry it on; the answer says it in
//! [`HEADER`](agora_telemetry::trace::HEADER), and logs it with its status and time.
//!
//! The id is the caller's own when it sends a valid one in that header (an agent tying the
//! requests of one exchange task together, or a caller that traces its own work); else the front
//! door's ([`FrontDoorId`], as the Lambda runtime reads it from API Gateway's request id); else a
//! new one.

use agora_telemetry::trace;
use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The trace id the front door gave a request (a request extension): API Gateway's request id
/// on Lambda.
#[derive(Debug, Clone)]
pub struct FrontDoorId(pub String);

/// Middleware: the request in its trace (see the module docs).
pub async fn trace_requests(request: Request, next: Next) -> Response {
    let from_caller = request.headers().get(trace::HEADER).and_then(|v| v.to_str().ok()).and_then(trace::accept);
    let from_front_door = || request.extensions().get::<FrontDoorId>().and_then(|FrontDoorId(id)| trace::accept(id));
    let id = from_caller.or_else(from_front_door).map_or_else(trace::new_id, str::to_owned);
    let span = tracing::info_span!("request", trace_id = %id, method = %request.method(), path = %request.uri().path());
    let started = std::time::Instant::now();
    let answer = async {
        let response = next.run(request).await;
        tracing::info!(status = response.status().as_u16(), ms = started.elapsed().as_millis() as u64, "answered");
        response
    };
    let mut response = trace::scope(&id, answer.instrument(span)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(trace::HEADER, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    fn app() -> Router {
        Router::new().route("/t", get(|| async { trace::current().unwrap_or_default() })).layer(axum::middleware::from_fn(trace_requests))
    }

    async fn call(app: Router, request: Request) -> (String, String) {
        let response = app.oneshot(request).await.unwrap();
        let header = response.headers()[trace::HEADER].to_str().unwrap().to_owned();
        let body = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
        (header, String::from_utf8(body.to_vec()).unwrap())
    }

    fn request(caller: Option<&str>, front_door: Option<&str>) -> Request {
        let mut request = Request::get("/t");
        if let Some(id) = caller {
            request = request.header(trace::HEADER, id);
        }
        let mut request = request.body(axum::body::Body::empty()).unwrap();
        if let Some(id) = front_door {
            request.extensions_mut().insert(FrontDoorId(id.to_owned()));
        }
        request
    }

    #[tokio::test]
    async fn a_request_runs_in_a_new_trace_and_is_answered_with_its_id() {
        let (header, inside) = call(app(), request(None, None)).await;
        assert_eq!(header, inside);
        assert_eq!(header.len(), 32, "a new id: {header}");
        let (other, _) = call(app(), request(None, None)).await;
        assert_ne!(header, other);
    }

    #[tokio::test]
    async fn the_caller_s_id_then_the_front_door_s_is_the_trace_id() {
        let both = |id: &str| (id.to_owned(), id.to_owned());
        assert_eq!(call(app(), request(None, Some("Hq1xYgDxIAMEVbA="))).await, both("Hq1xYgDxIAMEVbA="));
        assert_eq!(call(app(), request(Some("agent-7:run-3"), Some("Hq1xYgDxIAMEVbA="))).await, both("agent-7:run-3"));
        // An id that cannot be one is not taken.
        assert_eq!(call(app(), request(Some("a b"), Some("Hq1xYgDxIAMEVbA="))).await, both("Hq1xYgDxIAMEVbA="));
    }
}
