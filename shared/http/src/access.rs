//! Who is calling, as a route sees it. The front door (the local server verifying bearer tokens,
//! a Lambda function reading its JWT authorizer's claims) puts an [`Identity`] in each request's
//! extensions; a request with none was let in by a front door whose authentication is off, and
//! its routes trust the ids in the request, as the spec's API does.
//!
//! * Each service's middleware answers an [`Identity::Refused`] request 401, in its own error
//!   shape, with the `WWW-Authenticate` challenge ([`refused`], [`with_challenge`]).
//! * Each route that acts as a subject reads [`Access`] and checks, before anything is stored,
//!   that the caller is that subject or an operator ([`Access::act_as`],
//!   [`Access::claim_field`]); a refusal is a 403 naming the rule.

use crate::body::Refusal;
use agora_auth::{AuthError, Caller};
use axum::extract::FromRequestParts;
use axum::http::header::WWW_AUTHENTICATE;
use axum::http::request::Parts;
use axum::http::{HeaderValue, Request, StatusCode};
use axum::response::Response;
use serde_json::Value;
use std::convert::Infallible;
use std::sync::Arc;

/// What the front door learnt of a request's caller (in the request's extensions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// The caller, verified (shared: a request's extractors take it without a copy).
    Caller(Arc<Caller>),
    /// Authentication is on and the request did not pass it: a 401.
    Refused(AuthError),
}

/// The caller of a request as a route sees it: `None` when authentication is off (the ids in
/// the request are trusted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access(Option<Arc<Caller>>);

impl Access {
    /// Authentication off: every id in the request is trusted.
    pub fn trusted() -> Self {
        Access(None)
    }

    /// A verified caller.
    pub fn of(caller: impl Into<Arc<Caller>>) -> Self {
        Access(Some(caller.into()))
    }

    /// The verified caller; `None` when authentication is off.
    pub fn caller(&self) -> Option<&Caller> {
        self.0.as_deref()
    }

    /// Checks that the request may act as `subject`, named in the request by `field`; the
    /// refusal is a 403 saying so.
    pub fn act_as(&self, field: &str, subject: &str) -> Result<(), Refusal> {
        match &self.0 {
            Some(caller) if !caller.may_act_as(subject) => Err(forbidden(format!(
                "{field} {subject:?} is not the caller ({:?}): only an operator may act as another subject",
                caller.subject
            ))),
            _ => Ok(()),
        }
    }

    /// The body's `field` names the subject the request acts as: when the caller is known and
    /// the field is absent (or null), it is set to the caller; when it is a string, the caller
    /// must be that subject or an operator ([`Access::act_as`]). Any other value is left for the
    /// flow's own check to refuse, as is a body that is not an object.
    pub fn claim_field(&self, body: &mut Value, field: &str) -> Result<(), Refusal> {
        let (Some(caller), Some(object)) = (&self.0, body.as_object_mut()) else { return Ok(()) };
        match object.get(field) {
            None | Some(Value::Null) => {
                object.insert(field.to_owned(), Value::String(caller.subject.clone()));
                Ok(())
            }
            Some(Value::String(subject)) => self.act_as(field, subject),
            Some(_) => Ok(()),
        }
    }
}

/// A 403 with `message`.
pub fn forbidden(message: String) -> Refusal {
    (StatusCode::FORBIDDEN, format!("Forbidden: {message}"))
}

impl<S: Send + Sync> FromRequestParts<S> for Access {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Infallible> {
        Ok(match parts.extensions.get::<Identity>() {
            Some(Identity::Caller(caller)) => Access::of(caller.clone()),
            // A refused identity never reaches a route (the service's middleware answers it); a
            // route that is reached anyway acts for nobody rather than for anybody.
            Some(Identity::Refused(_)) => Access::of(Caller { subject: String::new(), admin: false }),
            None => Access::trusted(),
        })
    }
}

/// Why the front door refused the request's caller, if it did.
pub fn refused<B>(request: &Request<B>) -> Option<&AuthError> {
    match request.extensions().get::<Identity>() {
        Some(Identity::Refused(error)) => Some(error),
        _ => None,
    }
}

/// The 401 of `error`, for the service to put in its error shape.
pub fn unauthorized(error: &AuthError) -> Refusal {
    (StatusCode::UNAUTHORIZED, format!("Unauthorized: {error}"))
}

/// `response` with the `WWW-Authenticate` challenge of `error` (RFC 6750).
pub fn with_challenge(mut response: Response, error: &AuthError) -> Response {
    if let Ok(value) = HeaderValue::from_str(&error.challenge()) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn agent(subject: &str) -> Access {
        Access::of(Caller { subject: subject.into(), admin: false })
    }

    #[test]
    fn a_caller_acts_as_itself_an_operator_as_anyone() {
        assert_eq!(Access::trusted().act_as("bid_subject_id", "b"), Ok(()));
        assert_eq!(agent("a").act_as("bid_subject_id", "a"), Ok(()));
        let (status, message) = agent("a").act_as("bid_subject_id", "b").unwrap_err();
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(message.contains(r#"bid_subject_id "b" is not the caller ("a")"#), "{message}");
        assert_eq!(Access::of(Caller { subject: "op".into(), admin: true }).act_as("bid_subject_id", "b"), Ok(()));
    }

    #[test]
    fn a_claimed_field_is_filled_or_checked() {
        let mut body = json!({"vote_id": "v"});
        agent("a").claim_field(&mut body, "submitter_subject_id").unwrap();
        assert_eq!(body["submitter_subject_id"], "a");
        let mut other = json!({"submitter_subject_id": "b"});
        assert_eq!(agent("a").claim_field(&mut other, "submitter_subject_id").unwrap_err().0, StatusCode::FORBIDDEN);
        let mut trusted = json!({});
        Access::trusted().claim_field(&mut trusted, "submitter_subject_id").unwrap();
        assert_eq!(trusted, json!({}), "auth off: nothing filled in");
        let mut wrong_type = json!({"submitter_subject_id": 7});
        agent("a").claim_field(&mut wrong_type, "submitter_subject_id").unwrap();
        assert_eq!(wrong_type["submitter_subject_id"], 7, "left for the flow to refuse");
    }
}
