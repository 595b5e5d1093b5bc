//! The operator's routes of the local server, for its work queues' dead letters
//! ([`crate::dead_letters`]):
//!
//! - `GET /admin/dead-letters` (`?queue=<name>`, `?limit=&skip=` to page): `{"dead_letters":
//!   [...]}`, oldest first, each with its `work_id`, `queue`, `key`, `body`, `attempts`,
//!   `last_error`, `previous_error`, `first_try`, `last_try` and `agora_trace_id`;
//! - `POST /admin/dead-letters/redrive` with `{}` (every dead letter), `{"work_ids": [...]}`,
//!   either with `"queue"` (only that queue's): puts them back on their queues and answers
//!   `{"redriven": n, "work_ids": [...]}`; 404 naming the ids that are no dead letter (nothing is
//!   put back then), 400 naming a bad field, 409 for a dead letter of a queue this server does
//!   not run.
//!
//! With authentication on they are an operator's only (the admin scope, `--auth-admin-scope`):
//! 401 without a valid token, 403 for any other caller. Every error is `{"error": "..."}`.

use crate::dead_letters::{self, Selection};
use crate::error::{json_body, Body, LocalError};
use crate::queue::Queues;
use agora_http::access::Identity;
use agora_store::DocumentStore;
use axum::extract::{FromRequestParts, RawQuery, State};
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;

/// What the admin routes work on: the server's own database and its queues.
#[derive(Clone)]
struct Admin {
    store: Arc<dyn DocumentStore>,
    queues: Queues,
    /// One redrive at a time: two at once would put the same dead letters back twice.
    redriving: Arc<tokio::sync::Mutex<()>>,
}

/// The admin routes over `store` (the server's own database, [`crate::queue::WORK_DB`]) and
/// `queues` (every queue of the server).
pub fn router(store: Arc<dyn DocumentStore>, queues: Queues) -> Router {
    Router::new()
        .route("/admin/dead-letters", get(list_dead_letters))
        .route("/admin/dead-letters/redrive", post(redrive))
        .with_state(Admin { store, queues, redriving: Arc::default() })
}

/// A caller who may use the admin routes: an operator, or anyone when authentication is off.
struct Operator;

impl<S: Send + Sync> FromRequestParts<S> for Operator {
    type Rejection = LocalError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, LocalError> {
        match parts.extensions.get::<Identity>() {
            None => Ok(Operator),
            Some(Identity::Refused(error)) => Err(LocalError::unauthorized(error)),
            Some(Identity::Caller(caller)) if caller.admin => Ok(Operator),
            Some(Identity::Caller(caller)) => Err(agora_http::access::forbidden(format!(
                "the admin routes are for operators (the admin scope), and the caller ({:?}) is not one",
                caller.subject
            ))
            .into()),
        }
    }
}

/// The query parameter naming a queue.
const QUEUE: &str = "queue";

async fn list_dead_letters(_: Operator, State(admin): State<Admin>, RawQuery(query): RawQuery) -> Result<Response, LocalError> {
    let queue = queue_of_query(query.as_deref())?;
    let page =
        agora_http::page_of_query(query.as_deref()).map_err(|e| LocalError::bad_request(format!("Invalid {}: {}", e.name, e.problem)))?;
    let context = "The dead letters could not be read";
    let letters = dead_letters::list(admin.store.as_ref(), queue.as_deref(), page).await.map_err(|e| LocalError::store(context, &e))?;
    agora_http::json_list(r#"{"dead_letters":["#, letters, "]}").await.map_err(|e| LocalError::store(context, &e))
}

/// The `queue` of a listing's query string, if any; any parameter but it and the paging ones
/// is refused, naming it.
fn queue_of_query(query: Option<&str>) -> Result<Option<String>, LocalError> {
    let mut queue = None;
    for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        match name.as_ref() {
            QUEUE if queue.is_some() => return Err(LocalError::bad_request("Invalid queue: given more than once")),
            QUEUE if value.is_empty() => return Err(LocalError::bad_request("Invalid queue: must not be empty")),
            QUEUE => queue = Some(value.into_owned()),
            agora_http::LIMIT | agora_http::SKIP => {}
            other => {
                return Err(LocalError::bad_request(format!("Unknown query parameter {other:?}: the parameters are queue, limit and skip")))
            }
        }
    }
    Ok(queue)
}

async fn redrive(_: Operator, State(admin): State<Admin>, Body(body): Body) -> Result<Json<Value>, LocalError> {
    let selection = selection(&json_body(&body, true)?)?;
    if let Some(queue) = selection.queue.as_deref().filter(|q| admin.queues.get(q).is_none()) {
        let runs = admin.queues.names().join(", ");
        return Err(LocalError::bad_request(format!("Invalid queue: {queue:?} is not one of this server's queues ({runs})")));
    }
    let _turn = admin.redriving.lock().await;
    let work_ids = dead_letters::redrive(admin.store.as_ref(), &admin.queues, &selection).await?;
    Ok(Json(json!({"redriven": work_ids.len(), "work_ids": work_ids})))
}

