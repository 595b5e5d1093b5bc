//! The live stream served through a connection gateway (API Gateway WebSocket in AWS), where no
//! process holds a connection open: each connection's subscription is a document, each refresh
//! a delayed message on the live queue, each change of a task a message that pushes one update
//! to every subscription of that task.
//!
//! A refresh message carries the subscription's `token` (new on every subscribe, so a client
//! that subscribes again ends its earlier chain) and `seq`; handling it first moves the stored
//! `seq` on with a conditional write, so a message the queue delivers twice is handled once and
//! every connection has exactly one refresh chain.
//!
//! Every message keeps within API Gateway's limit ([`super::protocol`]: full updates while the
//! bundle fits, compact ones after); a subscription records how many votes its connection has
//! been sent (`votes_sent`), so that a compact update carries the changes since the last one.
//! A message API Gateway does not take ends the stream: 410 Gone (the client left) forgets the
//! subscription; any other failure (after the SDK's retries) also closes the connection
//! (`@connections` DELETE), so a client is never left open and silent.

use super::protocol::{error_message, parse_request, LiveSnapshot, BAD_REQUEST, NOT_ENABLED};
use super::LiveMessage;
use crate::error::VotingError;
use crate::flows::query::Queries;
use crate::ports::{Clock, ConnectionGateway, GatewayError, WorkQueue};
use crate::repo::Repo;
use crate::storage::LIVE_SUBSCRIPTIONS;
use agora_filter::Filter;
use agora_store::{to_json, Change, DocumentStore, StoreError};
use agora_voting_schema::time::format_datetime;
use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How long a subscription lives: API Gateway closes a WebSocket connection after two hours,
/// and a subscription whose `$disconnect` was lost is dropped by its next refresh after that.
pub const SUBSCRIPTION_LIFETIME: chrono::Duration = chrono::Duration::hours(2);

/// A connection's subscription, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Subscription {
    pub connection_id: String,
    pub social_task_id: String,
    /// Seconds.
    pub refresh_interval: f64,
    pub token: String,
    pub seq: u64,
    pub subscribed_at: String,
    pub expires_at: String,
    /// How many votes (by position, see [`super::protocol`]) the connection has been sent: where
    /// its next compact update starts.
    #[serde(default)]
    pub votes_sent: u64,
}

/// What a client's message led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscribed {
    /// The first update was sent and refreshes are scheduled.
    Streaming,
    /// The task was already complete: its final update was sent and the connection closed.
    Finished,
    /// The request was refused with this error message, and the connection closed.
    Refused(&'static str),
    /// The client left before its first update.
    Gone,
    /// The first update could not be sent: the connection was closed.
    Failed,
}

/// What sending one update to one connection led to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivered {
    /// Sent; the stream goes on.
    Sent,
    /// The final update was sent, the connection closed and the subscription removed.
    Final,
    /// The client had left (410 Gone): the subscription is removed.
    Gone,
    /// API Gateway did not take the message: the connection is closed and the subscription
    /// removed.
    Failed,
}

/// What a refresh message led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// Update sent, next refresh scheduled.
    Sent,
    /// The subscription is gone, replaced, or this message was handled before.
    Stale,
    /// The client left, the task completed, or the subscription expired: it is removed.
    Ended,
}

/// The live stream over a [`ConnectionGateway`] and a [`WorkQueue`] (the live queue).
#[derive(Clone)]
pub struct LiveStreams {
    queries: Queries,
    store: Arc<dyn DocumentStore>,
    clock: Arc<dyn Clock>,
    gateway: Arc<dyn ConnectionGateway>,
    queue: Arc<dyn WorkQueue>,
}

