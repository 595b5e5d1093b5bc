//! §2.2 `Bid`: one subject's bid for one job. A bid the PQT refused on a closed or mixed job is
//! kept with `bid_data.bid_rejected = true` and `bid_data.pqt_reason` (§3), which only the
//! service writes.

use crate::conventions::null_as_default;
use agora_schema::time::iso;
use agora_schema::Entity;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `bid_data.bid_rejected`: `true` on a bid the PQT refused.
pub const BID_REJECTED: &str = "bid_rejected";
/// `bid_data.pqt_reason`: the PQT's reason for refusing the bid.
pub const PQT_REASON: &str = "pqt_reason";
/// The keys of `bid_data` that only the service writes.
pub const RESERVED_BID_DATA_KEYS: [&str; 2] = [BID_REJECTED, PQT_REASON];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Bid {
    pub bid_id: String,
    pub bid_job_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub bid_data: Map<String, Value>,
    pub bid_subject_id: String,
    #[serde(with = "iso")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub submission_time: DateTime<Utc>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub is_winner: bool,
}

impl Entity for Bid {}

impl Bid {
    /// Whether the PQT refused this bid (`bid_data.bid_rejected` is `true`).
    pub fn is_rejected(&self) -> bool {
        self.bid_data.get(BID_REJECTED) == Some(&Value::Bool(true))
    }

    /// The PQT's reason for refusing it, when it did.
    pub fn pqt_reason(&self) -> Option<&str> {
        self.bid_data.get(PQT_REASON).and_then(Value::as_str)
    }

    /// Marks the bid refused by the PQT, with its reason (kept so that the roster completes).
    pub fn reject(&mut self, reason: impl Into<String>) {
        self.bid_data.insert(BID_REJECTED.into(), Value::Bool(true));
        self.bid_data.insert(PQT_REASON.into(), Value::String(reason.into()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_rejected_bid_carries_its_reason() {
        let mut bid = Bid {
            bid_id: "b".into(),
            bid_job_id: "j".into(),
            bid_data: Map::new(),
            bid_subject_id: "s".into(),
            submission_time: Utc.with_ymd_and_hms(2026, 9, 9, 10, 0, 0).unwrap(),
            is_winner: false,
        };
        assert!(!bid.is_rejected());
        assert_eq!(bid.pqt_reason(), None);
        bid.reject("confidence 0.5 is below the minimum 0.8");
        assert!(bid.is_rejected());
        assert_eq!(bid.pqt_reason(), Some("confidence 0.5 is below the minimum 0.8"));
    }
}
