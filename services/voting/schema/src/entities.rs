//! The four voting entities of §2, stored as-is: `to_dict()` is their serde serialization (unset
//! optional fields absent, datetimes as naive UTC ISO-8601) and `from_dict()` their
//! deserialization (datetimes in any accepted form).

use agora_schema::time::{iso, iso_opt};
use agora_schema::{null_as_default, Entity, FunctionSpec};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Collection names of `voting_db` (§2.7).
pub mod collections {
    pub const TASKS: &str = "social_task_core_data";
    pub const SUBJECT_SPECS: &str = "social_choice_subject_spec";
    pub const EVALUATION_INPUTS: &str = "social_choice_evaluation_input";
    pub const VOTES: &str = "votes";
    /// The four collections the query routes may read, in the spec's order.
    pub const ALL: [&str; 4] = [TASKS, SUBJECT_SPECS, EVALUATION_INPUTS, VOTES];
}

/// Declares a string-valued field whose meaningful values are a closed set, stored as the
/// string itself; the spec does not validate the field, so any other value is kept as written.
/// `as "<name>"` names its OpenAPI schema (feature `openapi`): a string, the named values listed.
macro_rules! string_enum {
    ($(#[$doc:meta])* $name:ident as $schema_name:literal { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)+
            /// A value the spec does not name, kept as written.
            Other(String),
        }

        impl $name {
            /// The value as stored.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)+
                    $name::Other(s) => s,
                }
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                match s.as_str() {
                    $($text => $name::$variant,)+
                    _ => $name::Other(s),
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                $name::from(s.to_owned())
            }
        }

        /// A string: the values the spec names are listed, any other is kept as written.
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                let named = [$($text),+].map(|v| format!("`{v}`")).join(", ");
                utoipa::openapi::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .description(Some(format!("{named}, or any other value, kept as written (not validated).")))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                $schema_name.into()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map($name::from)
            }
        }
    };
}

string_enum! {
    /// A task's status (§1.4). Only a `scheduled` task starts.
    TaskStatus as "SocialTaskStatus" {
        Scheduled = "scheduled",
        Started = "started",
        Complete = "complete",
        /// Cancelled by its creator or an operator: no more votes, no evaluation.
        Cancelled = "cancelled",
    }
}

string_enum! {
    /// A task's access type (§1.3): who may vote and when the trigger holds. Not validated
    /// (§2.1): a task of another type takes votes from anyone and never triggers.
    AccessType as "SocialTaskAccessType" {
        Private = "private",
        Public = "public",
    }
}

/// Qualified votes that trigger a public task when `duration` is absent.
pub const DEFAULT_DURATION: i64 = 5;

/// §2.1: the task itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SocialTaskCoreData {
    pub social_task_id: String,
    pub created_by_subject_id: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub created_by_subject_data: Map<String, Value>,
    pub org_ids: Vec<String>,
    pub social_task_access_type: AccessType,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub goal_data: Map<String, Value>,
    pub social_tasks_topics: Vec<String>,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub social_task_properties: Map<String, Value>,
    /// Naive UTC, ISO-8601 (`2026-10-22T10:03:12.481203`).
    #[serde(with = "iso")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub creation_time: DateTime<Utc>,
    /// Naive UTC, ISO-8601; absent when the task has none.
    #[serde(with = "iso_opt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub scheduled_time: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub duration: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = TaskStatus))]
    pub status: Option<TaskStatus>,
    /// When the task started (naive UTC, ISO-8601), as the upstream system recorded it: written
    /// with `status: started`, absent before.
    #[serde(with = "iso_opt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub start_time: Option<DateTime<Utc>>,
    /// When the task was evaluated (naive UTC, ISO-8601; the report's `evaluated_at`): written
    /// with `status: complete`, absent before.
    #[serde(with = "iso_opt", default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub end_time: Option<DateTime<Utc>>,
    /// The report (§2.6) once evaluated, `{}` before.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object, required = true))]
    pub report_json: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub job_id: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub enable_live_streaming: bool,
}

// An unset field is never stored as null (§2.1), so a null is an unset field:
// `agora_schema::null_as_default`.

impl Entity for SocialTaskCoreData {}

impl SocialTaskCoreData {
    pub fn status(&self) -> Option<&TaskStatus> {
        self.status.as_ref()
    }
    pub fn is_private(&self) -> bool {
        self.social_task_access_type == AccessType::Private
    }
    pub fn is_public(&self) -> bool {
        self.social_task_access_type == AccessType::Public
    }
    /// The voting options beyond the spec, from `social_task_properties.voting`
    /// ([`crate::options`]); all absent for a task created as the spec has it.
    pub fn options(&self) -> crate::options::VotingOptions {
        crate::options::VotingOptions::from_properties(&self.social_task_properties)
    }
    /// Qualified votes that trigger a public task.
    pub fn trigger_count(&self) -> i64 {
        self.duration.unwrap_or(DEFAULT_DURATION)
    }
}

/// §2.2: what voters see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SocialChoiceSubjectSpecInput {
    pub social_task_id: String,
    pub topic_title: String,
    pub topic_description: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub voting_options_map: Map<String, Value>,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub voting_option_metadata_map: Map<String, Value>,
    pub supported_protocols: Vec<String>,
    /// A function spec (§2.5), as the creator sent it; `{}`: none.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub voting_message_request_creator: FunctionSpec,
}

impl Entity for SocialChoiceSubjectSpecInput {}

/// §2.3: how votes are qualified and counted. Each hook is a function spec (§2.5) as the
/// creator sent it (`{}`: none).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SocialChoiceEvaluationInput {
    pub social_task_id: String,
    pub constraints_entry_id: String,
    pub constraints_entry_id_1: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub voting_pqt: FunctionSpec,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub choice_evaluation: FunctionSpec,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub tie_breaker: FunctionSpec,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub post_awarding: FunctionSpec,
}

impl Entity for SocialChoiceEvaluationInput {}

/// §2.4: one subject's vote on one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Vote {
    pub vote_id: String,
    pub social_task_id: String,
    pub submitter_subject_id: String,
    /// The ballot, free-form (an object on every vote the request parser takes).
    pub vote_data: Value,
    /// Naive UTC, ISO-8601: the server's time of receipt.
    #[serde(with = "iso")]
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub submission_time: DateTime<Utc>,
    pub qualified: bool,
    /// The vote's weight in a weighted task (its `weights` option), a positive finite
    /// number; absent on every vote of an unweighted task, whose documents are the spec's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

impl Entity for Vote {}

/// The three documents of one task, stored together or not at all (§1.2 step 1).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskBundle {
    pub task: SocialTaskCoreData,
    pub subject_spec: SocialChoiceSubjectSpecInput,
    pub evaluation_input: SocialChoiceEvaluationInput,
}

impl TaskBundle {
    /// `{"social_task": ..., "subject_spec": ..., "evaluation_spec": ...}` with the stored field
    /// names, as `POST /parse-social-choice-task` answers.
    pub fn to_parsed_dict(&self) -> Value {
        serde_json::json!({
            "social_task": self.task.to_dict(),
            "subject_spec": self.subject_spec.to_dict(),
            "evaluation_spec": self.evaluation_input.to_dict(),
        })
    }
}
