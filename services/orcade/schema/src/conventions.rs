//! Conventions the entities and requests share: `null` read as a default, fresh ids.

use serde::{Deserialize, Deserializer};

/// Reads `null` as the field's default, as an absent key is read (compat: clients and older
/// documents write `null` for an unset field).
pub(crate) fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A fresh UUID4 id (`bid_job_id`, `bid_id`, `bid_task_result_id`).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
