//! Sharded counters: one logical counter split over K shard counters, so that no single counter
//! (one DynamoDB partition key, one MongoDB document inside every transaction) takes every
//! write of a hot entity. Built on [`DocumentStore::insert_counted`] and
//! [`DocumentStore::delete_counted`] alone: no adapter knows about shards.
//!
//! * **Shards.** Shard 0 is the counter `<name>` itself and shard `i > 0` the counter
//!   `<name>#<i>`, so a one-shard counter is exactly the plain counter it replaces (same name,
//!   same value, same cost).
//! * **K adapts to the limit.** A counter of `limit` places has
//!   `K = clamp(ceil(limit / PLACES_PER_SHARD), 1, MAX_SHARDS)` shards ([`shards_for`]): up to
//!   [`PLACES_PER_SHARD`] places a counter is one shard, as before; from
//!   `MAX_SHARDS * PLACES_PER_SHARD` places on it has [`MAX_SHARDS`] shards, and no shard takes
//!   more than about a sixteenth of the writes. Why 64: a counter that small is filled within a
//!   fraction of a second even at one DynamoDB partition's ~500 transactional writes/s, so
//!   splitting it would buy nothing and cost each fill its reads; why 16: a hot entity's
//!   hottest shard then takes about a sixteenth of its writes (under the tenth the scale issue
//!   asks), while a fill reads at most 15 counters, in parallel.
//! * **Places** ([`ShardedCounter::places`]). The limit is split over the shards (`limit / K`
//!   each, the remainder one more place to each of the first shards), so the shards' limits add
//!   up to the limit and the store still refuses the `limit + 1`-th insert. An insert starts at
//!   the shard its spread key hashes to (FNV-1a, [`agora_support::fnv1a`], modulo K), so
//!   concurrent writers spread; when that shard is full it tries the next one (no read: the
//!   shards fill at about the same rate, so the next one likely has room), and when that one
//!   is full too it reads the rest (in parallel) and tries those with room, in order. It is
//!   [`ShardCounted::Full`] only when every shard is: a full counter answers in two inserts
//!   and one read.
//! * **Members** ([`ShardedCounter::members`]). The places are named: member `m` belongs to
//!   shard `fnv1a(m) mod K`, whose limit is the number of members hashed there. A shard is full
//!   exactly when its members have all been counted, and the counter when every member has.
//! * **No limit** ([`ShardedCounter::unlimited`]): the spread key's shard, no limit (or only a
//!   cap, far above any count, that a fence raising every shard past it can close:
//!   [`ShardedCounter::capped`]).
//! * **The threshold.** Reaching the limit is seen by the writes that fill a shard: such a
//!   write reads every other shard (in parallel, one round trip of latency) and reports the
//!   total ([`ShardCounted::Stored`] `total`). Writes that fill no shard read nothing. Of the
//!   writes that fill the shards, the last to commit reads the others after they are all full,
//!   so **at least one** write reports `total == limit`; two writes filling two shards at the
//!   same time may both report it (and on DynamoDB, whose counted insert reads its value back
//!   after the commit, even two writes to one shard). A caller that acts on the threshold must
//!   therefore make that action idempotent (a claim, a conditional write). This holds for
//!   counters that only rise; where deletes lower shards ([`ShardedCounter::delete`]), the
//!   caller also needs a sweep that reads the total. An unlimited counter has no shard to
//!   fill: each of its writes reports the total (free with one shard).
//! * **Reads.** [`ShardedCounter::values`] and [`ShardedCounter::total`] read every shard in
//!   parallel; a shard never written reads 0.

use crate::{Counted, DocumentStore, Json, StoreError, Uncounted};
use futures::future::try_join_all;
use std::collections::BTreeSet;

/// The most shards a counter has.
pub const MAX_SHARDS: usize = 16;

/// Places per shard before a counter gets another shard (see [`shards_for`]).
pub const PLACES_PER_SHARD: i64 = 64;

/// How many shards a counter of `places` places has: one per [`PLACES_PER_SHARD`] places
/// (rounded up), at least 1 and at most [`MAX_SHARDS`]. A limit of 3 is one shard.
pub fn shards_for(places: i64) -> usize {
    let k = places.max(0).saturating_add(PLACES_PER_SHARD - 1) / PLACES_PER_SHARD;
    k.clamp(1, MAX_SHARDS as i64) as usize
}

/// The shard a spread key (or a member) falls in, among `shards`.
pub fn shard_of(key: &str, shards: usize) -> usize {
    (agora_support::fnv1a(key.as_bytes()) % shards.max(1) as u64) as usize
}

