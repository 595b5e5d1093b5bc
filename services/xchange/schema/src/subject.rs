//! §2.2 `ExchangeSubjects`: one agent registered with the exchange. Every field but the id has
//! a default, so `{}` makes a valid subject (§3).

use agora_schema::{null_as_default, Entity};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Each field but the id may be stored `null` by a raw `PATCH` (read as its default).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExchangeSubject {
    pub subject_id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>, required = true))]
    pub subject_metadata: Map<String, Value>,
    /// A function id asked in open mode whether the subject accepts a task; `""`: never asked.
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, required = true))]
    pub task_evaluation_function: String,
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>, required = true))]
    pub subject_capabilities: Map<String, Value>,
    /// Read only by bidding mode, to narrow a bid job's roster (§7.2).
    #[serde(default, deserialize_with = "null_as_default")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Vec<String>>, required = true))]
    pub topics: Vec<String>,
}

impl Entity for ExchangeSubject {}

impl ExchangeSubject {
    /// Whether the subject shares a topic with `topics`.
    pub fn has_topic_in(&self, topics: &[String]) -> bool {
        self.topics.iter().any(|t| topics.contains(t))
    }
}
