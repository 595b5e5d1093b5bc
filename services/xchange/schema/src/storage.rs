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
}
