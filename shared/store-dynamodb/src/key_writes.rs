//! Per-partition write accounting: how many writes the store made to each partition key, of the
//! table and of each GSI, so that a benchmark can tell the hottest key's share of the writes and
//! the ceiling that follows from DynamoDB's per-partition limit (about 1,000 write units a
//! second).
//!
//! Off by default: a long-running store writes a new document key with nearly every write, and
//! the tally keeps one entry per key. Switched on with [`DynamoStore::track_key_writes`] or, for
//! a process that builds its stores elsewhere (the local server, a Lambda), the environment
//! variable [`KEY_WRITES_ENV`] (`1` or `true`) read when a store is made. When on, a successful
//! write call takes one lock and a hash look-up per key it wrote.
//!
//! What is counted, once a call succeeds (failed conditions and cancelled transactions are not):
//!
//! * each item written (`PutItem`, `DeleteItem`, each item of a `TransactWriteItems`, a counter's
//!   `UpdateItem`, a part) under its table key `pk`, and under each GSI key the written item
//!   carries (`gall`, `g<n>`): DynamoDB writes the entry of each GSI the item is in;
//! * the GSI keys an update moved the document out of, and those of a deleted document: DynamoDB
//!   deletes those entries, a write to their partitions.
//!
//! A transactional write costs 2 write units per item on the table (DynamoDB's transaction
//! pricing), a plain one 1 (per KB): the tally counts writes, not units, and tells apart how many
//! items were written in transactions ([`KeyWrites::transactional`]).
//!
//! [`DynamoStore::track_key_writes`]: crate::DynamoStore::track_key_writes

use crate::items::Item;
use crate::table::{ALL_ATTR, ALL_INDEX, PK};
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The tally every store of the process shares while [`KEY_WRITES_ENV`] is set.
static PROCESS: OnceLock<Arc<Tally>> = OnceLock::new();

/// The writes of every store of this process made with [`KEY_WRITES_ENV`] set (a local server's
/// databases, its queues), together, with the `top` most written keys; `None` when no store was.
/// For a benchmark that runs the local server in its own process.
pub fn process_key_writes(top: usize) -> Option<KeyWrites> {
    PROCESS.get().map(|tally| tally.snapshot(top))
}

/// Forgets what the process's shared tally counted (see [`process_key_writes`]).
pub fn reset_process_key_writes() {
    if let Some(tally) = PROCESS.get() {
        tally.reset();
    }
}

/// The environment variable that switches the tally on for every store made while it is set
/// (`1` or `true`).
pub const KEY_WRITES_ENV: &str = "AGORA_DYNAMODB_KEY_WRITES";

/// One partition key and the writes it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCount {
    /// The GSI (`gsi_all`, `gsi<n>`) whose partition key this is; `None` for the table's `pk`.
    pub index: Option<String>,
    pub key: String,
    pub writes: u64,
}

/// The writes counted since the tally was switched on or reset ([`crate::DynamoStore::key_writes`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyWrites {
    /// Items written (each put, delete or counter update of one item, once).
    pub items: u64,
    /// Of `items`, those written by `TransactWriteItems` (2 write units each on the table).
    pub transactional: u64,
    /// Writes to partitions: each item's table key plus each GSI entry written or removed.
    pub partition_writes: u64,
    /// Distinct partition keys written (table and GSIs).
    pub keys: usize,
    /// The most written keys, most first (ties by index, then key), as many as asked for.
    pub top: Vec<KeyCount>,
    /// The writes to each key space: the table (`None`), then each GSI (`gsi_all`, `gsi<n>`).
    pub spaces: Vec<(Option<String>, u64)>,
}

impl KeyWrites {
    /// The most written key, table or GSI.
    pub fn hottest(&self) -> Option<&KeyCount> {
        self.top.first()
    }

    /// The most written GSI key (`None` when no GSI was written, or none is among `top`).
    pub fn hottest_index_key(&self) -> Option<&KeyCount> {
        self.top.iter().find(|k| k.index.is_some())
    }

    /// The writes to `key`'s key space (its GSI, or the table) of which it took its share.
    pub fn space_writes(&self, key: &KeyCount) -> u64 {
        self.spaces.iter().find(|(space, _)| *space == key.index).map_or(0, |(_, n)| *n)
    }

    /// The hottest key's writes as a share of `writes` (e.g. the votes written): 0 when nothing
    /// was written.
    pub fn share_of(&self, writes: u64) -> f64 {
        hottest_share(self, writes)
    }
}

/// The hottest key's share of `writes` (what the caller counts as one write of the hot entity:
/// votes, bids, tasks): at most `1 / GSI_SHARDS` or so when only GSI keys are hot, 1 when every
/// write takes the same key (a counter raised by each). 0 when nothing was written.
pub fn hottest_share(tally: &KeyWrites, writes: u64) -> f64 {
    match tally.hottest() {
        Some(hottest) if writes > 0 => hottest.writes as f64 / writes as f64,
        _ => 0.0,
    }
}