/// A counter split over shards (see the module docs). Cheap to build: it is the counter's name
/// and its shards' limits, derived from the limit or the members, never read from the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardedCounter {
    name: String,
    /// Each shard's limit (`None`: no limit); as many as shards.
    limits: Vec<Option<i64>>,
    /// Whether an insert whose shard is full tries the others (places); members and unlimited
    /// counters keep each key to its shard.
    spill: bool,
    /// The limit an insert passes for a shard that has none ([`ShardedCounter::capped`]).
    cap: Option<i64>,
}

/// What [`ShardedCounter::insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardCounted {
    /// The documents are stored and `shard` raised to `value` (on DynamoDB read right after the
    /// commit, so it may include inserts that committed since). `total` is the sum of every
    /// shard, read after this write, when this write filled its shard (or, on a counter with no
    /// limit, always); `None` when it filled no shard.
    Stored { shard: usize, value: i64, total: Option<i64> },
    /// Every shard the insert could take was full: nothing was written.
    Full,
}

impl ShardedCounter {
    /// A counter of `limit` places, split over [`shards_for`]`(limit)` shards.
    pub fn places(name: impl Into<String>, limit: i64) -> ShardedCounter {
        let limit = limit.max(0);
        let k = shards_for(limit);
        let (share, extra) = (limit / k as i64, (limit % k as i64) as usize);
        let limits = (0..k).map(|i| Some(share + i64::from(i < extra))).collect();
        ShardedCounter { name: name.into(), limits, spill: true, cap: None }
    }

