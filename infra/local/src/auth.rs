//! Who is calling, on the local server. With a key source set (`--auth-jwks-url` or
//! `--auth-public-key-file`), every request's bearer token is verified here (`agora_auth`'s
//! verifier: RS256 or ES256, issuer, audience, expiry, not-before) and its caller, or the
//! reason it has none, goes in the request's extensions (`agora_http::access::Identity`) for the
//! services' routes to answer (401) or check (403). A WebSocket upgrade may carry its token as
//! the `access_token` query parameter instead (a browser cannot set a WebSocket's headers).
//!
//! With no key source, authentication is off: the server says once at start-up that it trusts
//! the ids in requests, and puts no identity in them.

use crate::config::Config;
use crate::BoxError;
use agora_auth::verify::{Verifier, VerifierConfig};
use agora_auth::{bearer_token, AuthError, ClaimRules};
use agora_http::access::Identity;
use axum::extract::{Request, State};
use axum::http::header::{AUTHORIZATION, UPGRADE};
use axum::middleware::Next;
use axum::response::Response;
use std::borrow::Cow;
use std::sync::Arc;

/// The query parameter a WebSocket upgrade may carry its token in.
pub const TOKEN_QUERY_PARAMETER: &str = "access_token";

/// The verifier of `config`'s auth options; `None` (logged) when authentication is off.
pub async fn verifier(config: &Config) -> Result<Option<Arc<Verifier>>, BoxError> {
    let rules = ClaimRules { subject_claim: config.auth_subject_claim.clone(), admin_scope: config.auth_admin_scope.clone() };
    let settings = VerifierConfig::from_values(
        config.auth_jwks_url.as_deref(),
        config.auth_public_key_file.as_deref(),
        config.auth_issuer.as_deref(),
        config.auth_audience.as_deref(),
        rules,
    )?;
    let Some(settings) = settings else {
        tracing::warn!(
            "authentication is off (no AGORA_AUTH_JWKS_URL or AGORA_AUTH_PUBLIC_KEY_FILE): the server trusts the subject ids in requests; anyone who can reach it may act as any subject"
        );
        return Ok(None);
    };
    let verifier = Verifier::new(settings).await?;
    let settings = verifier.config();
    tracing::info!(issuer = %settings.issuer, audience = %settings.audience, subject_claim = %settings.rules.subject_claim, admin_scope = %settings.rules.admin_scope, "authentication is on: every service route needs a bearer token");
    if config.nats_intake_url.is_some() {
        tracing::warn!(
            "votes taken from NATS (vote.submit) are trusted as sent: their submitter_subject_id is not checked; restrict who may publish on the subject with the NATS server's own permissions"
        );
    }
    Ok(Some(Arc::new(verifier)))
}

/// Middleware: verifies the request's token and records who is calling.
pub async fn identify(State(verifier): State<Arc<Verifier>>, mut request: Request, next: Next) -> Response {
    let identity = match token(&request) {
        Ok(token) => match verifier.verify(&token).await {
            Ok(caller) => Identity::Caller(caller),
            Err(error) => Identity::Refused(error),
        },
        Err(error) => Identity::Refused(error),
    };
    if let Identity::Refused(error) = &identity {
        tracing::info!(path = request.uri().path(), %error, "request refused: no verified caller");
    }
    request.extensions_mut().insert(identity);
    next.run(request).await
}

/// The request's token: the `Authorization: Bearer` header, or for a WebSocket upgrade without
/// one the `access_token` query parameter (borrowed from the request: no copy per request).
fn token(request: &Request) -> Result<Cow<'_, str>, AuthError> {
    let header = request.headers().get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    let websocket = request.headers().get(UPGRADE).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket"));
    if header.is_none() && websocket {
        let query = request.uri().query().unwrap_or_default();
        if let Some((_, token)) = form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == TOKEN_QUERY_PARAMETER) {
            return Ok(token);
        }
    }
    bearer_token(header).map(Cow::Borrowed)
}
