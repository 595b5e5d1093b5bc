//! Xchange's OpenAPI document (feature `openapi`): [`document`] gathers the operations annotated
//! on the handlers of [`crate::routes`], the stored documents' schemas of the schema crate, the
//! schemas of [`bodies`] (what no type serializes), and the platform's envelope, error shape and
//! bearer scheme (`agora_http::openapi`).

pub mod bodies;

use agora_http::openapi::{BearerAuth, EnvelopedError};
use utoipa::OpenApi;

/// The tag of every Xchange operation.
pub const TAG: &str = "xchange";

#[derive(OpenApi)]
#[openapi(
    info(title = "Agora Xchange", description = "The task exchange (xchange-1-3-5.md §3)."),
    paths(
        crate::routes::submit_task,
        crate::routes::get_task,
        crate::routes::task_output,
        crate::routes::query_tasks,
        crate::routes::create_subject,
        crate::routes::get_subject,
        crate::routes::patch_subject,
        crate::routes::delete_subject,
        crate::routes::query_subjects,
    ),
    components(schemas(EnvelopedError)),
    modifiers(&BearerAuth),
    security((), ("bearerAuth" = [])),
    tags((name = "xchange", description = "Tasks and the subjects they are assigned to (§3)."))
)]
struct Xchange;

/// Xchange's OpenAPI 3.1 document: every route of [`crate::PATHS`].
pub fn document() -> utoipa::openapi::OpenApi {
    let mut document = Xchange::openapi();
    agora_http::openapi::prefix_operation_ids(&mut document, TAG);
    document
}

#[cfg(test)]
mod tests {
    use agora_xchange_schema::{AssignmentType, Entity, ExchangeSubject, ExchangeTask, TaskStatus};
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
        let at = chrono::Utc.with_ymd_and_hms(2026, 9, 17, 10, 20, 0).unwrap();
        let task = ExchangeTask {
            task_id: "t1".into(),
            task_assignment_type: AssignmentType::Direct,
            task_data: json!("translate this"),
            task_assignment_status: TaskStatus::Completed,
            task_metadata: Map::new(),
            taski_creation_time: Some(at),
            task_output: Map::new(),
        };
        let subject = ExchangeSubject { subject_id: "s1".into(), topics: vec!["nlp".into()], ..ExchangeSubject::default() };
        assert_eq!(errors_of("ExchangeTask", &task.to_dict()), Vec::<String>::new());
        assert_eq!(errors_of("ExchangeSubject", &subject.to_dict()), Vec::<String>::new());
        // A raw PATCH may store `null` in a subject's fields, and fields it does not define.
        let mut patched = subject.to_dict();
        patched["subject_capabilities"] = Value::Null;
        patched["colour"] = json!("blue");
        assert_eq!(errors_of("EnvelopedExchangeSubject", &json!({"ok": true, "data": patched})), Vec::<String>::new());
        let mut wrong = task.to_dict();
        wrong["task_assignment_status"] = json!("done");
        assert_eq!(errors_of("ExchangeTask", &wrong).len(), 1);
        let output = json!({"ok": true, "data": {"task_assignment_status": "failed", "task_output": {"error": "no subject"}}});
        assert_eq!(errors_of("EnvelopedTaskOutput", &output), Vec::<String>::new());
    }
}
