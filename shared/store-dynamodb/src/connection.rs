//! The table connection every call goes through: the client, the table, the layout of the
//! database's keys, and the counts of the calls made and of the writes per partition key (for
//! tests and benchmarks).

use crate::table::{Layout, PK};
use agora_store::StoreError;
use aws_sdk_dynamodb::types::AttributeValue;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::items::Item;

/// What every call needs.
pub(crate) struct Inner {
    pub client: aws_sdk_dynamodb::Client,
    pub table: String,
    pub layout: Layout,
    pub stats: Counters,
    /// Writes per partition key, when switched on.
    pub key_writes: std::sync::Arc<crate::key_writes::Tally>,
}

/// Calls made to DynamoDB since the store was connected, for tests and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreStats {
    /// `GetItem` calls (documents, unique markers, parts).
    pub get_items: u64,
    /// `PutItem` calls (single documents, parts written ahead of their document).
    pub put_items: u64,
    /// `DeleteItem` calls.
    pub delete_items: u64,
    /// `TransactWriteItems` calls.
    pub transactions: u64,
    /// `Query` pages on a field GSI.
    pub index_queries: u64,
    /// `Query` pages on the collection GSI: reads of a whole collection (the store never calls
    /// `Scan`; this is what a filter without a usable equality costs instead).
    pub collection_queries: u64,
    /// `UpdateItem` calls (counters).
    pub update_items: u64,
}

/// The atomic counters behind [`StoreStats`].
#[derive(Default)]
pub(crate) struct Counters {
    get_items: AtomicU64,
    put_items: AtomicU64,
    delete_items: AtomicU64,
    transactions: AtomicU64,
    index_queries: AtomicU64,
    collection_queries: AtomicU64,
    update_items: AtomicU64,
}

impl Counters {
    pub fn count_get(&self) {
        self.get_items.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_put(&self) {
        self.put_items.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_delete(&self) {
        self.delete_items.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_transaction(&self) {
        self.transactions.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_index_query(&self) {
        self.index_queries.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_collection_query(&self) {
        self.collection_queries.fetch_add(1, Ordering::Relaxed);
    }
    pub fn count_update(&self) {
        self.update_items.fetch_add(1, Ordering::Relaxed);
    }
    pub fn snapshot(&self) -> StoreStats {
        StoreStats {
            get_items: self.get_items.load(Ordering::Relaxed),
            put_items: self.put_items.load(Ordering::Relaxed),
            delete_items: self.delete_items.load(Ordering::Relaxed),
            transactions: self.transactions.load(Ordering::Relaxed),
            index_queries: self.index_queries.load(Ordering::Relaxed),
            collection_queries: self.collection_queries.load(Ordering::Relaxed),
            update_items: self.update_items.load(Ordering::Relaxed),
        }
    }
}

/// The item keyed `pk`, read consistently.
pub(crate) async fn consistent_get(inner: &Inner, pk: String) -> Result<Option<Item>, StoreError> {
    inner.stats.count_get();
    let out = inner
        .client
        .get_item()
        .table_name(&inner.table)
        .key(PK, AttributeValue::S(pk))
        .consistent_read(true)
        .send()
        .await
        .map_err(|e| crate::error::backend("GetItem", e))?;
    Ok(out.item)
}
