//! The live stream on AWS (§3.5): `live-stream` serves the WebSocket API's routes (`$connect`,
//! `$disconnect`, and every client message on `$default`, a subscribe request), `live-push`
//! consumes the live queue (changes to push now, refreshes due). Both are thin: the stream
//! itself is [`agora_voting_core::live::LiveStreams`], whose messages keep within API Gateway's
//! 128 KB (full updates while the task's bundle fits, compact ones after: see
//! [`agora_voting_core::live::protocol`]).
//!
//! With authentication on, `$connect` accepts the tokens the HTTP API's JWT authorizer accepts,
//! no more: RSA-signed ones (RS256, RS384, RS512; [`CONNECT_ALGORITHMS`]), so that a token works
//! at both doors or at neither.

use agora_auth::verify::{Algorithms, Verifier};
use agora_auth::{AuthError, Caller};
use agora_voting_core::live::{LiveMessage, LiveStreams, Refreshed};
use aws_lambda_events::event::apigw::{ApiGatewayProxyResponse, ApiGatewayWebsocketProxyRequest};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use futures::future::join_all;
use std::collections::HashMap;
use std::sync::Arc;

/// The query parameter a `$connect` carries its token in.
pub const TOKEN_QUERY_PARAMETER: &str = "access_token";

/// The token algorithms `$connect` accepts with `AGORA_AUTH=jwt-authorizer`: those of the HTTP
/// API's JWT authorizer, which AWS documents as validating RSA-based algorithms only.
pub const CONNECT_ALGORITHMS: Algorithms = Algorithms::Rsa;

/// `voting-live-stream`'s token verifier ([`crate::wiring::live_verifier_from_env`]: with
/// `AGORA_AUTH` on, which is `jwt-authorizer`), accepting [`CONNECT_ALGORITHMS`] only.
pub async fn connect_verifier_from_env() -> Result<Option<Verifier>, agora_runtime::BoxError> {
    let verifier = crate::wiring::live_verifier_from_env().await?;
    Ok(verifier.map(|v| v.with_algorithms(CONNECT_ALGORITHMS)))
}

fn status(code: i64) -> ApiGatewayProxyResponse {
    let mut response = ApiGatewayProxyResponse::default();
    response.status_code = code;
    response
}

/// One WebSocket route event. Answers 200, or 500 when the store or the queue failed (API
/// Gateway then tells the client of an internal error). With a `verifier` (authentication on:
/// API Gateway's WebSocket APIs have no JWT authorizer, so the function verifies the token
/// itself), `$connect` needs a token, in the `access_token` query parameter (a browser cannot
/// set a WebSocket's headers) or an `Authorization: Bearer` header; without one that verifies,
/// the connection is refused with 401.
pub async fn handle_websocket(
    streams: &LiveStreams,
    verifier: Option<&Verifier>,
    event: ApiGatewayWebsocketProxyRequest,
) -> ApiGatewayProxyResponse {
    let context = &event.request_context;
    let Some(connection_id) = context.connection_id.as_deref() else {
        tracing::error!(route = ?context.route_key, "WebSocket event without a connection id");
        return status(400);
    };
    let route = context.route_key.as_deref().unwrap_or("$default");
    let result = match route {
        "$connect" => match verifier {
            Some(verifier) => match connecting_caller(verifier, &event).await {
                Ok(caller) => {
                    tracing::info!(connection_id, subject = %caller.subject, "live-stream connection");
                    Ok(())
                }
                Err(error) => {
                    tracing::info!(connection_id, %error, "live-stream connection refused");
                    return status(401);
                }
            },
            None => Ok(()),
        },
        "$disconnect" => streams.disconnect(connection_id).await,
        _ => {
            // A binary frame is not a request of §3.5: it is answered as a malformed one.
            let text = if event.is_base64_encoded { "" } else { event.body.as_deref().unwrap_or_default() };
            streams.subscribe(connection_id, text).await.map(|outcome| tracing::info!(connection_id, ?outcome, "live-stream request"))
        }
    };
    match result {
        Ok(()) => status(200),
        Err(e) => {
            tracing::error!(connection_id, route, error = %e, "live-stream route failed");
            status(500)
        }
    }
}

/// The caller of a `$connect`: the token of its `access_token` query parameter, else of its
/// `Authorization` header.
async fn connecting_caller(verifier: &Verifier, event: &ApiGatewayWebsocketProxyRequest) -> Result<Arc<Caller>, AuthError> {
    if let Some(token) = event.query_string_parameters.first(TOKEN_QUERY_PARAMETER) {
        return verifier.verify(token).await;
    }
    let header = event.headers.get("authorization").map(|v| v.to_str().unwrap_or("\u{0}"));
    verifier.caller_of_header(header).await
}

/// A batch of live-queue records. Each task's change is pushed once however many records
/// carry it; a record whose work failed is reported, so SQS delivers it (alone) again.
pub async fn handle_batch(streams: &LiveStreams, event: SqsEvent) -> SqsBatchResponse {
    let mut changed: HashMap<String, Vec<String>> = HashMap::new();
    let mut refreshes = Vec::new();
    for record in &event.records {
        let message_id = record.message_id.clone().unwrap_or_default();
        match LiveMessage::parse(record.body.as_deref().unwrap_or_default()) {
            Ok(LiveMessage::Changed { social_task_id }) => changed.entry(social_task_id).or_default().push(message_id),
            Ok(LiveMessage::Refresh { connection_id, token, seq }) => refreshes.push((message_id, connection_id, token, seq)),
            // Delivering it again would only fail again.
            Err(reason) => tracing::error!(%message_id, %reason, "live-queue message dropped"),
        }
    }
    let pushes = join_all(changed.keys().map(|id| streams.push_change(id)));
    let refreshed = join_all(refreshes.iter().map(|(_, c, t, s)| streams.refresh(c, t, *s)));
    let (pushes, refreshed) = futures::join!(pushes, refreshed);

    let mut failed = Vec::new();
    for ((id, messages), result) in changed.iter().zip(pushes) {
        if let Err(e) = result {
            tracing::warn!(social_task_id = %id, error = %e, "live change not pushed; will be redelivered");
            failed.extend(messages.iter().cloned());
        }
    }
    for ((message_id, connection_id, ..), result) in refreshes.iter().zip(refreshed) {
        match result {
            Ok(Refreshed::Sent | Refreshed::Stale) => {}
            Ok(Refreshed::Ended) => tracing::info!(connection_id, "live stream ended"),
            Err(e) => {
                tracing::warn!(connection_id, error = %e, "live refresh failed; will be redelivered");
                failed.push(message_id.clone());
            }
        }
    }
    agora_runtime::lambda::batch_response(failed)
}
