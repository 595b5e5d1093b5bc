//! Identity and access end to end: the local server with authentication on (a JWKS served by
//! `agora-test-tokens`, one RS256 and one ES256 key), over real HTTP and WebSocket, and the
//! Lambda front doors called with an API Gateway JWT authorizer's claims.
//!
//! * Every bad token is a 401 with `WWW-Authenticate: Bearer realm="agora"...`, in the error
//!   shape of the service the route belongs to; an unknown `kid` reads the JWKS once more, then
//!   is refused.
//! * A caller acts only as itself (403 otherwise, nothing stored); an operator (scope
//!   `agora:admin`) acts as anyone; a missing subject field is filled in with the caller.
//! * Reads are open to any valid token; the live stream takes its token on the upgrade.
//! * A body over the limit (1 MiB) is a 413 on every POST and PATCH route, nothing stored.

use agora_auth::verify::MIN_REFRESH_INTERVAL;
use agora_auth::ClaimRules;
use agora_e2e::lambda::call_as;
use agora_e2e::{public_request, vote_body, wait_until, Server};
use agora_runtime::lambda::http_app;
use agora_test_tokens::{claims, hs256_with_public_key, now, operator_claims, sign, unsigned, with, Jwks, TestKey, AUDIENCE, ISSUER};
use futures::{SinkExt, StreamExt};
use reqwest::Method;
use serde_json::{json, Value};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// The 413 of every route (the default limit).
const TOO_LARGE: &str = "Request body is too large: the limit is 1048576 bytes (AGORA_MAX_BODY_BYTES)";

/// How long a task is given to start (the sweep runs every 100 ms).
const SOON: Duration = Duration::from_secs(10);

/// The identity provider's signing keys, made once per run.
struct Keys {
    rsa: TestKey,
    ec: TestKey,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| Keys { rsa: TestKey::rs256("rsa-1"), ec: TestKey::es256("ec-1") })
}

/// `sub`'s token, signed RS256.
fn rs(sub: &str) -> String {
    sign(&keys().rsa, &claims(sub))
}

/// `sub`'s token, signed ES256.
fn es(sub: &str) -> String {
    sign(&keys().ec, &claims(sub))
}

/// An operator's token (scope `agora:admin`).
fn op(sub: &str) -> String {
    sign(&keys().ec, &operator_claims(sub))
}

/// The error shape of the service a route belongs to.
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `{"error": "..."}`
    Voting,
    /// Orcade's and Xchange's `{"ok": false, "error": "..."}`
    Envelope,
}

/// The error message of `body`, which must be in `shape` and nothing more.
#[track_caller]
fn error_in(shape: Shape, body: &Value) -> String {
    let keys = match shape {
        Shape::Voting => 1,
        Shape::Envelope => {
            assert_eq!(body["ok"], json!(false), "the envelope: {body}");
            2
        }
    };
    assert_eq!(body.as_object().map(|o| o.len()), Some(keys), "{shape:?} shape: {body}");
    body["error"].as_str().unwrap_or_else(|| panic!("an error message: {body}")).to_owned()
}

/// A local server whose routes need a bearer token verified against a JWKS.
struct Authed {
    server: Server,
    jwks: Jwks,
    /// Just after start-up, when the JWKS had been read once.
    since: Instant,
}

/// An answer: status, JSON body (`null` when not JSON), `WWW-Authenticate`.
type Answer = (u16, Value, Option<String>);

impl Authed {
    async fn start() -> Authed {
        let k = keys();
        let jwks = Jwks::start(vec![k.rsa.jwk.clone(), k.ec.jwk.clone()]).await;
        let url = jwks.url.clone();
        let server = Server::start_with(|c| {
            c.auth_jwks_url = Some(url);
            c.auth_issuer = Some(ISSUER.into());
            c.auth_audience = Some(AUDIENCE.into());
        })
        .await;
        assert_eq!(jwks.hits(), 1, "the JWKS is read at start-up");
        Authed { server, jwks, since: Instant::now() }
    }

    /// Sends `method` with `token` (none: no Authorization header) and a raw JSON body.
    async fn exchange(&self, token: Option<&str>, method: Method, path: &str, body: Option<String>) -> Answer {
        let mut request = self.server.http.request(method.clone(), self.server.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body);
        }
        let r = request.send().await.expect("request");
        let status = r.status().as_u16();
        let challenge = r.headers().get("www-authenticate").map(|v| v.to_str().expect("ASCII").to_owned());
        let body = r.json().await.unwrap_or(Value::Null);
        agora_e2e::openapi::assert_documented(method.as_str(), path, status, &body);
        (status, body, challenge)
    }

    async fn send(&self, token: &str, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let (status, body, _) = self.exchange(Some(token), method, path, body.map(Value::to_string)).await;
        (status, body)
    }

    async fn post(&self, token: &str, path: &str, body: &Value) -> (u16, Value) {
        self.send(token, Method::POST, path, Some(body)).await
    }

    async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        self.send(token, Method::GET, path, None).await
    }

    /// `data` of an Orcade or Xchange GET, read by a plain subject; `None` on a 404.
    async fn data(&self, path: &str) -> Option<Value> {
        let (status, body) = self.get(&rs("reader"), path).await;
        if status == 404 {
            return None;
        }
        assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
        Some(body["data"].clone())
    }

    /// The documents a query route finds (voting's bare array or the envelope's `data`).
    async fn query(&self, path: &str, filter: &Value) -> Vec<Value> {
        let (status, body) = self.post(&rs("reader"), path, filter).await;
        assert_eq!(status, 200, "POST {path} {filter}: {body}");
        let list = if body.is_array() { body } else { body["data"].clone() };
        list.as_array().unwrap_or_else(|| panic!("a list from {path}: {list}")).clone()
    }

    /// Creates a public task (as its creator, `planner-service`) and waits until it starts.
    async fn started_task(&self) -> String {
        let (status, body) = self.post(&rs("planner-service"), "/submit-social-choice-task", &public_request(50)).await;
        assert_eq!(status, 201, "create: {body}");
        let id = body["social_task_id"].as_str().expect("social_task_id").to_owned();
        wait_until(&format!("{id} started"), SOON, || async {
            (self.get(&es("reader"), &format!("/get-status/{id}")).await.1["status"] == "started").then_some(())
        })
        .await;
        id
    }

    /// The votes stored with `vote_id`.
    async fn votes(&self, vote_id: &str) -> Vec<Value> {
        self.query("/generic-query/votes", &json!({ "vote_id": vote_id })).await
    }
}

