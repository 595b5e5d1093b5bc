//! The schemas of voting's bodies that no type of the schema crate serializes: the requests (read
//! by hand by the request parser, `agora_voting_schema::request`) and the answers the handlers
//! write with `json!` or by hand (`TaskBundle::to_parsed_dict`, the report, the full bundle).
//! Schema-only types: never built, only described.
#![allow(dead_code)]

use agora_voting_schema::{SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, Vote};
use serde_json::Value;
use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// `social_task` of a create request, in the request keys of §2.1.
#[derive(ToSchema)]
pub struct SocialTaskRequest {
    created_by_subject_id: String,
    #[schema(value_type = Object)]
    created_by_subject_data: Value,
    org_ids: Vec<String>,
    /// `private`, `public`, or any other value (which takes votes from anyone and never triggers).
    access_type: String,
    #[schema(value_type = Object)]
    goal: Value,
    topics: Vec<String>,
    #[schema(value_type = Object)]
    properties: Value,
    /// ISO-8601; without an offset it is UTC.
    creation_time: String,
    /// ISO-8601; without an offset it is UTC. The task starts at this time when `status` is `scheduled`.
    scheduled_time: Option<String>,
    /// Qualified votes that trigger a public task (default 5).
    #[schema(minimum = 1)]
    duration: Option<i64>,
    status: Option<String>,
    #[schema(value_type = Option<Object>)]
    report: Option<Value>,
    enable_live_streaming: Option<bool>,
}

/// `subject_spec` of a create request, in the request keys of §2.2.
#[derive(ToSchema)]
pub struct SubjectSpecRequest {
    title: String,
    description: String,
    /// At least one option, keyed by option id.
    #[schema(value_type = Object)]
    voting_options: Value,
    #[schema(value_type = Object)]
    voting_metadata: Value,
    supported_protocols: Vec<String>,
    /// A function spec (§2.5); `{}`: none.
    #[schema(value_type = Object)]
    voting_request: Value,
}

/// `evaluation_spec` of a create request, in the request keys of §2.3. Each hook is a function
/// spec (§2.5): `{"mode": "builtin", "name": ...}`, `{"mode": "http", "url": ...}`, ...; `{}`: none.
#[derive(ToSchema)]
pub struct EvaluationSpecRequest {
    constraints_primary: String,
    constraints_secondary: String,
    #[schema(value_type = Object)]
    voting_pqt: Value,
    #[schema(value_type = Object)]
    evaluation: Value,
    #[schema(value_type = Object)]
    tie_breaker: Value,
    #[schema(value_type = Object)]
    post_award: Value,
}

/// The body of `POST /submit-social-choice-task` and `POST /parse-social-choice-task` (§3.1).
#[derive(ToSchema)]
pub struct CreateTaskRequest {
    social_task: SocialTaskRequest,
    subject_spec: SubjectSpecRequest,
    evaluation_spec: EvaluationSpecRequest,
}

/// The body of `POST /submit-vote` (§3.3): all six keys. The server overwrites
/// `submission_time` and `qualified`.
#[derive(ToSchema)]
pub struct VoteRequest {
    vote_id: String,
    social_task_id: String,
    submitter_subject_id: String,
    #[schema(value_type = Object)]
    vote_data: Value,
    submission_time: String,
    qualified: bool,
}

/// `201` of `POST /submit-social-choice-task`.
#[derive(ToSchema)]
pub struct TaskCreated {
    /// `task_` and 8 lowercase hex characters.
    social_task_id: String,
}

/// `200` of `POST /cancel-social-task/{social_task_id}`.
#[derive(ToSchema)]
pub struct TaskCancelled {
    social_task_id: String,
    /// `cancelled`.
    status: String,
}

/// The three documents of a task as `to_parsed_dict()` writes them, with the stored field names.
#[derive(ToSchema)]
pub struct ParsedTask {
    social_task: SocialTaskCoreData,
    subject_spec: SocialChoiceSubjectSpecInput,
    evaluation_spec: SocialChoiceEvaluationInput,
}