/// A redrive request's body (`{}`, or none, for every dead letter): its fields checked, any
/// other refused, naming it.
fn selection(body: &Value) -> Result<Selection, LocalError> {
    let empty = serde_json::Map::new();
    let fields = match body {
        Value::Null => &empty,
        Value::Object(fields) => fields,
        _ => return Err(LocalError::bad_request("Request body must be a JSON object: {} or {\"work_ids\": [...]}, with \"queue\" or not")),
    };
    let mut selection = Selection::default();
    for (name, value) in fields {
        match (name.as_str(), value) {
            ("work_ids", Value::Array(ids)) => {
                let ids = ids.iter().map(|id| id.as_str().filter(|id| !id.is_empty()).map(str::to_owned)).collect::<Option<Vec<_>>>();
                selection.work_ids =
                    Some(ids.ok_or_else(|| LocalError::bad_request("Invalid work_ids: must be an array of non-empty strings"))?);
            }
            ("work_ids", _) => return Err(LocalError::bad_request("Invalid work_ids: must be an array of non-empty strings")),
            (QUEUE, Value::String(queue)) if !queue.is_empty() => selection.queue = Some(queue.clone()),
            (QUEUE, _) => return Err(LocalError::bad_request("Invalid queue: must be a non-empty string")),
            (other, _) => return Err(LocalError::bad_request(format!("Unknown field {other:?}: the fields are work_ids and queue"))),
        }
    }
    Ok(selection)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{self, DurableQueue, DEAD_LETTERS, MAX_ATTEMPTS, WORK, WORK_DB};
    use agora_auth::{AuthError, Caller};
    use agora_filter::Filter;
    use agora_ports::{WorkHandler, WorkOutcome, WorkQueue};
    use agora_store::memory::MemoryStore;
    use axum::http::{Method, Request, StatusCode};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;
    use tower::ServiceExt;

    /// A handler that fails every try until it is mended, then records what it was handed.
    #[derive(Default)]
    struct Flaky {
        mended: AtomicBool,
        handled: std::sync::Mutex<Vec<(String, Option<String>)>>,
    }

    #[async_trait::async_trait]
    impl WorkHandler for Flaky {
        async fn handle(&self, body: &str) -> WorkOutcome {
            if !self.mended.load(Ordering::SeqCst) {
                return WorkOutcome::Retry(format!("hook down for {body}"));
            }
            self.handled.lock().unwrap().push((body.to_owned(), agora_telemetry::trace::current()));
            WorkOutcome::Done
        }
    }

    struct Fixture {
        store: Arc<dyn DocumentStore>,
        queues: Queues,
        handlers: Vec<Arc<Flaky>>,
        app: Router,
    }

    /// Two queues, `alpha` and `beta`, each with a flaky worker.
    async fn fixture() -> Fixture {
        let store: Arc<dyn DocumentStore> = Arc::new(MemoryStore::new(WORK_DB).unwrap());
        let queues = Queues::default();
        let mut handlers = Vec::new();
        for name in ["alpha", "beta"] {
            let (queue, pending) = DurableQueue::open(name, store.clone()).await.unwrap();
            queues.add(queue);
            let handler = Arc::new(Flaky::default());
            tokio::spawn(queue::run_worker(handler.clone(), pending, Duration::from_millis(1)));
            handlers.push(handler);
        }
        let app = router(store.clone(), queues.clone());
        Fixture { store, queues, handlers, app }
    }

    impl Fixture {
        /// Sends work to `queue` in the trace `trace_id` and waits until it is dead-lettered.
        async fn dead(&self, queue: &str, key: &str, trace_id: &str) {
            let q = self.queues.get(queue).unwrap();
            agora_telemetry::trace::scope(trace_id, q.send(key, &format!("{queue}:{key}"), Duration::ZERO)).await.unwrap();
            self.wait_for(|letters| letters.iter().any(|l| l["key"] == key), "dead-lettered").await;
        }

        async fn letters(&self) -> Vec<Value> {
            self.store.find(DEAD_LETTERS, &Filter::all()).await.unwrap().iter().map(|d| serde_json::from_str(d.get()).unwrap()).collect()
        }

        async fn wait_for(&self, done: impl Fn(&[Value]) -> bool, what: &str) {
            for _ in 0..500 {
                if done(&self.letters().await) {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            panic!("not {what}: {:?}", self.letters().await);
        }

        async fn call(&self, method: Method, uri: &str, body: Option<&str>, identity: Option<Identity>) -> (StatusCode, Value) {
            let mut request = Request::builder().method(method).uri(uri);
            if body.is_some() {
                request = request.header("content-type", "application/json");
            }
            let mut request = request.body(axum::body::Body::from(body.unwrap_or_default().to_owned())).unwrap();
            if let Some(identity) = identity {
                request.extensions_mut().insert(identity);
            }
            let response = self.app.clone().oneshot(request).await.unwrap();
            let status = response.status();
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
            (status, serde_json::from_slice(&bytes).unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes))))
        }

        async fn get(&self, uri: &str) -> (StatusCode, Value) {
            self.call(Method::GET, uri, None, None).await
        }

        async fn post(&self, uri: &str, body: &str) -> (StatusCode, Value) {
            self.call(Method::POST, uri, Some(body), None).await
        }
    }

    #[tokio::test]
    async fn dead_letters_are_listed_with_their_tries_and_trace_and_redriven_to_their_queue() {
        let f = fixture().await;
        f.dead("alpha", "a1", "trace-a1").await;
        f.dead("alpha", "a2", "trace-a2").await;
        f.dead("beta", "b1", "trace-b1").await;

        let (status, body) = f.get("/admin/dead-letters").await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let letters = body["dead_letters"].as_array().unwrap();
        assert_eq!(letters.iter().map(|l| l["key"].as_str().unwrap()).collect::<Vec<_>>(), ["a1", "a2", "b1"], "oldest first");
        let a1 = &letters[0];
        let fields: Vec<&str> = a1.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            fields,
            ["work_id", "queue", "key", "body", "attempts", "last_error", "previous_error", "first_try", "last_try", "agora_trace_id"]
        );
        assert_eq!((&a1["queue"], &a1["body"], &a1["attempts"]), (&json!("alpha"), &json!("alpha:a1"), &json!(MAX_ATTEMPTS)));
        assert_eq!(a1["last_error"], "hook down for alpha:a1");
        assert_eq!(a1["agora_trace_id"], "trace-a1", "the trace of the work that sent it");
        let (first, last) = (a1["first_try"].as_str().unwrap(), a1["last_try"].as_str().unwrap());
        assert!(agora_schema::time::parse_datetime_str(first).is_some() && first < last, "{first} then {last}");
        assert!(f.store.find(WORK, &Filter::all()).await.unwrap().is_empty(), "no longer queued");

        let (_, beta) = f.get("/admin/dead-letters?queue=beta").await;
        assert_eq!(beta["dead_letters"].as_array().unwrap().len(), 1);
        let (_, page) = f.get("/admin/dead-letters?limit=1&skip=1").await;
        assert_eq!(page["dead_letters"][0]["key"], "a2");

        // Mended: one dead letter of alpha is put back on alpha, and done there, in its trace.
        for handler in &f.handlers {
            handler.mended.store(true, Ordering::SeqCst);
        }
        let a2 = letters[1]["work_id"].as_str().unwrap().to_owned();
        let (status, body) = f.post("/admin/dead-letters/redrive", &json!({"work_ids": [a2]}).to_string()).await;
        assert_eq!((status, &body), (StatusCode::OK, &json!({"redriven": 1, "work_ids": [a2]})));
        f.wait_for(|letters| letters.len() == 2, "redriven").await;
        for _ in 0..200 {
            if !f.handlers[0].handled.lock().unwrap().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(*f.handlers[0].handled.lock().unwrap(), [("alpha:a2".to_owned(), Some("trace-a2".to_owned()))]);
        assert!(f.handlers[1].handled.lock().unwrap().is_empty(), "not another queue's worker");

        // The rest of beta's, then everything left.
        let (status, body) = f.post("/admin/dead-letters/redrive", r#"{"queue": "beta"}"#).await;
        assert_eq!((status, body["redriven"].clone()), (StatusCode::OK, json!(1)));
        let (status, body) = f.post("/admin/dead-letters/redrive", "{}").await;
        assert_eq!((status, body["work_ids"].clone()), (StatusCode::OK, json!([letters[0]["work_id"]])));
        f.wait_for(|letters| letters.is_empty(), "all redriven").await;
        let (_, body) = f.post("/admin/dead-letters/redrive", "").await;
        assert_eq!(body, json!({"redriven": 0, "work_ids": []}), "an empty body is {{}}");
    }

    #[tokio::test]
    async fn a_work_that_dies_again_keeps_its_first_try_and_the_error_it_was_put_back_with() {
        let f = fixture().await;
        f.dead("alpha", "a1", "t").await;
        let before = f.letters().await.remove(0);
        let (status, _) = f.post("/admin/dead-letters/redrive", "{}").await;
        assert_eq!(status, StatusCode::OK);
        // Not mended: it dies again, as a fresh dead letter.
        f.wait_for(|letters| letters.len() == 1 && letters[0]["last_try"] != before["last_try"], "dead again").await;
        let after = f.letters().await.remove(0);
        assert_eq!(after["work_id"], before["work_id"]);
        assert_eq!(after["first_try"], before["first_try"]);
        assert_eq!(after["attempts"], json!(MAX_ATTEMPTS), "counted again from 0");
        assert_eq!(after["previous_error"], before["last_error"]);
        assert_eq!(after["last_error"], "hook down for alpha:a1");
    }

    #[tokio::test]
    async fn bad_requests_are_refused_in_json_naming_what_is_wrong_and_nothing_is_redriven() {
        let f = fixture().await;
        f.dead("alpha", "a1", "t").await;
        let cases: &[(&str, &str, StatusCode, &str)] = &[
            ("POST", r#"{"work_ids": ["nope", "gone"]}"#, StatusCode::NOT_FOUND, r#"No dead letter with work_id "nope", "gone""#),
            ("POST", r#"{"work_ids": "a1"}"#, StatusCode::BAD_REQUEST, "Invalid work_ids"),
            ("POST", r#"{"work_ids": [""]}"#, StatusCode::BAD_REQUEST, "Invalid work_ids"),
            ("POST", r#"{"queue": 3}"#, StatusCode::BAD_REQUEST, "Invalid queue"),
            (
                "POST",
                r#"{"queue": "gamma"}"#,
                StatusCode::BAD_REQUEST,
                r#"Invalid queue: "gamma" is not one of this server's queues (alpha, beta)"#,
            ),
            ("POST", r#"{"ids": []}"#, StatusCode::BAD_REQUEST, r#"Unknown field "ids""#),
            ("POST", "[]", StatusCode::BAD_REQUEST, "Request body must be a JSON object"),
            ("POST", "{", StatusCode::BAD_REQUEST, "Request body is not valid JSON"),
            ("GET", "/admin/dead-letters?queue=", StatusCode::BAD_REQUEST, "Invalid queue: must not be empty"),
            ("GET", "/admin/dead-letters?limit=-1", StatusCode::BAD_REQUEST, "Invalid limit: must be a non-negative integer"),
            ("GET", "/admin/dead-letters?queues=alpha", StatusCode::BAD_REQUEST, r#"Unknown query parameter "queues""#),
        ];
        for (method, input, status, message) in cases {
            let (got, body) = match *method {
                "POST" => f.post("/admin/dead-letters/redrive", input).await,
                _ => f.get(input).await,
            };
            assert_eq!(got, *status, "{input}: {body}");
            assert_eq!(body.as_object().unwrap().len(), 1, "only the error: {body}");
            assert!(body["error"].as_str().unwrap().contains(message), "{input}: {body}");
        }
        // The ids of alpha's dead letter asked for as beta's: unknown there.
        let id = f.letters().await[0]["work_id"].as_str().unwrap().to_owned();
        let (status, body) = f.post("/admin/dead-letters/redrive", &json!({"work_ids": [id], "queue": "beta"}).to_string()).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
        assert!(body["error"].as_str().unwrap().contains(r#"of queue "beta""#), "{body}");
        // A dead letter of a queue this server does not run.
        let orphan =
            json!({"work_id": "w-old", "queue": "retired", "key": "k", "body": "b", "not_before": "2026-10-22T10:00:00", "attempts": 3});
        f.store.insert(vec![(DEAD_LETTERS, agora_store::to_json(&orphan))]).await.unwrap();
        let (status, body) = f.post("/admin/dead-letters/redrive", "{}").await;
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert!(body["error"].as_str().unwrap().contains(r#"queue "retired", which this server does not run"#), "{body}");
        assert_eq!(f.letters().await.len(), 2, "nothing was put back");
    }

    #[tokio::test]
    async fn with_authentication_on_only_an_operator_may_use_them() {
        let f = fixture().await;
        let agent = Identity::Caller(Arc::new(Caller { subject: "agent-1".into(), admin: false }));
        let operator = Identity::Caller(Arc::new(Caller { subject: "ops".into(), admin: true }));
        for (method, uri, body) in [(Method::GET, "/admin/dead-letters", None), (Method::POST, "/admin/dead-letters/redrive", Some("{}"))] {
            let (status, answer) = f.call(method.clone(), uri, body, Some(Identity::Refused(AuthError::Missing))).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
            assert!(answer["error"].as_str().unwrap().starts_with("Unauthorized"), "{answer}");
            let (status, answer) = f.call(method.clone(), uri, body, Some(agent.clone())).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
            assert!(answer["error"].as_str().unwrap().contains("for operators"), "{answer}");
            let (status, answer) = f.call(method, uri, body, Some(operator.clone())).await;
            assert_eq!(status, StatusCode::OK, "{answer}");
        }
    }
}