/// A closed bid job of five translators (no evaluation before it is closed or all five bid).
fn job(creator: Option<&str>) -> Value {
    let mut job = json!({
        "bid_job_metadata": {"parameters": {"min": 0.8}},
        "bid_job_description": {"task_type": "translate_document"},
        "bid_job_name": {"en": "Translate Q3 report"},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_pqt_id": "builtin:min-confidence",
        "bid_job_subject_ids": ["t1", "t2", "t3", "t4", "t5"],
        "bid_job_tags": ["translation"],
    });
    if let Some(creator) = creator {
        job["bid_job_creator_id"] = json!(creator);
    }
    job
}

fn bid(subject: Option<&str>, price: f64) -> Value {
    let mut bid = json!({"bid_data": {"price_usd": price, "confidence": 0.9}});
    if let Some(subject) = subject {
        bid["bid_subject_id"] = json!(subject);
    }
    bid
}

/// A vote for the first translator, `submitter_subject_id` left out when `None`.
fn vote(task: &str, submitter: Option<&str>) -> Value {
    let mut vote = vote_body(task, submitter.unwrap_or_default(), json!({"selected_option": "agent-translator-01"}));
    if submitter.is_none() {
        vote.as_object_mut().expect("object").remove("submitter_subject_id");
    }
    vote
}

fn id_in(body: &Value, field: &str) -> String {
    body["data"][field].as_str().unwrap_or_else(|| panic!("{field} in {body}")).to_owned()
}

/// Asserts a 403 in `shape` whose message starts `Forbidden: `; returns the message.
#[track_caller]
fn forbidden(what: &str, shape: Shape, (status, body): (u16, Value)) -> String {
    assert_eq!(status, 403, "{what}: {body}");
    let message = error_in(shape, &body);
    assert!(message.starts_with("Forbidden: "), "{what}: {message}");
    message
}

#[track_caller]
fn ok(what: &str, want: u16, (status, body): (u16, Value)) -> Value {
    assert_eq!(status, want, "{what}: {body}");
    body
}

