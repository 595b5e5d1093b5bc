//! Conventions the entities and requests share: `null` read as a default (the platform's),
//! fresh ids.

pub(crate) use agora_schema::null_as_default;

/// A fresh UUID4 id (`bid_job_id`, `bid_id`, `bid_task_result_id`).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