/// What a write wrote.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Written<'a> {
    /// A whole item put: its table key and the GSI keys it carries.
    Item(&'a Item),
    /// An item deleted or updated by key (its GSI entries, if any, are counted apart).
    Key(&'a str),
    /// A GSI entry removed: the index's key attribute (`gall`, `g<n>`) and the key.
    IndexEntry { attr: &'a str, key: &'a str },
}

/// The tally behind [`KeyWrites`].
#[derive(Default)]
pub(crate) struct Tally {
    on: AtomicBool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    items: u64,
    transactional: u64,
    partition_writes: u64,
    /// Per key space (table, `gsi_all`, `gsi1`, ...), the writes per key.
    spaces: Vec<HashMap<String, u64>>,
}

/// The key space of an attribute that holds a partition key: 0 the table (`pk`), 1 the
/// collection GSI (`gall`), `n + 1` field GSI `n` (`g<n>`).
fn space_of(attr: &str) -> Option<usize> {
    if attr == PK {
        return Some(0);
    }
    if attr == ALL_ATTR {
        return Some(1);
    }
    crate::table::index_slot_of(attr).map(|n| n + 1)
}

/// The name of key space `space`.
fn space_name(space: usize) -> Option<String> {
    match space {
        0 => None,
        1 => Some(ALL_INDEX.to_string()),
        n => Some(crate::table::index_name(n - 1)),
    }
}

impl State {
    fn add(&mut self, space: usize, key: &str) {
        if self.spaces.len() <= space {
            self.spaces.resize_with(space + 1, HashMap::new);
        }
        let keys = &mut self.spaces[space];
        match keys.get_mut(key) {
            Some(n) => *n += 1,
            None => {
                keys.insert(key.to_string(), 1);
            }
        }
        self.partition_writes += 1;
    }
}

impl Tally {
    /// The tally of a new store: with [`KEY_WRITES_ENV`] set, the process's one tally (on),
    /// which every store made while it is set shares ([`process_key_writes`]); else a tally of
    /// the store's own, off.
    pub fn from_env() -> Arc<Tally> {
        if agora_support::env::var(KEY_WRITES_ENV).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")) {
            return PROCESS.get_or_init(|| Arc::new(Tally { on: AtomicBool::new(true), state: Mutex::default() })).clone();
        }
        Arc::new(Tally::default())
    }

    /// The partition-key attributes of `item` (an empty item when the tally is off): what
    /// [`Written::Item`] reads of an item the write call consumes.
    pub fn keys_of(&self, item: &Item) -> Item {
        if !self.on.load(Ordering::Relaxed) {
            return Item::new();
        }
        item.iter().filter(|(attr, _)| space_of(attr).is_some()).map(|(a, v)| (a.clone(), v.clone())).collect()
    }

    pub fn switch(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    /// Counts what one successful call wrote (`transactional`: by `TransactWriteItems`).
    pub fn record<'a>(&self, transactional: bool, written: impl IntoIterator<Item = Written<'a>>) {
        if !self.on.load(Ordering::Relaxed) {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for w in written {
            match w {
                Written::Item(item) => {
                    state.items += 1;
                    state.transactional += u64::from(transactional);
                    for (attr, value) in item {
                        if let (Some(space), AttributeValue::S(key)) = (space_of(attr), value) {
                            state.add(space, key);
                        }
                    }
                }
                Written::Key(pk) => {
                    state.items += 1;
                    state.transactional += u64::from(transactional);
                    state.add(0, pk);
                }
                Written::IndexEntry { attr, key } => {
                    if let Some(space) = space_of(attr).filter(|s| *s > 0) {
                        state.add(space, key);
                    }
                }
            }
        }
    }

    /// The counts so far, with the `top` most written keys.
    pub fn snapshot(&self, top: usize) -> KeyWrites {
        let state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut all: Vec<(usize, &String, u64)> =
            state.spaces.iter().enumerate().flat_map(|(space, keys)| keys.iter().map(move |(key, n)| (space, key, *n))).collect();
        let keys = all.len();
        all.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(b.1)));
        KeyWrites {
            items: state.items,
            transactional: state.transactional,
            partition_writes: state.partition_writes,
            keys,
            top: all
                .into_iter()
                .take(top)
                .map(|(space, key, writes)| KeyCount { index: space_name(space), key: key.clone(), writes })
                .collect(),
            spaces: state.spaces.iter().enumerate().map(|(space, keys)| (space_name(space), keys.values().sum())).collect(),
        }
    }

    pub fn reset(&self) {
        *self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = State::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_string())
    }

    #[test]
    fn items_count_under_their_table_and_gsi_keys() {
        let tally = Tally::default();
        let item = Item::from([
            ("pk".to_string(), s("d#db#v#1")),
            ("gall".to_string(), s("db#v#3")),
            ("g4".to_string(), s("db#v#f#3#b:true")),
            ("doc".to_string(), s("{}")),
        ]);
        tally.record(false, [Written::Item(&item)]);
        assert_eq!(tally.snapshot(10), KeyWrites::default(), "off by default");
        tally.switch(true);
        tally.record(false, [Written::Item(&item)]);
        let other = Item::from([("pk".to_string(), s("d#db#v#2")), ("g4".to_string(), s("db#v#f#3#b:true"))]);
        tally.record(true, [Written::Item(&other), Written::Key("c#db#n"), Written::IndexEntry { attr: "gall", key: "db#v#3" }]);
        let w = tally.snapshot(2);
        assert_eq!((w.items, w.transactional, w.partition_writes, w.keys), (3, 2, 7, 5));
        // Ties: the collection GSI first, then the field GSIs in order.
        assert_eq!(w.top[0], KeyCount { index: Some("gsi_all".to_string()), key: "db#v#3".to_string(), writes: 2 });
        assert_eq!(w.top[1], KeyCount { index: Some("gsi4".to_string()), key: "db#v#f#3#b:true".to_string(), writes: 2 });
        assert_eq!(w.hottest_index_key(), w.hottest());
        assert!((w.share_of(4) - 0.5).abs() < 1e-9);
        assert_eq!(hottest_share(&KeyWrites::default(), 10), 0.0);
        tally.reset();
        assert_eq!(tally.snapshot(10), KeyWrites::default());
    }
}