impl LiveStreams {
    /// The live stream over `store` (the tasks it streams, and its subscriptions).
    pub fn new(
        store: Arc<dyn DocumentStore>,
        clock: Arc<dyn Clock>,
        gateway: Arc<dyn ConnectionGateway>,
        queue: Arc<dyn WorkQueue>,
    ) -> Self {
        Self { queries: Queries::new(Repo::new(store.clone())), store, clock, gateway, queue }
    }

    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// A message from a client: a request of §3.5. A later request on the same connection
    /// replaces the earlier one.
    #[tracing::instrument(skip_all, fields(connection_id = connection_id, social_task_id = tracing::field::Empty))]
    pub async fn subscribe(&self, connection_id: &str, text: &str) -> Result<Subscribed, VotingError> {
        let Some(request) = parse_request(text) else { return self.refuse(connection_id, BAD_REQUEST).await };
        let id = &request.social_task_id;
        tracing::Span::current().record("social_task_id", id.as_str());
        if !self.queries.is_live_streaming_enabled(id).await.or_else(not_found_is_false)? {
            return self.refuse(connection_id, NOT_ENABLED).await;
        }
        let now = self.now();
        let sub = Subscription {
            connection_id: connection_id.to_owned(),
            social_task_id: id.clone(),
            refresh_interval: request.refresh_interval.as_secs_f64(),
            token: uuid::Uuid::new_v4().simple().to_string(),
            seq: 0,
            subscribed_at: format_datetime(&now),
            expires_at: format_datetime(&(now + SUBSCRIPTION_LIFETIME)),
            votes_sent: 0,
        };
        self.store_subscription(&sub).await?;
        let snapshot = self.queries.live_snapshot(id).await?;
        match self.deliver(&sub, &snapshot).await? {
            Delivered::Sent => {}
            Delivered::Final => return Ok(Subscribed::Finished),
            Delivered::Gone => return Ok(Subscribed::Gone),
            Delivered::Failed => return Ok(Subscribed::Failed),
        }
        let next = LiveMessage::Refresh { connection_id: sub.connection_id.clone(), token: sub.token.clone(), seq: 0 };
        self.queue
            .send(connection_id, &next.to_body(), request.refresh_interval)
            .await
            .map_err(|e| VotingError::internal_caused("the first refresh could not be queued", e))?;
        tracing::info!(refresh_interval = sub.refresh_interval, "live stream subscribed");
        Ok(Subscribed::Streaming)
    }

    /// The client left.
    #[tracing::instrument(skip_all, fields(connection_id = connection_id))]
    pub async fn disconnect(&self, connection_id: &str) -> Result<(), VotingError> {
        self.forget(connection_id).await
    }

    /// Pushes one update to every subscription of the task. Returns how many were sent.
    #[tracing::instrument(skip_all, fields(social_task_id = social_task_id))]
    pub async fn push_change(&self, social_task_id: &str) -> Result<usize, VotingError> {
        let filter = Filter::must(json!({ "social_task_id": social_task_id }));
        let subs = self.store.find(LIVE_SUBSCRIPTIONS, &filter).await?;
        if subs.is_empty() {
            return Ok(0);
        }
        let snapshot = self.queries.live_snapshot(social_task_id).await?;
        let subs: Vec<Subscription> = crate::repo::decode_all(&subs)?;
        let sent = join_all(subs.iter().map(|s| self.deliver(s, &snapshot))).await;
        let mut delivered = 0;
        for (sub, result) in subs.iter().zip(sent) {
            match result {
                Ok(Delivered::Sent | Delivered::Final) => delivered += 1,
                Ok(Delivered::Gone | Delivered::Failed) => {}
                Err(e) => tracing::warn!(connection_id = %sub.connection_id, error = %e, "live update not pushed"),
            }
        }
        tracing::debug!(subscriptions = subs.len(), delivered, complete = snapshot.complete(), "live change pushed");
        Ok(delivered)
    }

    /// A refresh message: sends the subscription's update and schedules the next refresh.
    #[tracing::instrument(skip_all, fields(connection_id = connection_id))]
    pub async fn refresh(&self, connection_id: &str, token: &str, seq: u64) -> Result<Refreshed, VotingError> {
        let store = &self.store;
        let Some(doc) = store.get(LIVE_SUBSCRIPTIONS, connection_id).await? else { return Ok(Refreshed::Stale) };
        let sub: Subscription = serde_json::from_str(doc.get())?;
        let mine = |seq: u64| Filter::must(json!({ "token": token, "seq": seq }));
        if sub.token != token
            || !store.update(LIVE_SUBSCRIPTIONS, connection_id, &mine(seq), &Change::set(&json!({ "seq": seq + 1 }))).await?
        {
            return Ok(Refreshed::Stale);
        }
        if sub.expires_at.as_str() <= format_datetime(&self.now()).as_str() {
            tracing::info!("live stream subscription expired");
            self.close(connection_id).await;
            self.forget(connection_id).await?;
            return Ok(Refreshed::Ended);
        }
        let snapshot = self.queries.live_snapshot(&sub.social_task_id).await?;
        if self.deliver(&sub, &snapshot).await? != Delivered::Sent {
            return Ok(Refreshed::Ended);
        }
        let next = LiveMessage::Refresh { connection_id: connection_id.to_owned(), token: token.to_owned(), seq: seq + 1 };
        let every = Duration::from_secs_f64(sub.refresh_interval);
        if let Err(e) = self.queue.send(connection_id, &next.to_body(), every).await {
            // Give this message's turn back, so that its redelivery can schedule the chain again.
            store.update(LIVE_SUBSCRIPTIONS, connection_id, &mine(seq + 1), &Change::set(&json!({ "seq": seq }))).await?;
            return Err(VotingError::internal_caused("the next refresh could not be queued", e));
        }
        Ok(Refreshed::Sent)
    }