/// Asserts a 401 with its challenge; returns the message.
#[track_caller]
fn unauthorized(what: &str, shape: Shape, (status, body, challenge): Answer) -> String {
    assert_eq!(status, 401, "{what}: {body}");
    let challenge = challenge.unwrap_or_else(|| panic!("{what}: a WWW-Authenticate header"));
    assert!(challenge.starts_with(r#"Bearer realm="agora""#), "{what}: {challenge}");
    let message = error_in(shape, &body);
    assert!(message.starts_with("Unauthorized: "), "{what}: {message}");
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_bad_token_is_refused_401_with_a_challenge_in_each_services_shape() {
    let s = Authed::start().await;
    let Keys { rsa, ec } = keys();
    let agent = || claims("agent-1");
    // Each bad token and what its refusal says.
    let bad = [
        ("no token", None, "a bearer token is required"),
        ("expired", Some(sign(ec, &with(agent(), json!({"exp": now() - 120})))), "expired"),
        ("not yet valid", Some(sign(ec, &with(agent(), json!({"nbf": now() + 120})))), "not valid yet"),
        ("wrong issuer", Some(sign(rsa, &with(agent(), json!({"iss": "https://evil.test/"})))), "issuer"),
        ("wrong audience", Some(sign(rsa, &with(agent(), json!({"aud": "someone-else"})))), "audience"),
        ("wrong signature", Some(sign(&TestKey::es256(&ec.kid), &agent())), "signature does not verify"),
        ("alg none", Some(unsigned(&ec.kid, &agent())), "\"none\""),
        ("HS256 with the public key", Some(hs256_with_public_key(rsa, &agent())), "HS256"),
    ];
    let mut task = public_request(50);
    task["social_task"]["created_by_subject_id"] = json!("agent-1");
    // Writes that would store something, and reads; each in its service's shape.
    let routes = [
        (Shape::Voting, Method::POST, "/submit-social-choice-task", Some(task)),
        (Shape::Voting, Method::POST, "/submit-vote", Some(vote("task_00000000", Some("agent-1")))),
        (Shape::Voting, Method::GET, "/get-status/task_00000000", None),
        (Shape::Voting, Method::GET, "/local/inbox/agent-1", None),
        (Shape::Envelope, Method::POST, "/bid-jobs", Some(job(Some("agent-1")))),
        (Shape::Envelope, Method::GET, "/bid-jobs/job-1", None),
        (Shape::Envelope, Method::POST, "/subjects", Some(json!({"subject_id": "agent-1"}))),
        (Shape::Envelope, Method::POST, "/subjects/query", Some(json!({}))),
    ];
    for (case, token, says) in &bad {
        for (shape, method, path, body) in &routes {
            let what = format!("{case}: {method} {path}");
            let answer = s.exchange(token.as_deref(), method.clone(), path, body.as_ref().map(Value::to_string)).await;
            let challenge = answer.2.clone().unwrap_or_default();
            let message = unauthorized(&what, *shape, answer);
            assert!(message.contains(says), "{what}: {message}");
            if token.is_some() {
                assert!(challenge.contains(r#"error="invalid_token""#), "{what}: {challenge}");
            } else {
                assert_eq!(challenge, r#"Bearer realm="agora""#, "{what}");
            }
        }
    }
    // Nothing was stored, and no bad token made the server read the JWKS again.
    assert_eq!(s.query("/generic-query/social_task_core_data", &json!({})).await, Vec::<Value>::new());
    assert_eq!(s.query("/generic-query/votes", &json!({})).await, Vec::<Value>::new());
    assert_eq!(s.query("/bid-jobs/query", &json!({})).await, Vec::<Value>::new());
    assert_eq!(s.data("/subjects/agent-1").await, None);
    assert_eq!(s.jwks.hits(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unknown_kid_reads_the_jwks_once_more_then_is_refused() {
    let s = Authed::start().await;
    let stranger = sign(&TestKey::es256("stranger"), &claims("agent-1"));
    let refuse = |path: &'static str, shape: Shape| {
        let (s, stranger) = (&s, &stranger);
        async move {
            let answer = s.exchange(Some(stranger), Method::POST, path, Some(json!({"subject_id": "agent-1"}).to_string())).await;
            let message = unauthorized(path, shape, answer);
            assert!(message.contains(r#"key id "stranger""#), "{message}");
        }
    };
    // The set was read at start-up, less than the minimum interval ago: refused, not read again.
    refuse("/subjects", Shape::Envelope).await;
    assert_eq!(s.jwks.hits(), 1);

    // Once the set is older than the interval, the unknown kid reads it once more, then is
    // refused; and refused again without another read.
    let due = s.since + MIN_REFRESH_INTERVAL + Duration::from_millis(300);
    tokio::time::sleep_until(due.into()).await;
    refuse("/subjects", Shape::Envelope).await;
    assert_eq!(s.jwks.hits(), 2, "read once more for the unknown kid");
    refuse("/submit-vote", Shape::Voting).await;
    refuse("/bid-jobs", Shape::Envelope).await;
    assert_eq!(s.jwks.hits(), 2, "not read again at once");
    assert_eq!(s.data("/subjects/agent-1").await, None, "nothing stored");
    // The trusted keys still verify.
    ok("a trusted key", 201, s.post(&es("agent-1"), "/subjects", &json!({})).await);
    assert_eq!(s.jwks.hits(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_voter_votes_only_as_itself_and_an_operator_as_anyone() {
    let s = Authed::start().await;
    let task = s.started_task().await;

    let refused = vote(&task, Some("agent-b"));
    let message = forbidden("agent-a votes as agent-b", Shape::Voting, s.post(&rs("agent-a"), "/submit-vote", &refused).await);
    assert!(message.contains(r#"submitter_subject_id "agent-b" is not the caller ("agent-a")"#), "{message}");
    assert_eq!(s.votes(refused["vote_id"].as_str().unwrap()).await, Vec::<Value>::new(), "nothing stored");

    // As itself (RS256 and ES256), with the field left out, and an operator for another.
    let cases = [
        (rs("agent-a"), vote(&task, Some("agent-a")), "agent-a"),
        (es("agent-e"), vote(&task, Some("agent-e")), "agent-e"),
        (rs("agent-c"), vote(&task, None), "agent-c"),
        (op("ops"), vote(&task, Some("agent-d")), "agent-d"),
    ];
    for (token, vote, submitter) in cases {
        let body = ok(&format!("a vote as {submitter}"), 200, s.post(&token, "/submit-vote", &vote).await);
        assert_eq!(body["status"], "accepted", "{body}");
        let stored = s.votes(vote["vote_id"].as_str().unwrap()).await;
        assert_eq!(stored.len(), 1, "{stored:?}");
        assert_eq!(stored[0]["submitter_subject_id"], json!(submitter), "{stored:?}");
    }
}

/// The tasks stored with `creator` as their `created_by_subject_id`.
async fn tasks_by(s: &Authed, creator: &str) -> usize {
    s.query("/generic-query/social_task_core_data", &json!({ "created_by_subject_id": creator })).await.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_is_created_only_as_its_caller_and_an_operator_creates_for_anyone() {
    let s = Authed::start().await;
    // `public_request`'s creator (`social_task.created_by_subject_id`) is planner-service.
    ok("planner-service creates", 201, s.post(&es("planner-service"), "/submit-social-choice-task", &public_request(50)).await);
    ok("an operator creates for planner-service", 201, s.post(&op("ops"), "/submit-social-choice-task", &public_request(50)).await);
    assert_eq!(tasks_by(&s, "planner-service").await, 2);

    let answer = s.post(&rs("mallory"), "/submit-social-choice-task", &public_request(50)).await;
    forbidden("mallory creates as planner-service", Shape::Voting, answer);
    assert_eq!(tasks_by(&s, "planner-service").await, 2, "nothing stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_without_its_creator_is_created_as_its_caller() {
    let s = Authed::start().await;
    let mut anonymous = public_request(50);
    anonymous["social_task"].as_object_mut().expect("social_task").remove("created_by_subject_id");
    ok("the creator left out: the caller", 201, s.post(&rs("creator-2"), "/submit-social-choice-task", &anonymous).await);
    assert_eq!(tasks_by(&s, "creator-2").await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bid_jobs_and_bids_are_changed_only_by_their_creator_or_subject_or_an_operator() {
    let s = Authed::start().await;
    let envelope = Shape::Envelope;
    let jobs_of = |creator: &'static str| {
        let s = &s;
        async move { s.query("/bid-jobs/query", &json!({ "bid_job_creator_id": creator })).await.len() }
    };

    // Creating a job: as oneself, the field left out, an operator for another; not as another.
    forbidden("mallory creates as planner", envelope, s.post(&rs("mallory"), "/bid-jobs", &job(Some("planner"))).await);
    assert_eq!(jobs_of("planner").await, 0, "nothing stored");
    let a = id_in(&ok("planner creates", 201, s.post(&rs("planner"), "/bid-jobs", &job(Some("planner"))).await), "bid_job_id");
    let d = id_in(&ok("planner creates", 201, s.post(&es("planner"), "/bid-jobs", &job(Some("planner"))).await), "bid_job_id");
    let b = ok("the creator left out", 201, s.post(&rs("planner-2"), "/bid-jobs", &job(None)).await);
    assert_eq!(b["data"]["bid_job_creator_id"], "planner-2", "{b}");
    let b = id_in(&b, "bid_job_id");
    let c = id_in(&ok("an operator for planner-3", 201, s.post(&op("ops"), "/bid-jobs", &job(Some("planner-3"))).await), "bid_job_id");
    assert_eq!(s.data(&format!("/bid-jobs/{c}")).await.unwrap()["bid_job_creator_id"], "planner-3");

    // Bidding: as oneself, the field left out, an operator for another; not as another.
    let bids = format!("/bid-jobs/{a}/bids");
    let message = forbidden("t1 bids as t2", envelope, s.post(&rs("t1"), &bids, &bid(Some("t2"), 10.0)).await);
    assert!(message.contains(r#"bid_subject_id "t2" is not the caller ("t1")"#), "{message}");
    assert_eq!(s.data(&bids).await.unwrap(), json!([]), "nothing stored");
    let t1 = id_in(&ok("t1 bids", 201, s.post(&rs("t1"), &bids, &bid(Some("t1"), 10.0)).await), "bid_id");
    let t2 = ok("t2 bids, the field left out", 201, s.post(&es("t2"), &bids, &bid(None, 11.0)).await);
    assert_eq!(t2["data"]["bid_subject_id"], "t2", "{t2}");
    let t2 = id_in(&t2, "bid_id");
    let t3 = ok("an operator bids for t3", 201, s.post(&op("ops"), &bids, &bid(Some("t3"), 12.0)).await);
    assert_eq!(t3["data"]["bid_subject_id"], "t3", "{t3}");
    assert_eq!(s.data(&bids).await.unwrap().as_array().unwrap().len(), 3);

    // A job is closed, changed or deleted by its creator or an operator only.
    let job_a = s.data(&format!("/bid-jobs/{a}")).await.unwrap();
    assert_eq!(job_a["bid_job_status"], "open");
    let message = forbidden("t1 closes", envelope, s.post(&rs("t1"), &format!("/bid-jobs/{a}/close"), &json!({})).await);
    assert_eq!(message, format!("Forbidden: only the creator of bid job {a:?} or an operator may close it"));
    let rename = json!({"bid_job_name.fr": "Traduire"});
    forbidden("t1 patches the job", envelope, s.send(&rs("t1"), Method::PATCH, &format!("/bid-jobs/{a}"), Some(&rename)).await);
    forbidden("t1 deletes the job", envelope, s.send(&rs("t1"), Method::DELETE, &format!("/bid-jobs/{a}"), None).await);
    forbidden("planner-2 closes", envelope, s.post(&rs("planner-2"), &format!("/bid-jobs/{a}/close"), &json!({})).await);
    assert_eq!(s.data(&format!("/bid-jobs/{a}")).await.unwrap(), job_a, "the job is unchanged, still open");

    // A bid is changed or deleted by its subject or an operator only (not the job's creator).
    let bid_t1 = s.data(&format!("/bids/{t1}")).await.unwrap();
    let eta = |h: i64| json!({ "bid_data.eta_hours": h });
    for (who, token) in [("t2", rs("t2")), ("the job's creator", es("planner"))] {
        let m = forbidden(who, envelope, s.send(&token, Method::PATCH, &format!("/bids/{t1}"), Some(&eta(6))).await);
        assert!(m.contains("only the subject of bid"), "{m}");
        forbidden(who, envelope, s.send(&token, Method::DELETE, &format!("/bids/{t1}"), None).await);
    }
    assert_eq!(s.data(&format!("/bids/{t1}")).await.unwrap(), bid_t1, "the bid is unchanged");

    // The right callers.
    let patched = ok("t1 patches its bid", 200, s.send(&rs("t1"), Method::PATCH, &format!("/bids/{t1}"), Some(&eta(6))).await);
    assert_eq!(patched["data"]["bid_data"]["eta_hours"], 6);
    let patched = ok("an operator patches t1's bid", 200, s.send(&op("ops"), Method::PATCH, &format!("/bids/{t1}"), Some(&eta(7))).await);
    assert_eq!(patched["data"]["bid_data"]["eta_hours"], 7);
    ok("t1 deletes its bid", 200, s.send(&es("t1"), Method::DELETE, &format!("/bids/{t1}"), None).await);
    ok("an operator deletes t2's bid", 200, s.send(&op("ops"), Method::DELETE, &format!("/bids/{t2}"), None).await);
    assert_eq!(s.data(&format!("/bids/{t1}")).await, None);
    assert_eq!(s.data(&format!("/bids/{t2}")).await, None);

    let patched = ok("planner patches", 200, s.send(&rs("planner"), Method::PATCH, &format!("/bid-jobs/{a}"), Some(&rename)).await);
    assert_eq!(patched["data"]["bid_job_name"]["fr"], "Traduire");
    let patched = ok(
        "an operator patches",
        200,
        s.send(&op("ops"), Method::PATCH, &format!("/bid-jobs/{a}"), Some(&json!({"bid_job_name.de": "X"}))).await,
    );
    assert_eq!(patched["data"]["bid_job_name"]["de"], "X");
    let closed = ok("planner closes", 200, s.post(&rs("planner"), &format!("/bid-jobs/{a}/close"), &json!({})).await);
    assert_eq!(closed["data"]["bid_job_status"], "closed", "{closed}");
    let closed = ok("an operator closes planner-3's job", 200, s.post(&op("ops"), &format!("/bid-jobs/{c}/close"), &json!({})).await);
    assert_eq!(closed["data"]["bid_job_status"], "closed", "{closed}");
    ok("planner-2 deletes its job", 200, s.send(&rs("planner-2"), Method::DELETE, &format!("/bid-jobs/{b}"), None).await);
    ok("an operator deletes planner's job", 200, s.send(&op("ops"), Method::DELETE, &format!("/bid-jobs/{d}"), None).await);
    assert_eq!(s.data(&format!("/bid-jobs/{b}")).await, None);
    assert_eq!(s.data(&format!("/bid-jobs/{d}")).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_subject_registers_and_edits_only_itself_and_an_operator_any() {
    let s = Authed::start().await;
    let envelope = Shape::Envelope;

    let message =
        forbidden("agent-a registers agent-b", envelope, s.post(&rs("agent-a"), "/subjects", &json!({"subject_id": "agent-b"})).await);
    assert!(message.contains(r#"subject_id "agent-b" is not the caller ("agent-a")"#), "{message}");
    assert_eq!(s.data("/subjects/agent-b").await, None, "nothing stored");

    let a = ok("agent-a registers", 201, s.post(&rs("agent-a"), "/subjects", &json!({"subject_id": "agent-a", "topics": ["nlp"]})).await);
    assert_eq!(a["data"]["subject_id"], "agent-a");
    let c = ok("the id left out: the caller's", 201, s.post(&es("agent-c"), "/subjects", &json!({"topics": ["ocr"]})).await);
    assert_eq!(c["data"]["subject_id"], "agent-c", "{c}");
    ok("an operator registers agent-b", 201, s.post(&op("ops"), "/subjects", &json!({"subject_id": "agent-b"})).await);
    assert_eq!(s.data("/subjects/agent-b").await.unwrap()["subject_id"], "agent-b");

    let stored = s.data("/subjects/agent-a").await.unwrap();
    let topics = json!({"topics": ["spam"]});
    forbidden("agent-c patches agent-a", envelope, s.send(&rs("agent-c"), Method::PATCH, "/subjects/agent-a", Some(&topics)).await);
    forbidden("agent-c deletes agent-a", envelope, s.send(&rs("agent-c"), Method::DELETE, "/subjects/agent-a", None).await);
    assert_eq!(s.data("/subjects/agent-a").await.unwrap(), stored, "unchanged");

    let patched = ok(
        "agent-a patches itself",
        200,
        s.send(&rs("agent-a"), Method::PATCH, "/subjects/agent-a", Some(&json!({"topics": ["nlp", "fr"]}))).await,
    );
    assert_eq!(patched["data"]["topics"], json!(["nlp", "fr"]));
    let patched = ok("an operator patches agent-a", 200, s.send(&op("ops"), Method::PATCH, "/subjects/agent-a", Some(&topics)).await);
    assert_eq!(patched["data"]["topics"], json!(["spam"]));
    ok("agent-c deletes itself", 200, s.send(&es("agent-c"), Method::DELETE, "/subjects/agent-c", None).await);
    ok("an operator deletes agent-a", 200, s.send(&op("ops"), Method::DELETE, "/subjects/agent-a", None).await);
    assert_eq!(s.data("/subjects/agent-a").await, None);
    assert_eq!(s.data("/subjects/agent-c").await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_are_open_to_any_valid_token_and_an_inbox_to_its_subject() {
    let s = Authed::start().await;
    let task = s.started_task().await;
    let job_id = id_in(&ok("job", 201, s.post(&op("ops"), "/bid-jobs", &job(Some("planner"))).await), "bid_job_id");
    let bid_id = id_in(&ok("bid", 201, s.post(&op("ops"), &format!("/bid-jobs/{job_id}/bids"), &bid(Some("t1"), 10.0)).await), "bid_id");
    ok("subject", 201, s.post(&op("ops"), "/subjects", &json!({"subject_id": "agent-s"})).await);
    let open = json!({"task_assignment_type": "open", "task_data": {"k": "open"}});
    let xtask = id_in(&ok("task", 201, s.post(&es("anyone"), "/tasks", &open).await), "task_id");

    let gets = [
        format!("/get-status/{task}"),
        format!("/get-full-task-bundle/{task}"),
        format!("/is-live-streaming-enabled/{task}"),
        format!("/bid-jobs/{job_id}"),
        format!("/bid-jobs/{job_id}/bids"),
        format!("/bid-jobs/{job_id}/task-results"),
        format!("/bid-jobs/{job_id}/evaluation"),
        "/bid-jobs/by-tags?tags=translation".into(),
        format!("/bids/{bid_id}"),
        format!("/tasks/{xtask}"),
        "/subjects/agent-s".into(),
    ];
    let queries = [
        "/generic-query/votes",
        "/generic-query/social_task_core_data",
        "/bid-jobs/query",
        "/bids/query",
        "/bid-task-results/query",
        "/tasks/query",
        "/subjects/query",
    ];
    for token in [rs("reader-1"), es("reader-2")] {
        for path in &gets {
            ok(path, 200, s.get(&token, path).await);
        }
        for path in queries {
            ok(path, 200, s.post(&token, path, &json!({})).await);
        }
    }

    // A subject's inbox: that subject or an operator.
    ok("t1's own inbox", 200, s.get(&rs("t1"), "/local/inbox/t1").await);
    ok("an operator reads t1's inbox", 200, s.get(&op("ops"), "/local/inbox/t1").await);
    let message = forbidden("t2 reads t1's inbox", Shape::Voting, s.get(&es("t2"), "/local/inbox/t1").await);
    assert!(message.contains("inbox"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_live_stream_takes_its_token_on_the_upgrade() {
    let s = Authed::start().await;
    let task = s.started_task().await;
    let url = format!("ws://{}/live-stream", s.server.running.addr);

    // No token, or a bad one in the query: the upgrade is answered 401.
    let expired = sign(&keys().ec, &with(claims("watcher"), json!({"exp": now() - 120})));
    for (what, url) in [("no token", url.clone()), ("an expired token", format!("{url}?access_token={expired}"))] {
        match tokio_tungstenite::connect_async(url).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                assert_eq!(response.status().as_u16(), 401, "{what}");
                let challenge = response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
                assert!(challenge.starts_with(r#"Bearer realm="agora""#), "{what}: {challenge:?}");
                let body: Value = serde_json::from_slice(response.body().as_deref().unwrap_or_default()).unwrap_or(Value::Null);
                assert!(error_in(Shape::Voting, &body).starts_with("Unauthorized: "), "{what}: {body}");
            }
            Err(e) => panic!("{what}: the upgrade should be answered 401, got {e}"),
            Ok(_) => panic!("{what}: the upgrade should be answered 401, it was accepted"),
        }
    }

    // A valid token, in the query or in the Authorization header: the stream runs.
    let first = json!({"social_task_id": task, "refresh_interval": 60}).to_string();
    let mut header = url.as_str().into_client_request().expect("request");
    header.headers_mut().insert("authorization", format!("Bearer {}", rs("watcher")).parse().expect("header"));
    for request in [format!("{url}?access_token={}", es("watcher")).into_client_request().expect("request"), header] {
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("the upgrade with a token is accepted");
        socket.send(Message::Text(first.clone().into())).await.expect("send");
        let update = loop {
            match tokio::time::timeout(Duration::from_secs(5), socket.next()).await.expect("an update in time") {
                Some(Ok(Message::Text(t))) => break serde_json::from_str::<Value>(t.as_str()).expect("JSON"),
                Some(Ok(_)) => continue,
                other => panic!("the stream ended: {other:?}"),
            }
        };
        assert_eq!(update["type"], "update", "{update}");
        assert_eq!(update["data"]["task"]["social_task_id"], json!(task));
    }

    // `access_token` is taken on a WebSocket upgrade only.
    let answer = s.exchange(None, Method::GET, &format!("/get-status/{task}?access_token={}", es("watcher")), None).await;
    unauthorized("access_token on a plain GET", Shape::Voting, answer);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_body_over_the_limit_is_413_on_every_route_with_nothing_stored() {
    let s = Authed::start().await;
    let ops = op("ops");
    let task = s.started_task().await;
    let job_id = id_in(&ok("job", 201, s.post(&ops, "/bid-jobs", &job(Some("planner"))).await), "bid_job_id");
    let bid_id = id_in(&ok("bid", 201, s.post(&ops, &format!("/bid-jobs/{job_id}/bids"), &bid(Some("t1"), 10.0)).await), "bid_id");
    ok("subject", 201, s.post(&ops, "/subjects", &json!({"subject_id": "agent-s"})).await);
    let before = (
        s.data(&format!("/bid-jobs/{job_id}")).await.unwrap(),
        s.data(&format!("/bids/{bid_id}")).await.unwrap(),
        s.data("/subjects/agent-s").await.unwrap(),
    );

    // Each body is valid but for its size (an operator may do each).
    let pad = "x".repeat(1 << 20);
    let mut big_task = public_request(50);
    big_task["social_task"]["properties"]["pad"] = json!(pad);
    let mut big_vote = vote(&task, Some("agent-a"));
    big_vote["vote_data"]["pad"] = json!(pad);
    let mut big_job = job(Some("planner"));
    big_job["bid_job_description"]["pad"] = json!(pad);
    let mut big_bid = bid(Some("t2"), 10.0);
    big_bid["bid_data"]["pad"] = json!(pad);
    let filter = json!({ "pad": pad });
    let routes = [
        (Shape::Voting, Method::POST, "/submit-social-choice-task".to_owned(), big_task.clone()),
        (Shape::Voting, Method::POST, "/parse-social-choice-task".to_owned(), big_task),
        (Shape::Voting, Method::POST, "/submit-vote".to_owned(), big_vote),
        (Shape::Voting, Method::POST, "/generic-query/votes".to_owned(), filter.clone()),
        (Shape::Envelope, Method::POST, "/bid-jobs".to_owned(), big_job),
        (Shape::Envelope, Method::POST, format!("/bid-jobs/{job_id}/bids"), big_bid),
        (Shape::Envelope, Method::POST, format!("/bid-jobs/{job_id}/close"), filter.clone()),
        (Shape::Envelope, Method::PATCH, format!("/bid-jobs/{job_id}"), json!({ "bid_job_description.pad": pad })),
        (Shape::Envelope, Method::PATCH, format!("/bids/{bid_id}"), json!({ "bid_data.pad": pad })),
        (Shape::Envelope, Method::POST, "/bid-jobs/query".to_owned(), filter.clone()),
        (Shape::Envelope, Method::POST, "/bids/query".to_owned(), filter.clone()),
        (Shape::Envelope, Method::POST, "/bid-task-results/query".to_owned(), filter.clone()),
        (Shape::Envelope, Method::POST, "/tasks".to_owned(), json!({"task_assignment_type": "open", "task_data": {"pad": pad}})),
        (Shape::Envelope, Method::POST, "/tasks/query".to_owned(), filter.clone()),
        (Shape::Envelope, Method::POST, "/subjects".to_owned(), json!({"subject_id": "agent-big", "subject_metadata": {"pad": pad}})),
        (Shape::Envelope, Method::PATCH, "/subjects/agent-s".to_owned(), json!({ "subject_metadata.pad": pad })),
        (Shape::Envelope, Method::POST, "/subjects/query".to_owned(), filter.clone()),
        // Routes that never read their body are refused one over the limit as well.
        (Shape::Envelope, Method::DELETE, format!("/bids/{bid_id}"), filter.clone()),
        (Shape::Envelope, Method::DELETE, format!("/bid-jobs/{job_id}"), filter.clone()),
        (Shape::Envelope, Method::DELETE, "/subjects/agent-s".to_owned(), filter),
    ];
    let mut wrong = Vec::new();
    for (shape, method, path, body) in routes {
        let (status, body, _) = s.exchange(Some(&ops), method.clone(), &path, Some(body.to_string())).await;
        if status != 413 {
            wrong.push(format!("{method} {path}: {status} {body}"));
            continue;
        }
        assert_eq!(error_in(shape, &body), TOO_LARGE, "{method} {path}");
    }
    assert!(wrong.is_empty(), "not refused 413:\n{}", wrong.join("\n"));

    // Nothing stored, nothing changed.
    assert_eq!(s.query("/generic-query/social_task_core_data", &json!({})).await.len(), 1, "only the first task");
    assert_eq!(s.query("/generic-query/votes", &json!({})).await, Vec::<Value>::new());
    assert_eq!(s.query("/bid-jobs/query", &json!({})).await.len(), 1, "only the first job");
    assert_eq!(s.data(&format!("/bid-jobs/{job_id}/bids")).await.unwrap().as_array().unwrap().len(), 1, "only the first bid");
    assert_eq!(s.query("/tasks/query", &json!({})).await, Vec::<Value>::new());
    assert_eq!(s.data("/subjects/agent-big").await, None);
    let after = (
        s.data(&format!("/bid-jobs/{job_id}")).await.unwrap(),
        s.data(&format!("/bids/{bid_id}")).await.unwrap(),
        s.data("/subjects/agent-s").await.unwrap(),
    );
    assert_eq!(after, before, "the job (still open), the bid and the subject are unchanged");
}

// The Lambda front doors: each service's router behind `http_app` with the default claim rules,
// called with API Gateway events whose JWT authorizer's claims name the caller.

fn agent(sub: &str) -> Option<Value> {
    Some(json!({ "sub": sub }))
}

fn operator() -> Option<Value> {
    Some(json!({"sub": "ops", "scope": "openid agora:admin"}))
}

fn behind_the_authorizer(router: axum::Router) -> axum::Router {
    http_app(router, Some(ClaimRules::default()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn voting_behind_the_jwt_authorizer() {
    let server = Server::start().await;
    let voting = behind_the_authorizer(agora_voting_api::router(server.running.voting.clone()));

    let (status, body) = call_as(&voting, "POST", "/submit-social-choice-task", Some(public_request(50)), None).await;
    assert_eq!(status, 401, "no authorizer: {body}");
    assert!(error_in(Shape::Voting, &body).starts_with("Unauthorized: a bearer token is required"), "{body}");
    let (status, body) = call_as(&voting, "POST", "/submit-social-choice-task", Some(public_request(50)), agent("planner-service")).await;
    assert_eq!(status, 201, "{body}");
    let task = body["social_task_id"].as_str().expect("id").to_owned();
    wait_until("started", SOON, || async {
        (call_as(&voting, "GET", &format!("/get-status/{task}"), None, agent("reader")).await.1["status"] == "started").then_some(())
    })
    .await;
    let votes = |id: String| {
        let voting = &voting;
        async move {
            let (status, body) = call_as(voting, "POST", "/generic-query/votes", Some(json!({ "vote_id": id })), agent("reader")).await;
            assert_eq!(status, 200, "{body}");
            body.as_array().expect("array").clone()
        }
    };

    let refused = vote(&task, Some("agent-b"));
    let (status, body) = call_as(&voting, "POST", "/submit-vote", Some(refused.clone()), agent("agent-a")).await;
    forbidden("agent-a votes as agent-b", Shape::Voting, (status, body));
    assert_eq!(votes(refused["vote_id"].as_str().unwrap().into()).await, Vec::<Value>::new(), "nothing stored");

    for (claims, vote, submitter) in [
        (agent("agent-a"), vote(&task, Some("agent-a")), "agent-a"),
        (agent("agent-c"), vote(&task, None), "agent-c"),
        (operator(), vote(&task, Some("agent-d")), "agent-d"),
    ] {
        let (status, body) = call_as(&voting, "POST", "/submit-vote", Some(vote.clone()), claims).await;
        assert_eq!(status, 200, "{submitter}: {body}");
        let stored = votes(vote["vote_id"].as_str().unwrap().into()).await;
        assert_eq!(stored.len(), 1, "{stored:?}");
        assert_eq!(stored[0]["submitter_subject_id"], json!(submitter));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn orcade_behind_the_jwt_authorizer() {
    let server = Server::start().await;
    let orcade = behind_the_authorizer(agora_orcade_api::router(server.running.orcade.clone()));

    let (status, body) = call_as(&orcade, "POST", "/bid-jobs", Some(job(Some("planner"))), None).await;
    assert_eq!(status, 401, "no authorizer: {body}");
    assert!(error_in(Shape::Envelope, &body).starts_with("Unauthorized: "), "{body}");
    forbidden(
        "mallory creates as planner",
        Shape::Envelope,
        call_as(&orcade, "POST", "/bid-jobs", Some(job(Some("planner"))), agent("mallory")).await,
    );
    let (status, body) = call_as(&orcade, "POST", "/bid-jobs", Some(job(None)), agent("planner")).await;
    assert_eq!((status, &body["data"]["bid_job_creator_id"]), (201, &json!("planner")), "{body}");
    let job_id = id_in(&body, "bid_job_id");

    let bids = format!("/bid-jobs/{job_id}/bids");
    forbidden("t1 bids as t2", Shape::Envelope, call_as(&orcade, "POST", &bids, Some(bid(Some("t2"), 10.0)), agent("t1")).await);
    let (status, body) = call_as(&orcade, "GET", &bids, None, agent("reader")).await;
    assert_eq!((status, &body["data"]), (200, &json!([])), "nothing stored: {body}");
    let (status, body) = call_as(&orcade, "POST", &bids, Some(bid(None, 10.0)), agent("t1")).await;
    assert_eq!((status, &body["data"]["bid_subject_id"]), (201, &json!("t1")), "{body}");
    let (status, body) = call_as(&orcade, "POST", &bids, Some(bid(Some("t2"), 11.0)), operator()).await;
    assert_eq!(status, 201, "an operator bids for t2: {body}");

    let close = format!("/bid-jobs/{job_id}/close");
    let message = forbidden("t1 closes", Shape::Envelope, call_as(&orcade, "POST", &close, None, agent("t1")).await);
    assert_eq!(message, format!("Forbidden: only the creator of bid job {job_id:?} or an operator may close it"));
    let (_, body) = call_as(&orcade, "GET", &format!("/bid-jobs/{job_id}"), None, agent("reader")).await;
    assert_eq!(body["data"]["bid_job_status"], "open", "still open: {body}");
    let (status, body) = call_as(&orcade, "POST", &close, None, agent("planner")).await;
    assert_eq!((status, &body["data"]["bid_job_status"]), (200, &json!("closed")), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn xchange_behind_the_jwt_authorizer() {
    let server = Server::start().await;
    let xchange = behind_the_authorizer(agora_xchange_api::router(server.running.xchange.clone()));

    let (status, body) = call_as(&xchange, "POST", "/subjects", Some(json!({"subject_id": "agent-a"})), None).await;
    assert_eq!(status, 401, "no authorizer: {body}");
    assert!(error_in(Shape::Envelope, &body).starts_with("Unauthorized: "), "{body}");
    let subject = |id: &str| {
        let (xchange, path) = (&xchange, format!("/subjects/{id}"));
        async move { call_as(xchange, "GET", &path, None, agent("reader")).await }
    };
    assert_eq!(subject("agent-a").await.0, 404, "nothing stored");

    forbidden(
        "agent-a registers agent-b",
        Shape::Envelope,
        call_as(&xchange, "POST", "/subjects", Some(json!({"subject_id": "agent-b"})), agent("agent-a")).await,
    );
    assert_eq!(subject("agent-b").await.0, 404, "nothing stored");
    let (status, body) = call_as(&xchange, "POST", "/subjects", Some(json!({})), agent("agent-a")).await;
    assert_eq!((status, &body["data"]["subject_id"]), (201, &json!("agent-a")), "{body}");
    // `scp` as a list, as API Gateway passes it: `[a b]`.
    let list_scope = Some(json!({"sub": "ops", "scp": "[openid agora:admin]"}));
    let (status, body) = call_as(&xchange, "POST", "/subjects", Some(json!({"subject_id": "agent-b"})), list_scope.clone()).await;
    assert_eq!(status, 201, "an operator registers agent-b: {body}");

    let topics = json!({"topics": ["spam"]});
    forbidden(
        "agent-b patches agent-a",
        Shape::Envelope,
        call_as(&xchange, "PATCH", "/subjects/agent-a", Some(topics.clone()), agent("agent-b")).await,
    );
    forbidden("agent-b deletes agent-a", Shape::Envelope, call_as(&xchange, "DELETE", "/subjects/agent-a", None, agent("agent-b")).await);
    let (status, body) = subject("agent-a").await;
    assert_eq!((status, &body["data"]["topics"]), (200, &json!([])), "unchanged: {body}");
    let (status, body) = call_as(&xchange, "PATCH", "/subjects/agent-a", Some(topics), list_scope).await;
    assert_eq!((status, &body["data"]["topics"]), (200, &json!(["spam"])), "{body}");
    let (status, body) = call_as(&xchange, "DELETE", "/subjects/agent-a", None, agent("agent-a")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(subject("agent-a").await.0, 404);
}
