//! Voting's OpenAPI document (feature `openapi`): [`document`] gathers the operations annotated on
//! the handlers of [`crate::routes`], the stored documents' schemas of the schema crate, the
//! schemas of [`bodies`] (what no type serializes), and the platform's error shape and bearer
//! scheme (`agora_http::openapi`).

pub mod bodies;

use agora_http::openapi::{BareError, BearerAuth};
use utoipa::OpenApi;

/// The tag of every voting operation.
pub const TAG: &str = "voting";

#[derive(OpenApi)]
#[openapi(
    info(title = "Agora voting", description = "Social choice voting (voting-1-3-5.md §3)."),
    paths(
        crate::routes::submit_task,
        crate::routes::parse_task,
        crate::routes::submit_vote,
        crate::routes::cancel_task,
        crate::routes::get_report,
        crate::routes::get_status,
        crate::routes::get_full_task_bundle,
        crate::routes::is_live_streaming_enabled,
        crate::routes::generic_query,
    ),
    components(schemas(BareError, bodies::Collection)),
    modifiers(&BearerAuth),
    security((), ("bearerAuth" = [])),
    tags((name = "voting", description = "Social choice tasks, votes and their queries (§3)."))
)]
struct Voting;

/// Voting's OpenAPI 3.1 document: every route of [`crate::PATHS`].
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = Voting::openapi();
    agora_http::openapi::prefix_operation_ids(&mut document, TAG);
    document
}

#[cfg(test)]
mod tests {
    use agora_voting_schema::{parse_create_request, Entity, Report, Vote};
    use chrono::TimeZone;
    use serde_json::{json, Map, Value};

    /// Validates `instance` against the document's schema `name`, its components beside it;
    /// the errors, none when valid.
    fn errors_of(name: &str, instance: &Value) -> Vec<String> {
        let schema = agora_http::openapi::component_schema(&super::document(), name);
        let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
        validator.iter_errors(instance).map(|e| e.to_string()).collect()
    }

    fn example_bundle() -> agora_voting_schema::TaskBundle {
        let request: Value = serde_json::from_str(include_str!("../../../../../examples/private-task.json")).expect("the example is JSON");
        parse_create_request(&request, "task_3f9c6d2e").expect("the example parses")
    }

    #[test]
    fn a_parsed_task_as_to_parsed_dict_writes_it_is_described() {
        let parsed = json!({"parsed": example_bundle().to_parsed_dict()});
        assert_eq!(errors_of("Parsed", &parsed), Vec::<String>::new());
        let mut wrong = parsed.clone();
        wrong["parsed"]["social_task"].as_object_mut().unwrap().remove("creation_time");
        wrong["parsed"]["subject_spec"]["voting_options_map"] = json!(["a list"]);
        assert_eq!(errors_of("Parsed", &wrong).len(), 2, "{:?}", errors_of("Parsed", &wrong));
    }

    #[test]
    fn a_report_as_the_evaluator_writes_it_is_described_and_so_is_the_empty_one() {
        let bundle = example_bundle();
        let at = chrono::Utc.with_ymd_and_hms(2026, 10, 22, 10, 3, 12).unwrap();
        let vote = Vote {
            vote_id: "v1".into(),
            social_task_id: bundle.task.social_task_id.clone(),
            submitter_subject_id: "agent-reviewer-01".into(),
            vote_data: json!({"selected_option": "agent-translator-01"}),
            submission_time: at,
            qualified: true,
            weight: None,
        };
        let report = Report {
            task: &bundle.task,
            subject_spec: &bundle.subject_spec,
            evaluation_spec: &bundle.evaluation_input,
            votes: std::slice::from_ref(&vote),
            winners: &["agent-translator-01".to_owned()],
            post_award_payload: &json!({"assigned": "agent-translator-01"}),
            dsl_outputs: &Map::new(),
            evaluated_at: at,
        };
        let written = serde_json::to_value(&report).unwrap();
        assert_eq!(errors_of("ReportAnswer", &written), Vec::<String>::new());
        assert_eq!(errors_of("ReportAnswer", &json!({})), Vec::<String>::new());
        let mut wrong = written.clone();
        wrong.as_object_mut().unwrap().remove("winners");
        assert!(!errors_of("ReportAnswer", &wrong).is_empty());
        // The stored documents of a generic query, each as `to_dict()` writes it.
        for doc in [bundle.task.to_dict(), bundle.subject_spec.to_dict(), bundle.evaluation_input.to_dict(), vote.to_dict()] {
            assert_eq!(errors_of("StoredDocument", &doc), Vec::<String>::new(), "{doc}");
        }
        assert!(!errors_of("StoredDocument", &json!({"vote_id": "v1"})).is_empty());
    }
}