    /// Sends `sub`'s connection its update of `snapshot`, and records the votes it was sent.
    /// The final update, a client gone and a message API Gateway did not take each end the
    /// stream: the connection is closed (unless gone) and the subscription removed. Err only
    /// when the subscription could not be removed.
    async fn deliver(&self, sub: &Subscription, snapshot: &LiveSnapshot) -> Result<Delivered, VotingError> {
        let connection_id = sub.connection_id.as_str();
        let update = snapshot.update_for(usize::try_from(sub.votes_sent).unwrap_or(usize::MAX));
        let delivered = match self.gateway.send(connection_id, &update.message).await {
            Ok(()) if update.complete => Delivered::Final,
            Ok(()) => {
                let votes_sent = update.votes_sent as u64;
                if votes_sent != sub.votes_sent {
                    // Only this subscription (a newer request on the connection starts again).
                    let mine = Filter::must(json!({ "token": sub.token }));
                    let change = Change::set(&json!({ "votes_sent": votes_sent }));
                    if let Err(e) = self.store.update(LIVE_SUBSCRIPTIONS, connection_id, &mine, &change).await {
                        // The next update starts where this one did: votes sent again, none lost.
                        tracing::warn!(connection_id, error = %e, "live stream's votes sent not recorded");
                    }
                }
                return Ok(Delivered::Sent);
            }
            Err(GatewayError::Gone(_)) => {
                self.forget(connection_id).await?;
                return Ok(Delivered::Gone);
            }
            Err(e) => {
                tracing::warn!(connection_id, bytes = update.message.len(), error = %e, "live update not taken by the gateway; the connection is closed");
                Delivered::Failed
            }
        };
        self.close(connection_id).await;
        self.forget(connection_id).await?;
        Ok(delivered)
    }

    /// Refuses a client's request (in [`Self::subscribe`]'s span, which names the connection).
    async fn refuse(&self, connection_id: &str, message: &'static str) -> Result<Subscribed, VotingError> {
        match self.gateway.send(connection_id, &error_message(message)).await {
            Ok(()) | Err(GatewayError::Gone(_)) => {}
            Err(e) => tracing::warn!(error = %e, "live-stream refusal not sent"),
        }
        self.close(connection_id).await;
        // A refused request also ends an earlier subscription of this connection.
        self.forget(connection_id).await?;
        Ok(Subscribed::Refused(message))
    }

    /// Closes a connection; one already gone is closed.
    async fn close(&self, connection_id: &str) {
        match self.gateway.close(connection_id).await {
            Ok(()) | Err(GatewayError::Gone(_)) => {}
            Err(e) => tracing::warn!(connection_id, error = %e, "live-stream connection not closed"),
        }
    }

    async fn forget(&self, connection_id: &str) -> Result<(), VotingError> {
        self.store.delete(LIVE_SUBSCRIPTIONS, connection_id, &Filter::all()).await?;
        Ok(())
    }

    /// Stores `sub`, replacing the connection's earlier subscription.
    async fn store_subscription(&self, sub: &Subscription) -> Result<(), VotingError> {
        let store = &self.store;
        let doc = to_json(sub);
        let mut fields = serde_json::to_value(sub)?;
        fields.as_object_mut().map(|f| f.remove("connection_id"));
        let fields = Change::set(&fields);
        for _ in 0..3 {
            if store.update(LIVE_SUBSCRIPTIONS, &sub.connection_id, &Filter::all(), &fields).await? {
                return Ok(());
            }
            match store.insert(vec![(LIVE_SUBSCRIPTIONS, doc.clone())]).await {
                Ok(()) => return Ok(()),
                // A request on the same connection stored one meanwhile: replace it.
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(VotingError::internal(format!("subscription of {} could not be stored", sub.connection_id)))
    }
}

fn not_found_is_false(e: VotingError) -> Result<bool, VotingError> {
    match e {
        VotingError::UnknownTask => Ok(false),
        e => Err(e),
    }
}
