//! What the Xchange flows tell an operator, through the `metrics` facade (the names and their
//! labels are `agora_telemetry::names`): tasks that reached a terminal status, and how long
//! after their creation; store errors. Recorded here, each in one place.

use agora_store::StoreError;
use agora_telemetry::names;
use agora_xchange_schema::{ExchangeTask, TaskStatus};
use chrono::{DateTime, Utc};

/// `task` moved to the terminal `status` at `now`: counted by status, with the seconds since
/// its `taski_creation_time` (when it has one).
pub(crate) fn task_terminal(task: &ExchangeTask, status: TaskStatus, now: DateTime<Utc>) {
    let status = status.as_str();
    metrics::counter!(names::XCHANGE_TASKS_TERMINAL, "status" => status).increment(1);
    if let Some(created) = task.taski_creation_time {
        let seconds = (now - created).to_std().unwrap_or_default().as_secs_f64();
        metrics::histogram!(names::XCHANGE_TASK_SECONDS_TO_TERMINAL, "status" => status).record(seconds);
    }
}

/// A store error a flow did not handle, by its kind ([`StoreError::kind`]).
pub(crate) fn store_error(e: &StoreError) {
    metrics::counter!(names::STORE_ERRORS, "kind" => e.kind()).increment(1);
}
