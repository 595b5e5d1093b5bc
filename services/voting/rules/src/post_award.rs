//! The post-award builtins (§4.6).
//!
//! - `assign-first-winner` (§4.6's reference): `{"decision": "none", "reason": "no qualified
//!   votes"}` without winners, else `{"decision": "assigned", "assigned_to": winners[0], "goal":
//!   task.goal_data}`.
//! - `echo`: `{"winners": [...], "goal": task.goal_data}`.

use serde_json::{json, Value};

pub(crate) fn assign_first_winner(winners: &[String], goal: Value) -> Value {
    match winners.first() {
        None => json!({"decision": "none", "reason": "no qualified votes"}),
        Some(w) => json!({"decision": "assigned", "assigned_to": w, "goal": goal}),
    }
}

pub(crate) fn echo(winners: &[String], goal: Value) -> Value {
    json!({"winners": winners, "goal": goal})
}