/// `200` of `POST /parse-social-choice-task`: nothing is stored.
#[derive(ToSchema)]
pub struct Parsed {
    parsed: ParsedTask,
}

/// `200` of `POST /submit-vote` (a retry of a stored vote too).
#[derive(ToSchema)]
pub struct VoteAccepted {
    #[schema(value_type = VoteAcceptedStatus)]
    status: String,
    /// The PQT's verdict.
    qualified: bool,
}

/// The one status of an accepted vote.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum VoteAcceptedStatus {
    Accepted,
}

/// `200` of `GET /get-status/{social_task_id}`.
#[derive(ToSchema)]
pub struct TaskStatusAnswer {
    /// `null` when the task has no status.
    #[schema(value_type = Option<String>, required = true)]
    status: Option<String>,
}

/// `200` of `GET /is-live-streaming-enabled/{social_task_id}`.
#[derive(ToSchema)]
pub struct LiveStreaming {
    enabled: bool,
}

/// `report_json` (§2.6) as the evaluator writes it (`agora_voting_schema::Report`).
#[derive(ToSchema)]
pub struct Report {
    task: SocialTaskCoreData,
    subject_spec: SocialChoiceSubjectSpecInput,
    evaluation_spec: SocialChoiceEvaluationInput,
    /// The qualified votes it counted.
    votes: Vec<Vote>,
    winners: Vec<String>,
    /// The post-award hook's output, as it came.
    post_award_payload: Value,
    #[schema(value_type = Object)]
    dsl_outputs: Value,
    /// Naive UTC, ISO-8601.
    evaluated_at: String,
}

/// `200` of `GET /get-report/{social_task_id}`: the report, or `{}` before completion.
pub struct ReportAnswer;

impl PartialSchema for ReportAnswer {
    fn schema() -> RefOr<Schema> {
        let nothing_yet = ObjectBuilder::new().max_properties(Some(0)).description(Some("Before completion: `{}`."));
        AnyOfBuilder::new().item(Ref::from_schema_name(Report::name())).item(nothing_yet).into()
    }
}

impl ToSchema for ReportAnswer {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((Report::name().into(), Report::schema()));
        Report::schemas(schemas);
    }
}

/// `200` of `GET /get-full-task-bundle/{social_task_id}`: the three documents as stored and
/// every vote, qualified or not (`null` for a document missing).
#[derive(ToSchema)]
pub struct FullTaskBundle {
    task: SocialTaskCoreData,
    #[schema(required = true)]
    subject_spec: Option<SocialChoiceSubjectSpecInput>,
    #[schema(required = true)]
    evaluation_input: Option<SocialChoiceEvaluationInput>,
    votes: Vec<Vote>,
}

/// One stored document of the collection queried, as `to_dict()` writes it.
pub struct StoredDocument;

impl PartialSchema for StoredDocument {
    fn schema() -> RefOr<Schema> {
        let names = [SocialTaskCoreData::name(), SocialChoiceSubjectSpecInput::name(), SocialChoiceEvaluationInput::name(), Vote::name()];
        names.into_iter().fold(AnyOfBuilder::new(), |any, name| any.item(Ref::from_schema_name(name))).into()
    }
}

impl ToSchema for StoredDocument {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((SocialTaskCoreData::name().into(), SocialTaskCoreData::schema()));
        schemas.push((SocialChoiceSubjectSpecInput::name().into(), SocialChoiceSubjectSpecInput::schema()));
        schemas.push((SocialChoiceEvaluationInput::name().into(), SocialChoiceEvaluationInput::schema()));
        schemas.push((Vote::name().into(), Vote::schema()));
        <SocialTaskCoreData as ToSchema>::schemas(schemas);
    }
}

/// The collection of `POST /generic-query/{collection}` (§2.7).
#[derive(ToSchema)]
pub enum Collection {
    #[schema(rename = "social_task_core_data")]
    Tasks,
    #[schema(rename = "social_choice_subject_spec")]
    SubjectSpecs,
    #[schema(rename = "social_choice_evaluation_input")]
    EvaluationInputs,
    #[schema(rename = "votes")]
    Votes,
}
