//! The schemas of Orcade's bodies that no type of the schema crate serializes: the requests (read
//! by hand by the request parsers, `agora_orcade_schema::request`) and the answers the handlers
//! write with `json!` (a deletion, a job's evaluation). Schema-only types: never built, only
//! described.
#![allow(dead_code)]

use agora_http::enveloped;
use agora_orcade_schema::{Bid, BidJob, BidJobMode, BidJobStatus, BidTaskResult};
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Schema};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// The body of `POST /bid-jobs` (§3): a BidJob's fields (§2.1). Any other field is refused; the
/// service's own (`bid_job_created_time`, `bid_job_closes_at`) are ignored, so that a client may
/// post a whole stored job.
#[derive(ToSchema)]
pub struct CreateBidJobRequest {
    /// The client's id (at most 128 characters, no `/`, not `query` or `by-tags`); a fresh one
    /// when absent.
    bid_job_id: Option<String>,
    #[schema(value_type = Option<Object>)]
    bid_job_metadata: Option<Value>,
    #[schema(value_type = Option<Object>)]
    bid_job_description: Option<Value>,
    #[schema(value_type = Option<Object>)]
    bid_job_name: Option<Value>,
    /// A function id: `builtin:<name>`, a URL, a Lambda ARN or a registry id.
    bid_job_evaluator_id: String,
    bid_job_pqt_id: Option<String>,
    bid_job_tie_id: Option<String>,
    /// Set to the caller when authentication is on and it is absent.
    bid_job_creator_id: String,
    /// The roster: at least one subject for a closed or mixed job.
    bid_job_subject_ids: Option<Vec<String>>,
    bid_job_mode: Option<BidJobMode>,
    #[schema(minimum = 1)]
    bid_job_max_subjects: Option<i64>,
    /// Seconds.
    #[schema(minimum = 1)]
    bid_job_max_time: Option<i64>,
    /// Only `open`.
    bid_job_status: Option<BidJobStatus>,
    bid_job_created_time: Option<String>,
    bid_job_closes_at: Option<String>,
    bid_job_tags: Option<Vec<String>>,
}

/// The body of `POST /bid-jobs/{bid_job_id}/bids` (§3). `bid_job_id` (the path's wins),
/// `bid_id` and `submission_time` (the service's) are tolerated so that a client may post a
/// whole stored bid; any other field is refused.
#[derive(ToSchema)]
pub struct BidRequest {
    /// Set to the caller when authentication is on and it is absent.
    bid_subject_id: String,
    /// Without `bid_rejected` or `pqt_reason`, which only the service writes.
    #[schema(value_type = Option<Object>)]
    bid_data: Option<Value>,
    bid_job_id: Option<String>,
    bid_id: Option<String>,
    submission_time: Option<String>,
    /// Only `false`.
    is_winner: Option<bool>,
}

/// The data of a deletion: `{"deleted": true}`.
#[derive(ToSchema)]
pub struct Deleted {
    #[schema(value_type = DeletedFlag)]
    deleted: bool,
}

/// Always `true`.
pub struct DeletedFlag;

impl PartialSchema for DeletedFlag {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(utoipa::openapi::schema::Type::Boolean).enum_values(Some([true])).into()
    }
}

impl ToSchema for DeletedFlag {}

/// `match` of `GET /bid-jobs/by-tags`.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum TagMatch {
    /// Every tag (the default).
    All,
    /// At least one tag.
    Any,
}

/// What an evaluation decided (`kind`), with the evaluator's output as it came.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
pub enum DecisionKind {
    Winner,
    NoValidBids,
    Failed,
}

/// A job's recorded decision.
#[derive(ToSchema)]
pub struct Decision {
    kind: DecisionKind,
    /// `winner`: the winning subject.
    winner_subject_id: Option<String>,
    /// `winner`: the winning bid.
    bid_id: Option<String>,
    /// `winner` and `no_valid_bids`: the evaluator's output as it came.
    evaluator_output: Option<Value>,
    /// `failed`: why no bid wins.
    error: Option<String>,
}

/// A job's evaluation record (beyond §3).
#[derive(ToSchema)]
pub struct Evaluation {
    bid_job_id: String,
    decision: Decision,
    /// `decided`, then `applied` once the job shows it.
    orcade_evaluation: String,
    /// `2026-10-05T09:00:00.000000+00:00`.
    decided_at: String,
}

/// `200` of `GET /bid-jobs/{bid_job_id}/evaluation`: the record once evaluated, `null` before.
#[derive(ToSchema)]
pub struct EnvelopedEvaluation {
    #[schema(value_type = OkTrue)]
    ok: bool,
    #[schema(required = true)]
    data: Option<Evaluation>,
}

/// The envelope's `ok` of an answer: `true`.
pub struct OkTrue;

impl PartialSchema for OkTrue {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(utoipa::openapi::schema::Type::Boolean).enum_values(Some([true])).into()
    }
}

impl ToSchema for OkTrue {}

enveloped!(
    /// `{"ok": true, "data": <BidJob>}`.
    pub EnvelopedBidJob, BidJob
);
enveloped!(
    /// `{"ok": true, "data": [<BidJob>, ...]}`.
    pub EnvelopedBidJobs, [BidJob]
);
enveloped!(
    /// `{"ok": true, "data": <Bid>}`.
    pub EnvelopedBid, Bid
);
enveloped!(
    /// `{"ok": true, "data": [<Bid>, ...]}`.
    pub EnvelopedBids, [Bid]
);
enveloped!(
    /// `{"ok": true, "data": [<BidTaskResult>, ...]}`.
    pub EnvelopedBidTaskResults, [BidTaskResult]
);
enveloped!(
    /// `{"ok": true, "data": {"deleted": true}}`.
    pub EnvelopedDeleted, Deleted
);
