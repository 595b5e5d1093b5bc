//! Orcade's OpenAPI document (feature `openapi`): [`document`] gathers the operations annotated
//! on the handlers of [`crate::routes`], the stored documents' schemas of the schema crate, the
//! schemas of [`bodies`] (what no type serializes), and the platform's envelope, error shape and
//! bearer scheme (`agora_http::openapi`).

pub mod bodies;

use agora_http::openapi::{BearerAuth, EnvelopedError};
use utoipa::OpenApi;

/// The tag of every Orcade operation.
pub const TAG: &str = "orcade";

#[derive(OpenApi)]
#[openapi(
    info(title = "Agora Orcade", description = "Bidding (orcade-1-3-5.md §3)."),
    paths(
        crate::routes::create_job,
        crate::routes::close_job,
        crate::routes::get_job,
        crate::routes::patch_job,
        crate::routes::delete_job,
        crate::routes::jobs_by_tags,
        crate::routes::submit_bid,
        crate::routes::bids_of_job,
        crate::routes::get_bid,
        crate::routes::patch_bid,
        crate::routes::delete_bid,
        crate::routes::task_results_of_job,
        crate::routes::evaluation_of_job,
        crate::routes::query_jobs,
        crate::routes::query_bids,
        crate::routes::query_task_results,
    ),
    components(schemas(EnvelopedError, bodies::TagMatch)),
    modifiers(&BearerAuth),
    security((), ("bearerAuth" = [])),
    tags((name = "orcade", description = "Bid jobs, bids and their task results (§3)."))
)]
struct Orcade;

/// Orcade's OpenAPI 3.1 document: every route of [`crate::PATHS`].
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = Orcade::openapi();
    agora_http::openapi::prefix_operation_ids(&mut document, TAG);
    document
}

#[cfg(test)]
mod tests {
    use agora_orcade_schema::{Bid, BidJob, BidJobMode, BidJobStatus, BidTaskResult, Entity, TaskType};
    use chrono::TimeZone;
    use serde_json::{json, Map, Value};

    /// Validates `instance` against the document's schema `name`, its components beside it;
    /// the errors, none when valid.
    fn errors_of(name: &str, instance: &Value) -> Vec<String> {
        let schema = agora_http::openapi::component_schema(&super::document(), name);
        let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
        validator.iter_errors(instance).map(|e| e.to_string()).collect()
    }

    #[test]
    fn the_stored_documents_as_to_dict_writes_them_are_described() {
        let at = chrono::Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap();
        let job = BidJob {
            bid_job_id: "j1".into(),
            bid_job_metadata: Map::new(),
            bid_job_description: Map::new(),
            bid_job_name: Map::new(),
            bid_job_evaluator_id: "builtin:highest-bid".into(),
            bid_job_pqt_id: String::new(),
            bid_job_tie_id: String::new(),
            bid_job_creator_id: "creator".into(),
            bid_job_subject_ids: vec!["s1".into()],
            bid_job_mode: BidJobMode::Closed,
            bid_job_max_subjects: None,
            bid_job_max_time: Some(60),
            bid_job_status: BidJobStatus::Open,
            bid_job_created_time: at,
            bid_job_closes_at: None,
            bid_job_tags: vec!["nlp".into()],
        };
        let bid = Bid {
            bid_id: "b1".into(),
            bid_job_id: "j1".into(),
            bid_data: Map::new(),
            bid_subject_id: "s1".into(),
            submission_time: at,
            is_winner: false,
        };
        let result = BidTaskResult {
            bid_task_result_id: "r1".into(),
            bid_job_id: "j1".into(),
            bid_subject_id: "s1".into(),
            task_type: TaskType::BidWinner,
            task_result: BidTaskResult::failure_result("down"),
            created_time: at,
            evaluator_output: Some(json!(["any", "JSON"])),
        };
        for (name, doc) in [("BidJob", job.to_dict()), ("Bid", bid.to_dict()), ("BidTaskResult", result.to_dict())] {
            assert_eq!(errors_of(name, &doc), Vec::<String>::new(), "{name}: {doc}");
        }
        let enveloped = json!({"ok": true, "data": [job.to_dict()]});
        assert_eq!(errors_of("EnvelopedBidJobs", &enveloped), Vec::<String>::new());
        let mut wrong = job.to_dict();
        wrong["bid_job_status"] = json!("evaluating");
        wrong.as_object_mut().unwrap().remove("bid_job_closes_at");
        assert_eq!(errors_of("BidJob", &wrong).len(), 2);
        assert!(!errors_of("EnvelopedBidJob", &json!({"ok": false, "data": job.to_dict()})).is_empty());
    }

    #[test]
    fn an_evaluation_record_is_described_and_null_before_it() {
        let record = json!({"bid_job_id": "j1", "decision": {"kind": "winner", "winner_subject_id": "s1", "bid_id": "b1", "evaluator_output": {}}, "orcade_evaluation": "applied", "decided_at": "2026-10-05T09:00:00.000000+00:00"});
        assert_eq!(errors_of("EnvelopedEvaluation", &json!({"ok": true, "data": record})), Vec::<String>::new());
        assert_eq!(errors_of("EnvelopedEvaluation", &json!({"ok": true, "data": null})), Vec::<String>::new());
        assert!(!errors_of("EnvelopedEvaluation", &json!({"ok": true, "data": {"decision": {"kind": "won"}}})).is_empty());
    }
}
