//! Who is calling. Every front door turns a request into a [`Caller`] here, in one place:
//!
//! * on AWS, the API Gateway HTTP API's JWT authorizer has verified the token; its claims, read
//!   from the request context, give the caller through [`ClaimRules::caller`];
//! * on the local server, [`verify::Verifier`] (feature `verify`) checks the bearer token itself
//!   (RS256 or ES256; keys from a JWKS URL, cached and refreshed on an unknown `kid`, or from a
//!   PEM file; issuer, audience, expiry and not-before) and then reads its claims the same way;
//!   so does the AWS live stream's `$connect`, with the RSA algorithms alone
//!   ([`verify::Algorithms::Rsa`]), the ones the HTTP API's authorizer accepts.
//!
//! The claim that names the subject is configurable (default `sub`), and a scope (default
//! `agora:admin`) marks operators. Refusals are [`AuthError`]s: each says what is wrong and
//! gives its `WWW-Authenticate` challenge (RFC 6750).

#[cfg(feature = "verify")]
pub mod verify;

use serde_json::{Map, Value};

/// Environment variable: the claim that names the subject (default `sub`).
pub const SUBJECT_CLAIM_ENV: &str = "AGORA_AUTH_SUBJECT_CLAIM";
/// Environment variable: the scope that marks operators (default `agora:admin`).
pub const ADMIN_SCOPE_ENV: &str = "AGORA_AUTH_ADMIN_SCOPE";
/// The subject claim when none is configured.
pub const DEFAULT_SUBJECT_CLAIM: &str = "sub";
/// The operators' scope when none is configured.
pub const DEFAULT_ADMIN_SCOPE: &str = "agora:admin";

/// The caller of a request: the subject it acts as, and whether it is an operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub subject: String,
    pub admin: bool,
}

impl Caller {
    /// Whether the caller may act as `subject`: it is that subject, or an operator.
    pub fn may_act_as(&self, subject: &str) -> bool {
        self.admin || self.subject == subject
    }
}

/// Why a request's caller is not known. Each is a 401 with [`AuthError::challenge`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("a bearer token is required (Authorization: Bearer <token>)")]
    Missing,
    #[error("the bearer token is malformed: {0}")]
    Malformed(String),
    #[error("the token's algorithm {0} is not accepted")]
    Algorithm(String),
    #[error("the token has expired")]
    Expired,
    #[error("the token is not valid yet (nbf)")]
    NotYetValid,
    #[error("the token's issuer is not the one this deployment trusts")]
    WrongIssuer,
    #[error("the token's audience is not this deployment")]
    WrongAudience,
    #[error("the token's signature does not verify")]
    BadSignature,
    #[error("the token's key id {0:?} is not among the trusted keys")]
    UnknownKey(String),
    #[error("the token has no {0:?} claim naming its subject")]
    NoSubject(String),
    #[error("the token is not valid: {0}")]
    Invalid(String),
    /// The trusted keys could not be read (the JWKS endpoint failed): not the caller's fault,
    /// but no token can be verified.
    #[error("the trusted keys could not be read: {0}")]
    KeysUnavailable(String),
}

impl AuthError {
    /// The `WWW-Authenticate` header of the 401 (RFC 6750 §3).
    pub fn challenge(&self) -> String {
        match self {
            AuthError::Missing => r#"Bearer realm="agora""#.to_owned(),
            other => format!(r#"Bearer realm="agora", error="invalid_token", error_description="{}""#, other.to_string().replace('"', "'")),
        }
    }
}

/// How claims name the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRules {
    /// The claim whose string value is the subject.
    pub subject_claim: String,
    /// The scope that marks an operator.
    pub admin_scope: String,
}

impl Default for ClaimRules {
    fn default() -> Self {
        Self { subject_claim: DEFAULT_SUBJECT_CLAIM.to_owned(), admin_scope: DEFAULT_ADMIN_SCOPE.to_owned() }
    }
}

