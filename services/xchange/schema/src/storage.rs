//! The database of one exchange (§2.4): `exchange_{EXCHANGE_ID}`, collections `tasks` (keyed by
//! `task_id`) and `subjects` (keyed by `subject_id`). Every document in it belongs to the
//! exchange, so listing its subjects needs no filter, and two exchanges on one store never see
//! each other's documents.

use agora_store::{CollectionSpec, DatabaseSpec};

pub const TASKS: &str = "tasks";
pub const SUBJECTS: &str = "subjects";
/// The collections the query routes read.
pub const COLLECTIONS: [&str; 2] = [TASKS, SUBJECTS];
/// The exchange a deployment is when `EXCHANGE_ID` is not set.
pub const DEFAULT_EXCHANGE_ID: &str = "default";

/// The collections of every exchange's database; its name is given at run time.
const EXCHANGE: DatabaseSpec = DatabaseSpec::new(
    "exchange_default",
    &[
        CollectionSpec { name: TASKS, key: "task_id", unique: &[], indexed: &["task_assignment_status", "task_assignment_type"] },
        CollectionSpec { name: SUBJECTS, key: "subject_id", unique: &[], indexed: &[] },
        agora_store::claims::COLLECTION,
    ],
);

/// `EXCHANGE_ID` as a deployment sets it, trimmed, if it makes a database name on every store:
/// letters, digits, `_` or `-`, 1 to 48 of them. Otherwise an error naming the variable.
pub fn check_exchange_id(exchange_id: &str) -> Result<&str, String> {
    let id = exchange_id.trim();
    if id.is_empty() || id.len() > 48 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(format!("EXCHANGE_ID must be 1 to 48 letters, digits, '_' or '-', got {exchange_id:?}"));
    }
    Ok(id)
}

/// The database of the exchange `exchange_id`: `exchange_{exchange_id}`.
pub fn exchange_db(exchange_id: &str) -> DatabaseSpec {
    EXCHANGE.named(format!("exchange_{exchange_id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_exchange_has_its_own_database() {
        let db = exchange_db("acme");
        db.check().expect("a valid database spec");
        assert_eq!(db.name(), "exchange_acme");
        assert_eq!(exchange_db(DEFAULT_EXCHANGE_ID).name(), "exchange_default");
        assert_eq!(db.collection(TASKS).unwrap().key, "task_id");
        assert_eq!(db.collection(SUBJECTS).unwrap().key, "subject_id");
    }

    #[test]
    fn exchange_ids_make_database_names() {
        assert_eq!(check_exchange_id(" acme-1_b "), Ok("acme-1_b"));
        for bad in ["", "  ", "a.b", "a/b", "ünï", &"x".repeat(49)] {
            let error = check_exchange_id(bad).expect_err(bad);
            assert!(error.contains("EXCHANGE_ID"), "{error}");
        }
    }
}
