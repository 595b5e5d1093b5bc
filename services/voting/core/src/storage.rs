//! The voting database (§2.7) as the store sees it: the four collections of the spec, plus two
//! internal collections: the claims that make "start once", "trigger once" and "evaluate once"
//! hold whatever the timing, and the live stream's subscriptions. Neither leaves the store
//! through any API.

use agora_store::{CollectionSpec, DatabaseSpec};
use agora_voting_schema::collections::{EVALUATION_INPUTS, SUBJECT_SPECS, TASKS, VOTES};

/// Internal: the platform's claims (`agora_store::claims`), one document per claimed piece of
/// work (`start:<task>`, `trigger:<task>`, `evaluate:<task>`), with an `expires_at` lease where
/// a crash must not block the work forever.
pub const CLAIMS: &str = agora_store::claims::COLLECTION.name;

/// Internal: one document per live-stream connection served through a connection gateway
/// (API Gateway WebSocket in AWS), keyed `connection_id`, found by `social_task_id` when the task
/// changes. See [`crate::live`].
pub const LIVE_SUBSCRIPTIONS: &str = "agora_live_subscriptions";

/// `voting_db`.
pub const VOTING_DB: DatabaseSpec = DatabaseSpec::new(
    "voting_db",
    &[
        CollectionSpec { name: TASKS, key: "social_task_id", unique: &[], indexed: &["status"] },
        CollectionSpec { name: SUBJECT_SPECS, key: "social_task_id", unique: &[], indexed: &[] },
        CollectionSpec { name: EVALUATION_INPUTS, key: "social_task_id", unique: &[], indexed: &[] },
        CollectionSpec {
            name: VOTES,
            key: "vote_id",
            unique: &[&["social_task_id", "submitter_subject_id"]],
            indexed: &["social_task_id", "submitter_subject_id", "qualified"],
        },
        agora_store::claims::COLLECTION,
        CollectionSpec { name: LIVE_SUBSCRIPTIONS, key: "connection_id", unique: &[], indexed: &["social_task_id"] },
    ],
);
