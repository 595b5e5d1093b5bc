//! The live stream of §3.5 over WebSocket: a full task bundle at least every
//! `refresh_interval` seconds, at once when a vote is stored or the status changes, and a final
//! one when the task is complete.

use agora_core::{ChangeListener, Voting};
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::State;
use axum::response::Response;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

const NOT_ENABLED: &str = "Live streaming not enabled for this task";
const BAD_REQUEST: &str = "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'";

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

impl ChangeListener for ChangeHub {
    fn task_changed(&self, social_task_id: &str) {
        // No open stream is not an error.
        let _ = self.tx.send(social_task_id.to_owned());
    }
}

#[derive(Clone)]
pub struct LiveState {
    pub voting: Arc<Voting>,
    pub hub: ChangeHub,
}

pub async fn live_stream(ws: WebSocketUpgrade, State(state): State<LiveState>) -> Response {
    ws.on_upgrade(move |socket| serve(socket, state))
}

/// Reads the first message: `{"social_task_id": "...", "refresh_interval": seconds}`.
fn parse_request(text: &str) -> Option<(String, Duration)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let id = v.get("social_task_id")?.as_str()?.to_owned();
    let secs = v.get("refresh_interval")?.as_f64().filter(|s| s.is_finite() && *s > 0.0)?;
    Some((id, Duration::from_secs_f64(secs.clamp(0.05, 3600.0))))
}

async fn send_error(mut socket: WebSocket, message: &str) {
    let _ = socket.send(Message::Text(json!({ "error": message }).to_string().into())).await;
    let _ = socket.send(Message::Close(None)).await;
}

async fn serve(mut socket: WebSocket, state: LiveState) {
    let first = match socket.recv().await {
        Some(Ok(Message::Text(t))) => t,
        Some(Ok(_)) => return send_error(socket, BAD_REQUEST).await,
        _ => return,
    };
    let Some((id, every)) = parse_request(first.as_str()) else { return send_error(socket, BAD_REQUEST).await };
    if !state.voting.is_live_streaming_enabled(&id).await.unwrap_or(false) {
        return send_error(socket, NOT_ENABLED).await;
    }
    let mut changes = state.hub.tx.subscribe();
    let mut tick = tokio::time::interval(every);
    loop {
        let bundle = match state.voting.get_full_task_bundle(&id).await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(social_task_id = %id, error = %e, "live stream stopped");
                return;
            }
        };
        let complete = state.voting.get_status(&id).await.ok().and_then(|s| s["status"].as_str().map(str::to_owned))
            == Some(agora_schema::status::COMPLETE.to_owned());
        let update = format!(r#"{{"type":"update","data":{}}}"#, bundle.get());
        if socket.send(Message::Text(Utf8Bytes::from(update))).await.is_err() || complete {
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
