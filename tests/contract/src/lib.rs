//! The contract every [`DocumentStore`] adapter must pass: the embedded SQLite store today,
//! the MongoDB and DynamoDB adapters against real servers later, all with this same suite.
//!
//! An adapter's test file expands the suite with [`contract_tests!`], giving it an `async`
//! block that returns a fresh, empty store holding [`VOTING_DB`] (either the adapter itself or
//! an [`Arc<dyn DocumentStore>`](SharedStore)):
//!
//! ```ignore
//! agora_store_contract::contract_tests!(async {
//!     MyStore::connect(&fresh_database_name(), agora_store_contract::VOTING_DB).await.unwrap()
//! });
//! ```
//!
//! This writes one `#[tokio::test]` per case (multi-threaded runtime, 4 workers), named after
//! the case, so the crate using it needs `tokio` (with `macros` and `rt-multi-thread`) among
//! its dev-dependencies. The cases themselves are plain `pub async fn`s in [`cases`].

pub mod cases;
pub mod check;
pub mod fixtures;

use agora_store::DocumentStore;
pub use agora_voting_core::storage::CLAIMS;
pub use agora_voting_core::VOTING_DB;
use std::sync::Arc;

/// The store a case runs against.
pub type SharedStore = Arc<dyn DocumentStore>;

/// Turns what a setup block returns into a [`SharedStore`]; used by [`contract_tests!`].
#[doc(hidden)]
pub mod __private {
    use super::{DocumentStore, SharedStore};
    use std::sync::Arc;

    /// What the setup block returned.
    pub struct Setup<T>(pub T);

    /// The setup returned a [`SharedStore`] already.
    pub trait FromShared {
        fn into_shared(self) -> SharedStore;
    }
    impl FromShared for Setup<SharedStore> {
        fn into_shared(self) -> SharedStore {
            self.0
        }
    }

    /// The setup returned an adapter.
    pub trait FromStore {
        fn into_shared(self) -> SharedStore;
    }
    impl<T: DocumentStore> FromStore for Setup<T> {
        fn into_shared(self) -> SharedStore {
            Arc::new(self.0)
        }
    }
}

/// Expands the contract suite: one `#[tokio::test]` per case of [`cases`], each calling
/// `$setup.await` for a fresh, empty store. See the crate documentation.
#[macro_export]
macro_rules! contract_tests {
    ($setup:expr) => {
        $crate::contract_tests!(@cases ($setup)
            round_trip_task_example,
            round_trip_subject_spec_example,
            round_trip_evaluation_input_example,
            round_trip_vote_example,
            round_trip_task_with_large_report,
            insert_task_bundle_in_one_call,
            insert_nothing,
            insert_is_all_or_none,
            insert_batch_colliding_with_itself,
            duplicate_key,
            duplicate_unique_pair,
            reinsert_after_delete,
            invalid_documents,
            unknown_collection,
            get_missing,
            one_vote_per_subject_under_race,
            status_change_under_race,
            claim_under_race,
            reads_follow_writes_under_concurrency,
            update_condition_false,
            update_missing_id,
            update_cannot_change_key,
            update_merges_in_field_order,
            update_large_nested_value,
            update_keeps_constraints_and_indexes,
            delete_without_condition,
            delete_with_condition,
            find_by_indexed_fields,
            find_booleans_are_not_numbers,
            find_by_other_fields,
            find_with_every_operator,
            find_with_dotted_paths,
            find_by_array_membership,
            count_with_limit,
            find_in_insertion_order,
            find_all,
            find_on_empty_collections,
            find_and_count_thousands,
            increment_counts_from_zero,
            increment_under_race,
        );
    };
    (@cases ($setup:expr) $($case:ident),+ $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                #[allow(unused_imports)]
                use $crate::__private::{FromShared as _, FromStore as _};
                let store: $crate::SharedStore = $crate::__private::Setup($setup.await).into_shared();
                $crate::cases::$case(store).await;
            }
        )+
    };
}

#[cfg(test)]
mod tests {
    use super::__private::{FromShared as _, FromStore as _, Setup};
    use super::SharedStore;
    use agora_filter::Filter;
    use agora_store::{DocumentStore, Json, StoreError};
    use async_trait::async_trait;
    use std::sync::Arc;

    /// A store that holds nothing, to check what setup blocks may return.
    struct Nothing;

    #[async_trait]
    impl DocumentStore for Nothing {
        async fn insert(&self, _: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
            Ok(())
        }
        async fn get(&self, _: &str, _: &str) -> Result<Option<Json>, StoreError> {
            Ok(None)
        }
        async fn find(&self, _: &str, _: &Filter) -> Result<Vec<Json>, StoreError> {
            Ok(Vec::new())
        }
        async fn count(&self, _: &str, _: &Filter, _: Option<u64>) -> Result<u64, StoreError> {
            Ok(0)
        }
        async fn update(&self, _: &str, _: &str, _: &Filter, _: &Json) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn delete(&self, _: &str, _: &str, _: &Filter) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn increment(&self, _: &str, by: i64) -> Result<i64, StoreError> {
            Ok(by)
        }
    }

    #[test]
    fn setup_may_return_an_adapter_or_a_shared_store() {
        let from_adapter: SharedStore = Setup(Nothing).into_shared();
        let shared: SharedStore = Arc::new(Nothing);
        let from_shared: SharedStore = Setup(Arc::clone(&shared)).into_shared();
        assert!(Arc::ptr_eq(&shared, &from_shared));
        drop(from_adapter);
    }
}
