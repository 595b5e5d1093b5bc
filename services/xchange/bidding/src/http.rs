//! Orcade over HTTP (`ORCADE_URL`), with the envelope of Orcade §3.
//!
//! A job's outcome, read in this order, each step only when the one before found nothing:
//!
//! 1. `GET /bid-jobs/{id}/task-results` (§3): its `bid_winner` result, the winner's (404: the
//!    job is gone).
//! 2. `GET /bid-jobs/{id}/evaluation`, Agora's own route beyond §3: the recorded decision,
//!    exact (`no_valid_bids`, `failed`, or `null` before the evaluation).
//! 3. An Orcade without that route (any 4xx: an upstream Orcade serving only §3's routes, or
//!    Agora's with the route switched off) is read from §3's routes alone: `GET /bid-jobs/{id}`
//!    (open: pending), then `GET /bid-jobs/{id}/bids` (a bid `is_winner`: its `bid_winner` is
//!    on its way, pending; none: [`BidOutcome::ClosedWithoutWinner`] with the number of bids
//!    not `bid_data.bid_rejected`, which the bidding flow reads after a grace period).
//!
//! The route is asked on every look (one request), so an Orcade that gains or loses it is read
//! right at once.

use agora_xchange_core::{BidOutcome, Bidding, BiddingError};
use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

/// Environment variable: the base URL of an external Orcade.
pub const ORCADE_URL_ENV: &str = "ORCADE_URL";

/// Orcade's HTTP API.
#[derive(Clone)]
pub struct HttpOrcade {
    base: String,
    client: reqwest::Client,
}

impl HttpOrcade {
    /// Orcade at `base` (`http://host:port`), each call limited to `timeout`.
    pub fn new(base: &str, timeout: Duration) -> Result<Self, String> {
        let base = base.trim().trim_end_matches('/').to_owned();
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!("{ORCADE_URL_ENV} must be an http(s) URL, got {base:?}"));
        }
        let client = reqwest::Client::builder().timeout(timeout).build().map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self { base, client })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// The status and the envelope of one call; Err when Orcade could not be reached.
    async fn call(&self, request: reqwest::RequestBuilder) -> Result<(u16, Value), BiddingError> {
        let response =
            request.send().await.map_err(|e| BiddingError::Unavailable(format!("Orcade at {} is unreachable: {e}", self.base)))?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|e| BiddingError::Unavailable(format!("Orcade's answer could not be read: {e}")))?;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if status >= 500 || status == 429 {
            return Err(BiddingError::Unavailable(format!("Orcade answered {status}: {}", error_of(&body))));
        }
        Ok((status, body))
    }

    async fn get(&self, path: &str) -> Result<(u16, Value), BiddingError> {
        self.call(self.client.get(format!("{}{path}", self.base))).await
    }
}

fn error_of(body: &Value) -> String {
    body.get("error").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| body.to_string())
}

/// A job id as one path segment.
fn segment(id: &str) -> String {
    id.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[async_trait]
impl Bidding for HttpOrcade {
    async fn create_job(&self, request: &Value) -> Result<(), BiddingError> {
        let (status, body) = self.call(self.client.post(format!("{}/bid-jobs", self.base)).json(request)).await?;
        match status {
            200..=299 => Ok(()),
            // The job of a repeated attempt exists already.
            409 if error_of(&body).contains("already used") => Ok(()),
            _ => Err(BiddingError::Refused(format!("HTTP {status}: {}", error_of(&body)))),
        }
    }

    async fn outcome(&self, bid_job_id: &str) -> Result<BidOutcome, BiddingError> {
        let id = segment(bid_job_id);
        let (status, body) = self.get(&format!("/bid-jobs/{id}/task-results")).await?;
        match status {
            404 => return Ok(BidOutcome::Gone),
            200..=299 => {}
            _ => return Err(BiddingError::Refused(format!("HTTP {status}: {}", error_of(&body)))),
        }
        let winner = body["data"].as_array().and_then(|results| results.iter().find(|r| r["task_type"] == "bid_winner").cloned());
        if let Some(result) = winner {
            return Ok(BidOutcome::Winner(result));
        }
        let (status, body) = self.get(&format!("/bid-jobs/{id}/evaluation")).await?;
        if !(200..=299).contains(&status) {
            tracing::debug!(bid_job_id, status, "no evaluation route: reading the job from Orcade's routes of §3");
            return self.outcome_by_spec_routes(&id).await;
        }
        let decision = &body["data"]["decision"];
        Ok(match decision["kind"].as_str() {
            Some("no_valid_bids") => BidOutcome::NoValidBids,
            Some("failed") => BidOutcome::Failed(decision["error"].as_str().unwrap_or("the evaluation failed").to_owned()),
            _ => BidOutcome::Pending,
        })
    }
}

impl HttpOrcade {
    /// A job with no `bid_winner` result, read from §3's routes alone (`id` as a path segment).
    async fn outcome_by_spec_routes(&self, id: &str) -> Result<BidOutcome, BiddingError> {
        let job = match self.get(&format!("/bid-jobs/{id}")).await? {
            (404, _) => return Ok(BidOutcome::Gone),
            (200..=299, body) => body,
            (status, body) => return Err(BiddingError::Refused(format!("HTTP {status}: {}", error_of(&body)))),
        };
        if job["data"]["bid_job_status"].as_str() != Some("closed") {
            return Ok(BidOutcome::Pending);
        }
        let bids = match self.get(&format!("/bid-jobs/{id}/bids")).await? {
            (404, _) => return Ok(BidOutcome::Gone),
            (200..=299, body) => body,
            (status, body) => return Err(BiddingError::Refused(format!("HTTP {status}: {}", error_of(&body)))),
        };
        let bids = bids["data"].as_array().map(Vec::as_slice).unwrap_or_default();
        if bids.iter().any(|b| b["is_winner"] == Value::Bool(true)) {
            // Evaluated with a winner: its bid_winner result is stored once the delegate answers.
            return Ok(BidOutcome::Pending);
        }
        let accepted_bids = bids.iter().filter(|b| b["bid_data"]["bid_rejected"] != Value::Bool(true)).count();
        Ok(BidOutcome::ClosedWithoutWinner { accepted_bids })
    }
}
