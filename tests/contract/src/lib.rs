//! The contract every [`DocumentStore`] adapter must pass: the embedded (SQLite), MongoDB,
//! DynamoDB and in-memory stores, the server-backed ones against real servers, all with this
//! same suite.
//!
//! An adapter's test file expands the suite with [`contract_tests!`], giving it an `async` block
//! that makes a fresh, empty backend for one test (a temporary directory, a database-name prefix,
//! a fresh table) and returns an opener: a closure taking a [`DatabaseSpec`] and returning a
//! future of the store holding that database on that backend (the adapter itself or a
//! [`SharedStore`]). Opening two specs of different names must give two databases that see
//! nothing of each other; the opener may rename a database (to keep tests apart on a shared
//! server) as long as different names stay different:
//!
//! ```ignore
//! agora_store_contract::contract_tests!(async {
//!     let prefix = fresh_prefix();
//!     move |spec: agora_store::DatabaseSpec| {
//!         let spec = spec.named(format!("{prefix}_{}", spec.name));
//!         async move { MyStore::connect(spec).await.unwrap() }
//!     }
//! });
//! ```
//!
//! Most cases get a store holding [`CONTRACT_DB`]; those about several databases get the
//! [`Opener`]. This writes one `#[tokio::test]` per case (multi-threaded runtime, 4 workers),
//! named after the case, so the crate using it needs `tokio` (with `macros` and
//! `rt-multi-thread`) among its dev-dependencies. The cases themselves are plain `pub async fn`s
//! in [`cases`].

pub mod cases;
pub mod check;
pub mod fixtures;
pub mod spec;

use agora_store::{DatabaseSpec, DocumentStore};
pub use spec::{CLAIMS, CONTRACT_DB, SECOND_DB};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The store a case runs against.
pub type SharedStore = Arc<dyn DocumentStore>;

type OpenFn = dyn Fn(DatabaseSpec) -> Pin<Box<dyn Future<Output = SharedStore> + Send>> + Send + Sync;

/// Opens databases on one test's backend (see the crate documentation).
#[derive(Clone)]
pub struct Opener(Arc<OpenFn>);

impl Opener {
    pub fn new<F, Fut>(open: F) -> Opener
    where
        F: Fn(DatabaseSpec) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = SharedStore> + Send + 'static,
    {
        Opener(Arc::new(move |spec| Box::pin(open(spec))))
    }

    /// The store holding `spec`'s database on this backend.
    pub async fn open(&self, spec: DatabaseSpec) -> SharedStore {
        (self.0)(spec).await
    }
}

/// Turns what a setup block returns into a [`SharedStore`]; used by [`contract_tests!`].
#[doc(hidden)]
pub mod __private {
    use super::{DocumentStore, SharedStore};
    use std::sync::Arc;

    pub use agora_filter::Filter;
    pub use agora_store::{Change, Counted, DocStream, DocumentStore as Store, Json, Page, StoreError, Uncounted};
    pub use async_trait::async_trait;

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
/// `$setup.await` for a fresh backend's opener. See the crate documentation.
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
            update_dotted_set,
            update_dotted_set_refusals,
            update_append,
            update_append_refusals,
            append_under_capacity_race,
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
            find_stream_is_find,
            find_stream_pages_through_thousands,
            find_stream_refuses_as_find,
            find_stream_leaves_the_store_free,
            find_stream_large_documents,
            increment_counts_from_zero,
            increment_under_race,
            insert_counted_stores_and_counts,
            insert_counted_under_race,
            insert_counted_on_a_new_counter_under_race,
            delete_counted_deletes_and_counts_down,
            delete_counted_frees_unique_values,
            delete_counted_behind_a_fence,
            delete_counted_under_race,
            sharded_count_under_race,
            sharded_small_count_is_the_plain_counter,
            sharded_members_fill_when_every_member_inserted,
            sharded_fence_and_delete,
            claims_won_once_under_race,
            claims_held_until_the_lease_expires,
            claims_live_until_the_lease_expires,
            claims_release_then_reclaim,
            claims_renewed_by_their_holder_and_settled,
            claims_of_a_gone_instance_run_out,
        );
        $crate::contract_tests!(@opener_cases ($setup)
            two_databases_side_by_side,
            claims_of_two_databases_are_independent,
        );
    };
    (@cases ($setup:expr) $($case:ident),+ $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let open = $crate::contract_tests!(@opener ($setup));
                let store = open.open($crate::CONTRACT_DB).await;
                $crate::cases::$case(store).await;
            }
        )+
    };
    (@opener_cases ($setup:expr) $($case:ident),+ $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $case() {
                let open = $crate::contract_tests!(@opener ($setup));
                $crate::cases::$case(open).await;
            }
        )+
    };
    (@opener ($setup:expr)) => {{
        #[allow(unused_imports)]
        use $crate::__private::{FromShared as _, FromStore as _};
        let setup = $setup.await;
        $crate::Opener::new(move |spec| {
            let opened = setup(spec);
            async move { $crate::__private::Setup(opened.await).into_shared() }
        })
    }};
}

