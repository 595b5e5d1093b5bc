//! The `assets` database (§2.4) as the store sees it: one collection per entity, keyed by the
//! entity's own UUID field, plus the platform's claims (`agora_store::claims`) for "evaluate
//! once" and "close once", and the jobs whose evaluation is pending (`pending_evaluations`).
//!
//! Indexes, as the store's [`CollectionSpec`] expresses them (unique field sets, and scalar
//! fields looked up by equality):
//!
//! | Collection | Key | Unique | Indexed |
//! |---|---|---|---|
//! | `bid_jobs` | `bid_job_id` | | `bid_job_mode`, `bid_job_creator_id`, `bid_job_evaluator_id`, `bid_job_status`, `bid_job_closes_at` |
//! | `bids` | `bid_id` | `(bid_job_id, bid_subject_id)`: one bid per subject per job (§2.2) | `bid_job_id`, `bid_subject_id`, `is_winner` |
//! | `bid_task_results` | `bid_task_result_id` | | `bid_job_id`, `bid_subject_id` |
//!
//! The store has no compound indexes: §2.4's `(bid_job_mode, bid_job_status, bid_job_closes_at)`
//! becomes its three fields, `bid_job_mode` first, so that the DynamoDB adapter (which pairs the
//! first indexed field with each later one) serves the expiry watcher's `{mode: "open",
//! status: "open"}` from one composite index and filters `bid_job_closes_at` on what it reads.
//! The selective `bid_job_creator_id` and `bid_job_evaluator_id` come before `bid_job_status`,
//! the order in which the adapter picks a single-field index. On DynamoDB `bid_jobs` thus needs
//! nine field indexes (five fields, four pairs), more than the four of the template's table
//! today: the adapter refuses to open `assets` on a table without them, naming the missing ones.

use agora_store::{CollectionSpec, DatabaseSpec};

pub const BID_JOBS: &str = "bid_jobs";
pub const BIDS: &str = "bids";
pub const BID_TASK_RESULTS: &str = "bid_task_results";
/// The three collections the query routes may read, in the spec's order.
pub const COLLECTIONS: [&str; 3] = [BID_JOBS, BIDS, BID_TASK_RESULTS];
/// Internal: the platform's claims, never served by a route.
pub const CLAIMS: &str = agora_store::claims::COLLECTION.name;
/// Internal: one document per job that is closed (or closing) and not yet evaluated
/// (`{"bid_job_id", "since"}`), so that the repair sweep reads the jobs it may have to repair,
/// not every job ever closed. Never served by a route.
pub const PENDING_EVALUATIONS: &str = "pending_evaluations";

/// The database's name (§2.4).
pub const DATABASE: &str = "assets";

/// `assets`.
pub const ORCADE_DB: DatabaseSpec = DatabaseSpec::new(
    DATABASE,
    &[
        CollectionSpec {
            name: BID_JOBS,
            key: "bid_job_id",
            unique: &[],
            indexed: &["bid_job_mode", "bid_job_creator_id", "bid_job_evaluator_id", "bid_job_status", "bid_job_closes_at"],
        },
        CollectionSpec {
            name: BIDS,
            key: "bid_id",
            unique: &[&["bid_job_id", "bid_subject_id"]],
            indexed: &["bid_job_id", "bid_subject_id", "is_winner"],
        },
        CollectionSpec { name: BID_TASK_RESULTS, key: "bid_task_result_id", unique: &[], indexed: &["bid_job_id", "bid_subject_id"] },
        agora_store::claims::COLLECTION,
        CollectionSpec { name: PENDING_EVALUATIONS, key: "bid_job_id", unique: &[], indexed: &[] },
    ],
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_valid_and_names_every_collection() {
        ORCADE_DB.check().expect("a valid database spec");
        assert_eq!(ORCADE_DB.name(), "assets");
        for name in COLLECTIONS.into_iter().chain([CLAIMS, PENDING_EVALUATIONS]) {
            assert!(ORCADE_DB.collection(name).is_some(), "{name}");
        }
        assert_eq!(ORCADE_DB.collection(BID_JOBS).unwrap().key, "bid_job_id");
        assert_eq!(ORCADE_DB.collection(BIDS).unwrap().key, "bid_id");
        assert_eq!(ORCADE_DB.collection(BID_TASK_RESULTS).unwrap().key, "bid_task_result_id");
    }

    #[test]
    fn one_bid_per_subject_per_job() {
        assert_eq!(ORCADE_DB.collection(BIDS).unwrap().unique, &[&["bid_job_id", "bid_subject_id"][..]]);
    }

    #[test]
    fn every_index_of_the_spec_is_listed() {
        let jobs = ORCADE_DB.collection(BID_JOBS).unwrap();
        for f in ["bid_job_evaluator_id", "bid_job_creator_id", "bid_job_mode", "bid_job_status", "bid_job_closes_at"] {
            assert!(jobs.indexed.contains(&f), "{f}");
        }
        assert_eq!(jobs.indexed[0], "bid_job_mode", "the watcher's composite pairs the first field");
        let bids = ORCADE_DB.collection(BIDS).unwrap();
        assert_eq!(bids.indexed, &["bid_job_id", "bid_subject_id", "is_winner"]);
        let results = ORCADE_DB.collection(BID_TASK_RESULTS).unwrap();
        assert_eq!(results.indexed, &["bid_job_id", "bid_subject_id"]);
    }
}
