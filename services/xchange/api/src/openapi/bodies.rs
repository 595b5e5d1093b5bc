//! The schemas of Xchange's bodies that no type of the schema crate serializes: the requests (read
//! by hand by the request parsers, `agora_xchange_schema::request` and `patch`) and the answers
//! the handlers write with `json!` (a task's output, a deletion). Schema-only types: never built,
//! only described.
#![allow(dead_code)]

use agora_http::enveloped;
use agora_xchange_schema::{AssignmentType, ExchangeSubject, ExchangeTask, TaskStatus};
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// The body of `POST /tasks` (§3). The mode's parameters are under
/// `task_metadata.task_assignment`: direct needs `subject_id`, function `function_id`, bidding
/// `bid_job_evaluator_id`. `taski_creation_time` and `task_output` are the service's (ignored);
/// any other field is refused.
#[derive(ToSchema)]
pub struct TaskRequest {
    /// The client's id (at most 128 characters, no `/`, not `query`); a fresh UUID when absent.
    task_id: Option<String>,
    task_assignment_type: AssignmentType,
    /// The work itself: any JSON but `null`.
    task_data: Value,
    /// Only `pending`.
    task_assignment_status: Option<TaskStatus>,
    #[schema(value_type = Option<Object>)]
    task_metadata: Option<Value>,
    taski_creation_time: Option<String>,
    #[schema(value_type = Option<Object>)]
    task_output: Option<Value>,
}

/// The body of `POST /subjects` (§3): any of the five fields (`{}` is a subject with a fresh id
/// and the defaults); any other field is refused.
#[derive(ToSchema)]
pub struct SubjectRequest {
    /// The client's id (at most 128 characters, no `/`, not `query`); a fresh UUID when absent.
    /// Set to the caller when authentication is on and it is absent.
    subject_id: Option<String>,
    #[schema(value_type = Option<Object>)]
    subject_metadata: Option<Value>,
    task_evaluation_function: Option<String>,
    #[schema(value_type = Option<Object>)]
    subject_capabilities: Option<Value>,
    topics: Option<Vec<String>>,
}

/// The data of `GET /tasks/{task_id}/output`.
#[derive(ToSchema)]
pub struct TaskOutput {
    task_assignment_status: TaskStatus,
    /// The delegate's reply (or Orcade's `bid_winner` result); `error` says why a task failed.
    #[schema(value_type = Object)]
    task_output: Value,
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
        ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([true])).into()
    }
}

impl ToSchema for DeletedFlag {}

enveloped!(
    /// `{"ok": true, "data": <ExchangeTask>}`.
    pub EnvelopedExchangeTask, ExchangeTask
);
enveloped!(
    /// `{"ok": true, "data": [<ExchangeTask>, ...]}`.
    pub EnvelopedExchangeTasks, [ExchangeTask]
);
enveloped!(
    /// `{"ok": true, "data": <ExchangeSubject>}`.
    pub EnvelopedExchangeSubject, ExchangeSubject
);
enveloped!(
    /// `{"ok": true, "data": [<ExchangeSubject>, ...]}`.
    pub EnvelopedExchangeSubjects, [ExchangeSubject]
);
enveloped!(
    /// `{"ok": true, "data": <TaskOutput>}`.
    pub EnvelopedTaskOutput, TaskOutput
);
enveloped!(
    /// `{"ok": true, "data": {"deleted": true}}`.
    pub EnvelopedDeleted, Deleted
);