    /// A counter whose places are `members` (each counted once however often listed): member
    /// `m` is counted in shard [`shard_of`]`(m, K)`, whose limit is the number of members there.
    pub fn members<'m>(name: impl Into<String>, members: impl IntoIterator<Item = &'m str>) -> ShardedCounter {
        let members: BTreeSet<&str> = members.into_iter().collect();
        let k = shards_for(members.len() as i64);
        let mut limits = vec![Some(0); k];
        for m in &members {
            if let Some(limit) = &mut limits[shard_of(m, k)] {
                *limit += 1;
            }
        }
        ShardedCounter { name: name.into(), limits, spill: false, cap: None }
    }

    /// A counter with no limit over `shards` shards (at least 1, at most [`MAX_SHARDS`]).
    pub fn unlimited(name: impl Into<String>, shards: usize) -> ShardedCounter {
        ShardedCounter { name: name.into(), limits: vec![None; shards.clamp(1, MAX_SHARDS)], spill: false, cap: None }
    }

    /// The same counter, whose inserts into a shard with no limit are refused once the shard
    /// is at `cap` or above: a counter with no limit that a fence ([`ShardedCounter::increment_all`]
    /// by more than `cap`) can still close. It still reports its total on every write.
    pub fn capped(mut self, cap: i64) -> ShardedCounter {
        self.cap = Some(cap);
        self
    }

    /// The counter's name (shard 0's).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many shards it has.
    pub fn shards(&self) -> usize {
        self.limits.len()
    }

    /// The name of shard `i`: the counter's own name for shard 0, `<name>#<i>` after.
    pub fn shard_name(&self, i: usize) -> String {
        if i == 0 {
            self.name.clone()
        } else {
            format!("{}#{i}", self.name)
        }
    }

    /// Shard `i`'s limit (`None`: no limit).
    pub fn shard_limit(&self, i: usize) -> Option<i64> {
        self.limits[i]
    }

    /// The counter's limit: the sum of its shards' (`None`: no limit).
    pub fn limit(&self) -> Option<i64> {
        self.limits.iter().copied().sum()
    }

    /// The shard a key starts at (and, for members and unlimited counters, stays in).
    pub fn shard_for(&self, key: &str) -> usize {
        shard_of(key, self.shards())
    }

    /// Inserts `docs` counted in one shard (see the module docs): the one `key` hashes to,
    /// then, for places, any other with room. A duplicate is reported as
    /// [`DocumentStore::insert_counted`] reports it, before a full shard.
    pub async fn insert(&self, store: &dyn DocumentStore, key: &str, docs: Vec<(&'static str, Json)>) -> Result<ShardCounted, StoreError> {
        self.insert_with(store, key, |_| docs.clone()).await
    }

    /// [`ShardedCounter::insert`] with the documents made for the shard they will be counted in
    /// (`docs(shard)`), for callers that record the shard beside their documents.
    pub async fn insert_with(
        &self,
        store: &dyn DocumentStore,
        key: &str,
        docs: impl Fn(usize) -> Vec<(&'static str, Json)>,
    ) -> Result<ShardCounted, StoreError> {
        let (k, start) = (self.shards(), self.shard_for(key));
        if let Some(stored) = self.insert_in(store, start, docs(start)).await? {
            return Ok(stored);
        }
        if !self.spill || k == 1 {
            return Ok(ShardCounted::Full);
        }
        // Its shard is full: the next one, without reading anything first (shards fill at about
        // the same time, so the next one likely has a place left).
        let next = (start + 1) % k;
        if let Some(stored) = self.insert_in(store, next, docs(next)).await? {
            return Ok(stored);
        }
        // Two full shards: the counter is (nearly) full. Read the others once, in parallel, and
        // try those with room, in order; a full counter costs two inserts and one read.
        let rest: Vec<usize> = (2..k).map(|d| (start + d) % k).collect();
        let values = self.read(store, &rest).await?;
        for (i, value) in rest.into_iter().zip(values) {
            if self.limits[i].is_some_and(|limit| value >= limit) {
                continue;
            }
            if let Some(stored) = self.insert_in(store, i, docs(i)).await? {
                return Ok(stored);
            }
        }
        Ok(ShardCounted::Full)
    }

    /// One counted insert in shard `i`; `None` when the shard is full.
    async fn insert_in(
        &self,
        store: &dyn DocumentStore,
        i: usize,
        docs: Vec<(&'static str, Json)>,
    ) -> Result<Option<ShardCounted>, StoreError> {
        let value = match store.insert_counted(docs, &self.shard_name(i), self.limits[i].or(self.cap)).await? {
            Counted::Stored(value) => value,
            Counted::Full => return Ok(None),
        };
        let filled = self.limits[i].is_none_or(|limit| value >= limit);
        let total = if filled { Some(value + self.others_total(store, i).await?) } else { None };
        Ok(Some(ShardCounted::Stored { shard: i, value, total }))
    }

    /// Deletes the document keyed `id` of `collection` and lowers shard `shard` (the one it was
    /// counted in) in one atomic write, as [`DocumentStore::delete_counted`] does under `limit`.
    pub async fn delete(
        &self,
        store: &dyn DocumentStore,
        collection: &str,
        id: &str,
        shard: usize,
        limit: Option<i64>,
    ) -> Result<Uncounted, StoreError> {
        store.delete_counted(collection, id, &self.shard_name(shard), limit).await
    }

    /// Adds `by` to every shard (in parallel); returns the shards' new values. A fence: `by`
    /// above every shard's limit leaves each shard full.
    pub async fn increment_all(&self, store: &dyn DocumentStore, by: i64) -> Result<Vec<i64>, StoreError> {
        try_join_all((0..self.shards()).map(|i| async move { store.increment(&self.shard_name(i), by).await })).await
    }

    /// Every shard's value, read in parallel.
    pub async fn values(&self, store: &dyn DocumentStore) -> Result<Vec<i64>, StoreError> {
        let all: Vec<usize> = (0..self.shards()).collect();
        self.read(store, &all).await
    }

    /// The counter's value: the sum of its shards, read in parallel.
    pub async fn total(&self, store: &dyn DocumentStore) -> Result<i64, StoreError> {
        Ok(self.values(store).await?.into_iter().sum())
    }

    /// The sum of every shard but `i`.
    async fn others_total(&self, store: &dyn DocumentStore, i: usize) -> Result<i64, StoreError> {
        let others: Vec<usize> = (0..self.shards()).filter(|&j| j != i).collect();
        Ok(self.read(store, &others).await?.into_iter().sum())
    }

    /// The values of `shards`, read in parallel. A shard whose limit is 0 (a members shard no
    /// member hashed to) is never written: it reads 0 without a round trip.
    async fn read(&self, store: &dyn DocumentStore, shards: &[usize]) -> Result<Vec<i64>, StoreError> {
        try_join_all(shards.iter().map(|&i| async move {
            if self.limits[i] == Some(0) {
                return Ok(0);
            }
            store.counter(&self.shard_name(i)).await
        }))
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryStore;
    use std::sync::Arc;

    #[test]
    fn shards_grow_with_the_places_up_to_the_most() {
        assert_eq!(shards_for(0), 1);
        assert_eq!(shards_for(3), 1);
        assert_eq!(shards_for(PLACES_PER_SHARD), 1);
        assert_eq!(shards_for(PLACES_PER_SHARD + 1), 2);
        assert_eq!(shards_for(1_000), 16);
        assert_eq!(shards_for(1_000_000), MAX_SHARDS);
        assert_eq!(shards_for(i64::MAX), MAX_SHARDS);
    }

    #[test]
    fn the_limit_is_split_over_the_shards_remainder_first() {
        let small = ShardedCounter::places("q:t", 3);
        assert_eq!((small.shards(), small.shard_limit(0), small.shard_name(0)), (1, Some(3), "q:t".to_owned()));
        let c = ShardedCounter::places("q:t", 130);
        assert_eq!(c.shards(), 3);
        assert_eq!((0..3).map(|i| c.shard_limit(i)).collect::<Vec<_>>(), [Some(44), Some(43), Some(43)]);
        assert_eq!(c.limit(), Some(130));
        assert_eq!(c.shard_name(2), "q:t#2");
        let big = ShardedCounter::places("q:t", 1_000_003);
        assert_eq!((big.shards(), big.limit()), (MAX_SHARDS, Some(1_000_003)));
    }

    #[test]
    fn members_shards_hold_the_members_hashed_there() {
        let members: Vec<String> = (0..200).map(|i| format!("m{i}")).collect();
        let c = ShardedCounter::members("q:t", members.iter().chain(members.iter().take(5)).map(String::as_str));
        assert_eq!((c.shards(), c.limit()), (4, Some(200)));
        for i in 0..4 {
            let here = members.iter().filter(|m| c.shard_for(m) == i).count() as i64;
            assert_eq!(c.shard_limit(i), Some(here));
        }
        assert_eq!(ShardedCounter::members("q:t", ["a", "b", "c"]).shards(), 1);
    }

    fn doc(i: usize) -> Vec<(&'static str, Json)> {
        vec![("votes", crate::to_json(&serde_json::json!({"vote_id": format!("v{i}")})))]
    }

    fn store() -> Arc<dyn DocumentStore> {
        use crate::{CollectionSpec, DatabaseSpec};
        const COLLECTIONS: &[CollectionSpec] = &[CollectionSpec { name: "votes", key: "vote_id", unique: &[], indexed: &[] }];
        Arc::new(MemoryStore::new(DatabaseSpec::new("sharded", COLLECTIONS)).unwrap())
    }

    #[tokio::test]
    async fn places_fill_every_shard_then_refuse_and_the_fills_report_the_total() {
        let store = store();
        let c = ShardedCounter::places("q:t", 200);
        assert_eq!(c.shards(), 4);
        let mut totals = Vec::new();
        for i in 0..200 {
            match c.insert(store.as_ref(), &format!("voter-{i}"), doc(i)).await.unwrap() {
                ShardCounted::Stored { total, .. } => totals.extend(total),
                ShardCounted::Full => panic!("refused vote {i}"),
            }
        }
        assert_eq!(c.insert(store.as_ref(), "late", doc(999)).await.unwrap(), ShardCounted::Full);
        assert_eq!(c.values(store.as_ref()).await.unwrap(), [50, 50, 50, 50]);
        assert_eq!(c.total(store.as_ref()).await.unwrap(), 200);
        // One total per filled shard, growing; the last is the limit.
        assert_eq!(totals.len(), 4);
        assert_eq!(totals.iter().filter(|&&t| t == 200).count(), 1);
        assert_eq!(totals.last(), Some(&200));
    }

    #[tokio::test]
    async fn a_members_counter_fills_when_every_member_is_counted() {
        let store = store();
        let members: Vec<String> = (0..100).map(|i| format!("member-{i}")).collect();
        let c = ShardedCounter::members("q:p", members.iter().map(String::as_str));
        assert_eq!(c.shards(), 2);
        let mut reached = 0;
        for (i, m) in members.iter().enumerate() {
            let ShardCounted::Stored { shard, total, .. } = c.insert(store.as_ref(), m, doc(i)).await.unwrap() else { panic!("full") };
            assert_eq!(shard, c.shard_for(m));
            if total == Some(100) {
                reached += 1;
                assert_eq!(i, 99);
            }
        }
        assert_eq!(reached, 1);
    }

    #[tokio::test]
    async fn an_unlimited_counter_reports_every_total_and_a_fence_fills_every_shard() {
        let store = store();
        let c = ShardedCounter::unlimited("b:j", 3);
        for i in 0..9 {
            let ShardCounted::Stored { total, .. } = c.insert(store.as_ref(), &format!("k{i}"), doc(i)).await.unwrap() else { panic!() };
            assert_eq!(total, Some(i as i64 + 1));
        }
        let fenced = ShardedCounter::places("f:j", 300);
        fenced.increment_all(store.as_ref(), 1 << 40).await.unwrap();
        assert_eq!(fenced.insert(store.as_ref(), "any", doc(50)).await.unwrap(), ShardCounted::Full);
        let ShardCounted::Stored { shard, .. } = c.insert(store.as_ref(), "k-del", doc(60)).await.unwrap() else { panic!() };
        assert_eq!(
            c.delete(store.as_ref(), "votes", "v60", shard, None).await.unwrap(),
            Uncounted::Deleted(c.values(store.as_ref()).await.unwrap()[shard])
        );
        assert_eq!(c.total(store.as_ref()).await.unwrap(), 9);
    }
}