impl ClaimRules {
    /// `AGORA_AUTH_SUBJECT_CLAIM` and `AGORA_AUTH_ADMIN_SCOPE`, each with its default.
    pub fn from_env() -> Self {
        let defaults = Self::default();
        Self {
            subject_claim: agora_support::env::var(SUBJECT_CLAIM_ENV).unwrap_or(defaults.subject_claim),
            admin_scope: agora_support::env::var(ADMIN_SCOPE_ENV).unwrap_or(defaults.admin_scope),
        }
    }

    /// The caller the claims name. Scopes come from `scope` (space-separated, OAuth 2.0) or
    /// `scp` (a list or a space-separated string), and from `extra_scopes` (API Gateway gives a
    /// JWT authorizer's scopes beside the claims).
    pub fn caller(&self, claims: &Map<String, Value>, extra_scopes: &[String]) -> Result<Caller, AuthError> {
        let subject = match claims.get(&self.subject_claim) {
            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
            _ => return Err(AuthError::NoSubject(self.subject_claim.clone())),
        };
        let admin = extra_scopes.contains(&self.admin_scope) || scopes(claims).any(|s| s == self.admin_scope);
        Ok(Caller { subject, admin })
    }
}

/// The scopes in `scope` and `scp`.
fn scopes(claims: &Map<String, Value>) -> impl Iterator<Item = &str> {
    ["scope", "scp"].into_iter().filter_map(|k| claims.get(k)).flat_map(|v| -> Vec<&str> {
        match v {
            Value::String(s) => s.split_whitespace().collect(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    })
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case).
pub fn bearer_token(authorization: Option<&str>) -> Result<&str, AuthError> {
    let header = authorization.map(str::trim).filter(|h| !h.is_empty()).ok_or(AuthError::Missing)?;
    match header.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => Ok(token.trim()),
        _ => Err(AuthError::Malformed("the Authorization header is not \"Bearer <token>\"".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn claims_name_the_caller_and_scopes_mark_operators() {
        let rules = ClaimRules::default();
        assert_eq!(rules.caller(&claims(json!({"sub": "agent-1"})), &[]), Ok(Caller { subject: "agent-1".into(), admin: false }));
        assert!(rules.caller(&claims(json!({"sub": "op", "scope": "read agora:admin"})), &[]).unwrap().admin);
        assert!(rules.caller(&claims(json!({"sub": "op", "scp": ["agora:admin"]})), &[]).unwrap().admin);
        assert!(rules.caller(&claims(json!({"sub": "op"})), &["agora:admin".into()]).unwrap().admin);
        assert!(!rules.caller(&claims(json!({"sub": "op", "scope": "agora:administrator"})), &[]).unwrap().admin);
        assert_eq!(rules.caller(&claims(json!({"sub": ""})), &[]), Err(AuthError::NoSubject("sub".into())));
        assert_eq!(rules.caller(&claims(json!({"sub": 7})), &[]), Err(AuthError::NoSubject("sub".into())));
        let custom = ClaimRules { subject_claim: "client_id".into(), admin_scope: "ops".into() };
        assert_eq!(
            custom.caller(&claims(json!({"sub": "x", "client_id": "svc", "scp": "ops"})), &[]).unwrap(),
            Caller { subject: "svc".into(), admin: true }
        );
    }

    #[test]
    fn bearer_headers() {
        assert_eq!(bearer_token(Some("Bearer abc")), Ok("abc"));
        assert_eq!(bearer_token(Some("bearer  abc ")), Ok("abc"));
        assert_eq!(bearer_token(None), Err(AuthError::Missing));
        assert_eq!(bearer_token(Some(" ")), Err(AuthError::Missing));
        assert!(matches!(bearer_token(Some("Basic abc")), Err(AuthError::Malformed(_))));
        assert!(matches!(bearer_token(Some("Bearer")), Err(AuthError::Malformed(_))));
    }

    #[test]
    fn challenges() {
        assert_eq!(AuthError::Missing.challenge(), r#"Bearer realm="agora""#);
        let c = AuthError::Expired.challenge();
        assert!(c.contains(r#"error="invalid_token""#) && c.contains("expired"), "{c}");
        assert!(Caller { subject: "a".into(), admin: false }.may_act_as("a"));
        assert!(!Caller { subject: "a".into(), admin: false }.may_act_as("b"));
        assert!(Caller { subject: "op".into(), admin: true }.may_act_as("b"));
    }
}
