//! The suite's own database: neutral collections shaped for what the cases check, not any
//! service's. Their documents are the fixtures' (realistic nested JSON).
//!
//! | Collection | Key | Unique | Indexed |
//! |---|---|---|---|
//! | [`TASKS`] | `social_task_id` | | `status` |
//! | [`SPECS`], [`INPUTS`] | `social_task_id` | | |
//! | [`VOTES`] | `vote_id` | (`social_task_id`, `submitter_subject_id`) | `social_task_id`, `submitter_subject_id`, `qualified` |
//! | [`JOBS`] | `job_id` | | `bid_job_status` |
//! | [`CLAIMS`] | `claim_id` | | |
//!
//! Cases that open a second database use [`CONTRACT_DB`]'s collections under another name
//! ([`SECOND_DB`]), so an adapter lays both out alike (the DynamoDB store needs no more GSIs for
//! the second than for the first).

use agora_store::{claims, CollectionSpec, DatabaseSpec};

/// Keyed documents with one indexed field (status changes, large reports).
pub const TASKS: &str = "tasks";
/// Keyed documents with nothing indexed.
pub const SPECS: &str = "specs";
/// Keyed documents with nothing indexed.
pub const INPUTS: &str = "inputs";
/// A unique field pair and three indexed fields.
pub const VOTES: &str = "votes";
/// Documents with nested objects and an array the append cases fill.
pub const JOBS: &str = "jobs";
/// The platform's claims.
pub const CLAIMS: &str = claims::COLLECTION.name;

/// The database every case starts with, empty.
pub const CONTRACT_DB: DatabaseSpec = DatabaseSpec::new(
    "contract",
    &[
        CollectionSpec { name: TASKS, key: "social_task_id", unique: &[], indexed: &["status"] },
        CollectionSpec { name: SPECS, key: "social_task_id", unique: &[], indexed: &[] },
        CollectionSpec { name: INPUTS, key: "social_task_id", unique: &[], indexed: &[] },
        CollectionSpec {
            name: VOTES,
            key: "vote_id",
            unique: &[&["social_task_id", "submitter_subject_id"]],
            indexed: &["social_task_id", "submitter_subject_id", "qualified"],
        },
        CollectionSpec { name: JOBS, key: "job_id", unique: &[], indexed: &["bid_job_status"] },
        claims::COLLECTION,
    ],
);

/// The name of the second database of the cases that open two.
pub const SECOND_DB: &str = "contract_second";

/// Every collection of [`CONTRACT_DB`].
pub fn all_collections() -> Vec<&'static str> {
    CONTRACT_DB.collections.iter().map(|c| c.name).collect()
}
