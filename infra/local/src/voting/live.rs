//! The live stream of §3.5 over WebSocket: an update at least every `refresh_interval` seconds,
//! at once when a vote is stored or the status changes, and a final one when the task is
//! complete. The messages are those of the AWS stream (`agora_voting_core::live::protocol`):
//! the full task bundle while it fits in a message of `MAX_MESSAGE_BYTES`, then compact updates
//! (the task, the votes since the last update, counts, and how to read the rest). The server
//! itself has no message limit; it keeps to the protocol's so that one client reads both.

use agora_voting_core::live::protocol::{error_message, parse_request, BAD_REQUEST, NOT_ENABLED};
use agora_voting_core::{ChangeListener, Voting};
use async_trait::async_trait;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use tokio::sync::broadcast;

/// Fans task changes out to the open streams.
#[derive(Clone)]
pub struct ChangeHub {
    tx: broadcast::Sender<String>,
}

impl Default for ChangeHub {
    fn default() -> Self {
        Self { tx: broadcast::channel(4096).0 }
    }
}

#[async_trait]
impl ChangeListener for ChangeHub {
    async fn task_changed(&self, social_task_id: &str) {
        // No open stream is not an error.
        let _ = self.tx.send(social_task_id.to_owned());
    }
}

#[derive(Clone)]
pub struct LiveState {
    pub voting: Arc<Voting>,
    pub hub: ChangeHub,
}

/// The stream's route. A request that is no WebSocket upgrade is refused in voting's error shape
/// (not axum's plain-text rejection), with the rejection's status (426, 400, 405).
pub async fn live_stream(ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>, State(state): State<LiveState>) -> Response {
    match ws {
        Ok(ws) => ws.on_upgrade(move |socket| serve(socket, state)),
        Err(rejection) => agora_voting_api::ApiError::with_status(
            rejection.status(),
            format!("The live stream is a WebSocket: {}", rejection.body_text()),
        )
        .into_response(),
    }
}

async fn send_error(mut socket: WebSocket, message: &str) {
    let _ = socket.send(Message::Text(error_message(message).into())).await;
    let _ = socket.send(Message::Close(None)).await;
}

async fn serve(mut socket: WebSocket, state: LiveState) {
    let first = match socket.recv().await {
        Some(Ok(Message::Text(t))) => t,
        Some(Ok(_)) => return send_error(socket, BAD_REQUEST).await,
        _ => return,
    };
    let Some(request) = parse_request(first.as_str()) else { return send_error(socket, BAD_REQUEST).await };
    let (id, every) = (request.social_task_id, request.refresh_interval);
    if !state.voting.queries().is_live_streaming_enabled(&id).await.unwrap_or(false) {
        return send_error(socket, NOT_ENABLED).await;
    }
    let mut changes = state.hub.tx.subscribe();
    let mut tick = tokio::time::interval(every);
    // The votes (by position) this connection has been sent: where a compact update starts.
    let mut votes_sent = 0;
    loop {
        let update = match state.voting.queries().live_snapshot(&id).await {
            Ok(snapshot) => snapshot.update_for(votes_sent),
            Err(e) => {
                tracing::warn!(social_task_id = %id, error = %e, "live stream stopped");
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
        };
        votes_sent = update.votes_sent;
        if socket.send(Message::Text(Utf8Bytes::from(update.message))).await.is_err() || update.complete {
            let _ = socket.send(Message::Close(None)).await;
            return;
        }
        tick.reset();
        // Wait for the next refresh, a change of this task, or the client leaving.
        loop {
            tokio::select! {
                _ = tick.tick() => break,
                changed = changes.recv() => match changed {
                    Ok(t) if t == id => break,
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                incoming = socket.recv() => match incoming {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                    Some(Ok(_)) => continue,
                },
            }
        }
    }
}
