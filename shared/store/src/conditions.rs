//! Conditions the platform's flows share, written in the filter language every adapter runs.
//!
//! "The array at `path` holds fewer than `n` entries" is `{"<path>.<n-1>": {"$exists": false}}`:
//! a numeric path component selects the element at that position (MongoDB's semantics, which
//! [`agora_filter`] follows), so the condition holds when there is no element `n-1`, including
//! when the array is missing. It needs no `$size` (which the filter language does not have), and
//! it runs as is on MongoDB and in Rust on the other adapters. The canonical use: an open bid job
//! accepts an applicant only while its roster has room, appending it in the same write:
//!
//! ```
//! use agora_store::{conditions::shorter_than, Change};
//! use agora_filter::Filter;
//! use serde_json::json;
//!
//! let condition = Filter::must(json!({"bid_job_status": "open"})).and(shorter_than("roster", 5));
//! let change = Change::none().append("roster", &json!({"subject_id": "agent-7"}));
//! assert!(condition.matches(&json!({"bid_job_status": "open", "roster": [1, 2, 3, 4]})));
//! assert!(!condition.matches(&json!({"bid_job_status": "open", "roster": [1, 2, 3, 4, 5]})));
//! # let _ = change;
//! ```

use agora_filter::Filter;
use serde_json::{json, Map, Value};

/// Matches documents whose array at `path` (dotted or not) has fewer than `n` elements, a
/// missing array counting as empty. `n = 0` matches nothing.
pub fn shorter_than(path: &str, n: usize) -> Filter {
    let mut condition = Map::new();
    match n.checked_sub(1) {
        Some(last) => condition.insert(format!("{path}.{last}"), json!({"$exists": false})),
        // `$in` of nothing matches no document.
        None => condition.insert(path.to_string(), json!({"$in": []})),
    };
    Filter::must(Value::Object(condition))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_elements() {
        let three = json!({"job": {"roster": ["a", "b", "c"]}});
        assert!(shorter_than("job.roster", 4).matches(&three));
        assert!(!shorter_than("job.roster", 3).matches(&three));
        assert!(shorter_than("job.roster", 1).matches(&json!({})));
        assert!(!shorter_than("job.roster", 0).matches(&json!({})));
        assert!(!shorter_than("job.roster", 0).matches(&json!({"job": {"roster": []}})));
    }
}