/// Implements [`DocumentStore`] for a test wrapper `$ty` (holding the adapter and what must
/// live as long as it: a directory, a table, a database to drop) by delegating every method to
/// its field `$field`. With `increment => $method`, counters go through the wrapper's own
/// `async fn $method(&self, counter: &str, by: i64) -> Result<i64, StoreError>` instead (a
/// store whose counters fail on purpose).
#[macro_export]
macro_rules! delegate_store {
    ($ty:ty, $field:ident) => {
        $crate::delegate_store!(@impl $ty, $field, |this, counter, by| this.$field.increment(counter, by).await);
    };
    ($ty:ty, $field:ident, increment => $method:ident) => {
        $crate::delegate_store!(@impl $ty, $field, |this, counter, by| this.$method(counter, by).await);
    };
    (@impl $ty:ty, $field:ident, |$this:ident, $counter:ident, $by:ident| $increment:expr) => {
        #[$crate::__private::async_trait]
        impl $crate::__private::Store for $ty {
            async fn insert(&self, docs: Vec<(&'static str, $crate::__private::Json)>) -> Result<(), $crate::__private::StoreError> {
                self.$field.insert(docs).await
            }
            async fn insert_counted(
                &self,
                docs: Vec<(&'static str, $crate::__private::Json)>,
                counter: &str,
                limit: Option<i64>,
            ) -> Result<$crate::__private::Counted, $crate::__private::StoreError> {
                self.$field.insert_counted(docs, counter, limit).await
            }
            async fn delete_counted(
                &self,
                collection: &str,
                id: &str,
                counter: &str,
                limit: Option<i64>,
            ) -> Result<$crate::__private::Uncounted, $crate::__private::StoreError> {
                self.$field.delete_counted(collection, id, counter, limit).await
            }
            async fn get(&self, collection: &str, id: &str) -> Result<Option<$crate::__private::Json>, $crate::__private::StoreError> {
                self.$field.get(collection, id).await
            }
            async fn find(
                &self,
                collection: &str,
                filter: &$crate::__private::Filter,
            ) -> Result<Vec<$crate::__private::Json>, $crate::__private::StoreError> {
                self.$field.find(collection, filter).await
            }
            async fn find_stream(
                &self,
                collection: &str,
                filter: &$crate::__private::Filter,
                page: $crate::__private::Page,
            ) -> Result<$crate::__private::DocStream, $crate::__private::StoreError> {
                self.$field.find_stream(collection, filter, page).await
            }
            async fn count(
                &self,
                collection: &str,
                filter: &$crate::__private::Filter,
                limit: Option<u64>,
            ) -> Result<u64, $crate::__private::StoreError> {
                self.$field.count(collection, filter, limit).await
            }
            async fn update(
                &self,
                collection: &str,
                id: &str,
                condition: &$crate::__private::Filter,
                change: &$crate::__private::Change,
            ) -> Result<bool, $crate::__private::StoreError> {
                self.$field.update(collection, id, condition, change).await
            }
            async fn delete(
                &self,
                collection: &str,
                id: &str,
                condition: &$crate::__private::Filter,
            ) -> Result<bool, $crate::__private::StoreError> {
                self.$field.delete(collection, id, condition).await
            }
            async fn increment(&self, $counter: &str, $by: i64) -> Result<i64, $crate::__private::StoreError> {
                let $this = self;
                $increment
            }
            async fn counter(&self, counter: &str) -> Result<i64, $crate::__private::StoreError> {
                self.$field.counter(counter).await
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::__private::{FromShared as _, FromStore as _, Setup};
    use super::SharedStore;
    use agora_filter::Filter;
    use agora_store::{Change, DocStream, DocumentStore, Json, Page, StoreError};
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
        async fn find_stream(&self, _: &str, _: &Filter, page: Page) -> Result<DocStream, StoreError> {
            Ok(page.of_vec(Vec::new()))
        }
        async fn count(&self, _: &str, _: &Filter, _: Option<u64>) -> Result<u64, StoreError> {
            Ok(0)
        }
        async fn update(&self, _: &str, _: &str, _: &Filter, _: &Change) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn delete(&self, _: &str, _: &str, _: &Filter) -> Result<bool, StoreError> {
            Ok(false)
        }
        async fn insert_counted(&self, _: Vec<(&'static str, Json)>, _: &str, _: Option<i64>) -> Result<agora_store::Counted, StoreError> {
            Ok(agora_store::Counted::Full)
        }
        async fn delete_counted(&self, _: &str, _: &str, _: &str, _: Option<i64>) -> Result<agora_store::Uncounted, StoreError> {
            Ok(agora_store::Uncounted::Missing)
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
