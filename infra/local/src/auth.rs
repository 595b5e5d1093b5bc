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
use axum::http::header::{AUTHORIZATION, UPGRADE};
use axum::http::Request as HttpRequest;
use futures::future::{BoxFuture, Either};
use std::borrow::Cow;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::Service;

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

/// The front door's service: verifies each request's token and records who is calling before
/// the request reaches the router (so every route, and the fallback, sees it). A token seen
/// lately is answered from the verifier's verified tokens with no await (`Verifier::verified`),
/// and the request goes straight on to the router; only a token's first request (or a bad one)
/// takes the slow path, boxed. With authentication off it passes every request on untouched.
#[derive(Clone)]
pub struct Identify<S> {
    inner: S,
    verifier: Option<Arc<Verifier>>,
}

impl<S> Identify<S> {
    pub fn new(inner: S, verifier: Option<Arc<Verifier>>) -> Self {
        Identify { inner, verifier }
    }
}

impl<S, B> Service<HttpRequest<B>> for Identify<S>
where
    S: Service<HttpRequest<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Either<S::Future, BoxFuture<'static, Result<S::Response, S::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: HttpRequest<B>) -> Self::Future {
        let Some(verifier) = &self.verifier else { return Either::Left(self.inner.call(request)) };
        let token = match token(&request) {
            Ok(token) => token,
            Err(error) => {
                record(&mut request, Identity::Refused(error));
                return Either::Left(self.inner.call(request));
            }
        };
        if let Some(caller) = verifier.verified(&token) {
            record(&mut request, Identity::Caller(caller));
            return Either::Left(self.inner.call(request));
        }
        // A token not verified lately: its signature is checked (perhaps after a read of the
        // JWKS) before the request goes on, on the service made ready above.
        let (token, verifier) = (token.into_owned(), verifier.clone());
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Either::Right(Box::pin(async move {
            let identity = verifier.verify(&token).await.map_or_else(Identity::Refused, Identity::Caller);
            record(&mut request, identity);
            inner.call(request).await
        }))
    }
}

/// Puts who is calling in the request (a refusal logged: the service answers it 401).
fn record<B>(request: &mut HttpRequest<B>, identity: Identity) {
    if let Identity::Refused(error) = &identity {
        tracing::info!(path = request.uri().path(), %error, "request refused: no verified caller");
    }
    request.extensions_mut().insert(identity);
}

/// The request's token: the `Authorization: Bearer` header, or for a WebSocket upgrade without
/// one the `access_token` query parameter (borrowed from the request: no copy per request).
fn token<B>(request: &HttpRequest<B>) -> Result<Cow<'_, str>, AuthError> {
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
