//! `report_json` (§2.6), written by the evaluator when it finishes.

use crate::entities::{SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData};
use agora_schema::time::iso;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

/// The report, generic over how the votes are held: typed [`crate::Vote`]s, or the stored
/// documents as raw JSON (which serialize without being re-encoded).
#[derive(Debug, Serialize)]
pub struct Report<'a, V: Serialize> {
    pub task: &'a SocialTaskCoreData,
    pub subject_spec: &'a SocialChoiceSubjectSpecInput,
    pub evaluation_spec: &'a SocialChoiceEvaluationInput,
    pub votes: &'a [V],
    pub winners: &'a [String],
    pub post_award_payload: &'a Value,
    pub dsl_outputs: &'a Map<String, Value>,
    #[serde(with = "iso")]
    pub evaluated_at: DateTime<Utc>,
}
