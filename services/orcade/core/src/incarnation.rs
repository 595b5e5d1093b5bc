//! A job's incarnation: its id and its creation time. Ids may be chosen by the client, so a job
//! deleted and created again under the same id is a new job; every internal record of a job
//! (its bid counter and fence, the evaluation's record and claims, the deliveries' marks) is
//! keyed by the incarnation, never by the id alone. A re-created job therefore starts clean
//! whatever the deleted one left behind, and a worker still busy with the deleted one (a bid
//! that read it before the delete, an evaluation or delivery in flight) writes only under the
//! deleted incarnation's keys, where nothing reads.

use agora_orcade_schema::BidJob;
use serde::{Deserialize, Serialize};
use std::fmt;

/// `<bid_job_id>@<bid_job_created_time in microseconds since the epoch>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct JobKey(String);

impl JobKey {
    pub fn of(job: &BidJob) -> JobKey {
        JobKey(format!("{}@{}", job.bid_job_id, job.bid_job_created_time.timestamp_micros()))
    }
}

impl fmt::Display for JobKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone, Utc};

    #[test]
    fn a_job_created_again_under_its_id_is_another_incarnation() {
        let at = Utc.with_ymd_and_hms(2026, 12, 7, 9, 0, 0).unwrap();
        let job = |created| {
            serde_json::from_value::<BidJob>(serde_json::json!({
                "bid_job_id": "j", "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "c",
                "bid_job_created_time": agora_orcade_schema::time::format_utc_micros(&created),
            }))
            .unwrap()
        };
        assert_eq!(JobKey::of(&job(at)).to_string(), format!("j@{}", at.timestamp_micros()));
        assert_eq!(JobKey::of(&job(at)), JobKey::of(&job(at)));
        assert_ne!(JobKey::of(&job(at)), JobKey::of(&job(at + Duration::microseconds(1))));
    }
}
