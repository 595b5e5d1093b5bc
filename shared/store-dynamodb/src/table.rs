//! The key design: one table for every collection of every database, the items it holds (their
//! keys prefixed with the database's name), the attributes they carry, and the global secondary
//! indexes (GSIs) that serve equality lookups, each GSI key write-sharded over [`GSI_SHARDS`]
//! partitions.
//! The crate documentation lists the resulting table exactly; this module computes it from the
//! [`DatabaseSpec`].

use agora_store::{CollectionSpec, DatabaseSpec, StoreError};
use serde_json::Value;

/// Partition key of every item (the table has no sort key).
pub(crate) const PK: &str = "pk";
/// Insertion-order token of a document: the sort key of every GSI.
pub(crate) const SEQ: &str = "seq";
/// Version of a document, raised by every write (optimistic concurrency).
pub(crate) const VER: &str = "ver";
/// A token unique to each write of a document's main item: tells a write the SDK retried
/// after its first attempt was applied from a concurrent write.
pub(crate) const WRITE_TOKEN: &str = "wt";
/// The document's JSON text, when it fits in the item.
pub(crate) const DOC: &str = "doc";
/// Manifest of a document stored in parts: the parts' generation token...
pub(crate) const PART_GEN: &str = "pgen";
/// ... and their number.
pub(crate) const PART_COUNT: &str = "pn";
/// The bytes of one part.
pub(crate) const PART_DATA: &str = "data";
/// The partition keys of a document's unique markers (a list of strings; absent when none).
pub(crate) const MARKERS: &str = "uks";
/// On a unique marker: the key of the document owning it.
pub(crate) const OWNER: &str = "owner";
/// Partition key attribute of the collection GSI.
pub(crate) const ALL_ATTR: &str = "gall";
/// The collection GSI: every document of a collection, sharded.
pub(crate) const ALL_INDEX: &str = "gsi_all";
/// Write shards of every GSI partition key. Each key of the collection GSI and of every field
/// GSI is split over this many partitions, a document's shard chosen by its key
/// (FNV-1a of the key: the same for each GSI, and stable across rewrites), so that no GSI
/// partition takes more than about `1 / GSI_SHARDS` of the writes of one value, however hot. A
/// read queries every shard in parallel and merges them in insertion order. Readers and writers
/// must agree on it (it is not part of the table's schema); it may be raised, never lowered:
/// items written under a smaller count stay in shards that are still read.
pub const GSI_SHARDS: u32 = 16;
/// The collection GSI's shard count before field GSIs were sharded (items with `gall` shards
/// `0..8`): within [`GSI_SHARDS`], so those items are still read.
const LEGACY_COLLECTION_SHARDS: u32 = 8;
const _: () = assert!(LEGACY_COLLECTION_SHARDS <= GSI_SHARDS, "the shards of older items must still be read");
/// Longest partition key the store writes (DynamoDB allows 2,048 bytes).
pub(crate) const MAX_KEY_BYTES: usize = 2_000;

/// The attribute holding the partition key of field GSI number `slot` (from 1).
pub(crate) fn index_attr(slot: usize) -> String {
    format!("g{slot}")
}

/// The number of the field GSI whose partition key attribute is `attr` (`g<n>`), if it is one.
pub(crate) fn index_slot_of(attr: &str) -> Option<usize> {
    let digits = attr.strip_prefix('g')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0)
}

/// The name of field GSI number `slot` (from 1).
pub(crate) fn index_name(slot: usize) -> String {
    format!("gsi{slot}")
}

/// A field GSI of one collection: the fields (one, or two for a composite) whose values make the
/// GSI partition key, and the GSI's number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Index {
    pub fields: Vec<&'static str>,
    pub slot: usize,
}

/// One collection's layout.
#[derive(Debug, Clone)]
pub(crate) struct Collection {
    pub spec: &'static CollectionSpec,
    /// `<database>#<collection>`: what every key of the collection's items starts with (after
    /// the item kind), so that databases sharing the table never meet.
    pub scope: String,
    /// Single-field GSIs (in `indexed` order), then composites.
    pub indexes: Vec<Index>,
}

impl Collection {
    /// The layout of `spec`: one GSI per indexed field (other than the key, which `GetItem`
    /// serves), then one composite GSI pairing the first indexed field with each later one,
    /// unless the pair is a unique set (a unique marker serves that lookup).
    fn new(database: &str, spec: &'static CollectionSpec) -> Collection {
        let fields: Vec<&'static str> = spec.indexed.iter().copied().filter(|f| *f != spec.key).collect();
        let mut indexes: Vec<Index> = Vec::new();
        for field in &fields {
            if !indexes.iter().any(|i| i.fields == [*field]) {
                indexes.push(Index { fields: vec![field], slot: indexes.len() + 1 });
            }
        }
        if let Some((first, others)) = fields.split_first() {
            for other in others {
                let pair = vec![*first, *other];
                let is_unique = spec.unique.iter().any(|set| set.len() == 2 && set.contains(first) && set.contains(other));
                if *other != *first && !is_unique && !indexes.iter().any(|i| i.fields == pair) {
                    indexes.push(Index { fields: pair, slot: indexes.len() + 1 });
                }
            }
        }
        Collection { spec, scope: format!("{database}#{}", spec.name), indexes }
    }

    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// Partition key of the document keyed `id`: `d#<database>#<collection>#<id>`.
    pub fn doc_pk(&self, id: &str) -> String {
        format!("d#{}#{id}", self.scope)
    }

    /// Partition key of part `n` of generation `gen` of the document keyed `id`:
    /// `p#<database>#<collection>#<id>#<gen>#<n>`.
    pub fn part_pk(&self, id: &str, gen: &str, n: usize) -> String {
        format!("p#{}#{id}#{gen}#{n}", self.scope)
    }

    /// Partition key of the marker of unique `set` for `values`:
    /// `u#<database>#<collection>#<fields joined by ,>#<encoded values>`.
    pub fn marker_pk(&self, set: &[&str], values: &[&Value]) -> Option<String> {
        Some(format!("u#{}#{}#{}", self.scope, set.join(","), encode_values(values)?))
    }

    /// Partition key of shard 0 of a field GSI for `values` of its fields:
    /// `<database>#<collection>#<fields joined by ,>#<encoded values>` (the key of the layout
    /// before field GSIs were sharded; [`Collection::index_shard_pk`] makes the other shards').
    pub fn index_pk(&self, index: &Index, values: &[&Value]) -> Option<String> {
        Some(format!("{}#{}#{}", self.scope, index.fields.join(","), encode_values(values)?))
    }

    /// Partition key of shard `shard` of the field GSI key `index_pk` (made by
    /// [`Collection::index_pk`]): shard 0 is `index_pk` itself, so that items written before
    /// field GSIs were sharded are read as shard 0; shard `n > 0` puts `<n>#` before the values:
    /// `<database>#<collection>#<fields joined by ,>#<n>#<encoded values>`. Unambiguous: fields
    /// hold no `#`, and encoded values start with `s:`, `b:`, `n:` or `[`, never a digit. (A
    /// suffix would not be: a string value is encoded unquoted, `s:a#1` could be `"a#1"`
    /// unsharded or `"a"` in shard 1.)
    pub fn index_shard_pk(&self, index_pk: &str, shard: u32) -> String {
        if shard == 0 {
            return index_pk.to_string();
        }
        // `index_pk` is `<scope>#<fields>#<values>`: the shard goes before the values.
        let head = self.scope.len() + 1;
        let fields_end = index_pk[head..].find('#').map_or(index_pk.len(), |i| head + i);
        format!("{}#{shard}{}", &index_pk[..fields_end], &index_pk[fields_end..])
    }

    /// Partition key of collection GSI shard `shard`: `<database>#<collection>#<shard>`.
    pub fn shard_pk(&self, shard: u32) -> String {
        format!("{}#{shard}", self.scope)
    }

    /// The GSI shard of the document keyed `id` (FNV-1a of the key modulo [`GSI_SHARDS`]), for
    /// the collection GSI and each field GSI alike.
    pub fn shard_of(&self, id: &str) -> u32 {
        let hash = agora_support::fnv1a(id.as_bytes());
        (hash % u64::from(GSI_SHARDS)) as u32
    }

    /// The fields whose equalities a query may use: the key, the indexed fields, the fields of
    /// unique sets.
    pub fn pushable_fields(&self) -> Vec<&'static str> {
        let mut fields = vec![self.spec.key];
        for field in self.spec.indexed.iter().chain(self.spec.unique.iter().flat_map(|set| set.iter())) {
            if !fields.contains(field) {
                fields.push(field);
            }
        }
        fields
    }
}

/// The layout of a whole database in its table.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The database's name: the prefix of its keys.
    pub database: String,
    pub collections: Vec<Collection>,
    /// Field GSIs the table needs: the most any collection uses.
    pub slots: usize,
}

impl Layout {
    /// Lays out `db`; fails on names the key design cannot carry unambiguously.
    pub fn new(db: &DatabaseSpec) -> Result<Layout, StoreError> {
        db.check()?;
        check_name("database", db.name())?;
        let mut collections = Vec::new();
        for spec in db.collections {
            check_name("collection", spec.name)?;
            check_name("field", spec.key)?;
            for field in spec.indexed.iter().chain(spec.unique.iter().flat_map(|set| set.iter())) {
                check_name("field", field)?;
            }
            if collections.iter().any(|c: &Collection| c.spec.name == spec.name) {
                return Err(StoreError::Backend(format!("collection {} is listed twice", spec.name)));
            }
            collections.push(Collection::new(db.name(), spec));
        }
        let slots = collections.iter().map(|c| c.indexes.len()).max().unwrap_or(0);
        Ok(Layout { database: db.name().to_string(), collections, slots })
    }

    /// The layout of `name`.
    pub fn collection(&self, name: &str) -> Result<&Collection, StoreError> {
        self.collections.iter().find(|c| c.spec.name == name).ok_or_else(|| StoreError::UnknownCollection(name.to_string()))
    }
}

/// Names go into keys between `#` separators, and field names are joined by `,`.
fn check_name(what: &str, name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.contains(['#', ',']) {
        return Err(StoreError::Backend(format!("the DynamoDB store cannot key a {what} named {name:?} (empty, or holding '#' or ',')")));
    }
    Ok(())
}

/// A scalar as it appears in keys, its JSON type kept apart so that `true` never equals `1` or
/// `"true"`: `s:<string>`, `b:true`/`b:false`, `n:<number>`. Numbers are canonical so that
/// values equal as numbers encode alike (`1`, `1.0` and `1e0` are `n:1`). `None` for `null`,
/// arrays and objects, which are never indexed.
pub(crate) fn encode_scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(format!("s:{s}")),
        Value::Bool(b) => Some(format!("b:{b}")),
        Value::Number(n) => Some(format!("n:{}", canonical_number(n))),
        _ => None,
    }
}

/// One value as [`encode_scalar`]; several as a JSON array of those (unambiguous whatever the
/// strings hold).
fn encode_values(values: &[&Value]) -> Option<String> {
    let encoded: Vec<String> = values.iter().map(|v| encode_scalar(v)).collect::<Option<_>>()?;
    match encoded.as_slice() {
        [one] => Some(one.clone()),
        many => serde_json::to_string(many).ok(),
    }
}

/// The decimal text of a number's exact value, the same for every representation of it: an
/// integer when it is one (`2.0` is `2`), else the shortest text that reads back as the same
/// `f64`.
fn canonical_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    if f.fract() == 0.0 && f.abs() < 1e38 {
        // Exact: an integral f64 below 2^127 fits an i128.
        return (f as i128).to_string();
    }
    f.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const VOTES: CollectionSpec = CollectionSpec {
        name: "votes",
        key: "vote_id",
        unique: &[&["social_task_id", "submitter_subject_id"]],
        indexed: &["social_task_id", "submitter_subject_id", "qualified"],
    };
    const TASKS: CollectionSpec = CollectionSpec { name: "tasks", key: "social_task_id", unique: &[], indexed: &["status"] };
    const DB: DatabaseSpec = DatabaseSpec::new("db", &[TASKS, VOTES]);

    #[test]
    fn votes_get_singles_and_the_task_qualified_composite() {
        let layout = Layout::new(&DB).expect("valid");
        let votes = layout.collection("votes").expect("votes");
        let fields: Vec<_> = votes.indexes.iter().map(|i| (i.fields.join(","), i.slot)).collect();
        assert_eq!(
            fields,
            [
                ("social_task_id".to_string(), 1),
                ("submitter_subject_id".to_string(), 2),
                ("qualified".to_string(), 3),
                ("social_task_id,qualified".to_string(), 4)
            ]
        );
        assert_eq!(layout.slots, 4);
        assert_eq!(layout.collection("tasks").expect("tasks").indexes.len(), 1);
        assert!(matches!(layout.collection("nope"), Err(StoreError::UnknownCollection(_))));
    }

    #[test]
    fn scalars_keep_their_type_and_numbers_their_value() {
        assert_eq!(encode_scalar(&json!("true")).as_deref(), Some("s:true"));
        assert_eq!(encode_scalar(&json!(true)).as_deref(), Some("b:true"));
        assert_eq!(encode_scalar(&json!(1)).as_deref(), Some("n:1"));
        assert_eq!(encode_scalar(&json!(1.0)).as_deref(), Some("n:1"));
        assert_eq!(encode_scalar(&json!(-0.0)).as_deref(), Some("n:0"));
        assert_eq!(encode_scalar(&json!(5.5)).as_deref(), Some("n:5.5"));
        assert_eq!(encode_scalar(&json!(u64::MAX)).as_deref(), Some("n:18446744073709551615"));
        assert_eq!(encode_scalar(&json!(9_007_199_254_740_993u64)).as_deref(), Some("n:9007199254740993"));
        assert_eq!(encode_scalar(&json!(9_007_199_254_740_992.0)).as_deref(), Some("n:9007199254740992"));
        assert_eq!(encode_scalar(&json!(1e300)), Some(format!("n:{}", 1e300)));
        assert_eq!(encode_scalar(&json!(null)), None);
        assert_eq!(encode_scalar(&json!([1])), None);
    }

    #[test]
    fn keys_are_unambiguous() {
        let layout = Layout::new(&DB).expect("valid");
        let votes = layout.collection("votes").expect("votes");
        assert_eq!(votes.doc_pk("v#1"), "d#db#votes#v#1");
        let marker = votes.marker_pk(&["social_task_id", "submitter_subject_id"], &[&json!("t#a"), &json!("s")]);
        assert_eq!(marker.as_deref(), Some(r#"u#db#votes#social_task_id,submitter_subject_id#["s:t#a","s:s"]"#));
        assert_eq!(votes.marker_pk(&["a", "b"], &[&json!("t"), &json!(null)]), None);
        assert_eq!(votes.index_pk(&votes.indexes[2], &[&json!(true)]).as_deref(), Some("db#votes#qualified#b:true"));
        assert!(votes.shard_of("v-1") < GSI_SHARDS);
        assert_eq!(votes.shard_pk(3), "db#votes#3");
        assert_eq!(votes.part_pk("v-1", "g", 2), "p#db#votes#v-1#g#2");
        let other = Layout::new(&DB.named("other")).expect("valid");
        assert_eq!(other.collection("votes").expect("votes").doc_pk("v#1"), "d#other#votes#v#1");
    }

    #[test]
    fn field_gsi_keys_are_sharded_before_their_values() {
        let layout = Layout::new(&DB).expect("valid");
        let votes = layout.collection("votes").expect("votes");
        let (task, pair) = (&votes.indexes[0], &votes.indexes[3]);
        let key = votes.index_pk(task, &[&json!("t1")]).expect("key");
        // Shard 0 is the key of the unsharded layout: items written before the shards are read.
        assert_eq!(votes.index_shard_pk(&key, 0), "db#votes#social_task_id#s:t1");
        assert_eq!(votes.index_shard_pk(&key, 7), "db#votes#social_task_id#7#s:t1");
        assert_eq!(votes.index_shard_pk(&key, 15), "db#votes#social_task_id#15#s:t1");
        let composite = votes.index_pk(pair, &[&json!("t#1"), &json!(true)]).expect("key");
        assert_eq!(votes.index_shard_pk(&composite, 3), r#"db#votes#social_task_id,qualified#3#["s:t#1","b:true"]"#);
        let qualified = votes.index_pk(&votes.indexes[2], &[&json!(true)]).expect("key");
        assert_eq!(votes.index_shard_pk(&qualified, 12), "db#votes#qualified#12#b:true");
        // No shard of one value is a shard of another, whatever the strings hold: values that
        // look like shard suffixes or prefixes included.
        let values = [json!("a"), json!("a#1"), json!("1#s:a"), json!("#1"), json!(""), json!(1), json!(true), json!("a#15")];
        let mut seen = std::collections::HashSet::new();
        for value in &values {
            let key = votes.index_pk(task, &[value]).expect("key");
            for shard in 0..GSI_SHARDS {
                assert!(seen.insert(votes.index_shard_pk(&key, shard)), "{value} shard {shard} collides");
            }
        }
    }

    #[test]
    fn a_documents_shard_is_its_keys_and_spreads_writes() {
        let layout = Layout::new(&DB).expect("valid");
        let votes = layout.collection("votes").expect("votes");
        assert_eq!(votes.shard_of("v-1"), votes.shard_of("v-1"));
        assert_eq!(u64::from(votes.shard_of("v-1")), agora_support::fnv1a(b"v-1") % 16);
        // 10,000 vote ids (uuids, as votes carry): no shard takes more than a tenth.
        let mut per_shard = [0u32; GSI_SHARDS as usize];
        for i in 0..10_000u128 {
            let id = format!(
                "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
                i * 2_654_435_761 % (1 << 32),
                i % 65_536,
                i % 4096,
                (i * 7) % 4096,
                i * 31
            );
            per_shard[votes.shard_of(&id) as usize] += 1;
        }
        let hottest = per_shard.iter().max().copied().unwrap_or(0);
        assert!(hottest <= 1_000, "hottest shard {hottest} of 10,000: {per_shard:?}");
    }

    #[test]
    fn names_with_separators_are_refused() {
        const BAD: CollectionSpec = CollectionSpec { name: "a#b", key: "id", unique: &[], indexed: &[] };
        assert!(Layout::new(&DatabaseSpec::new("x", &[BAD])).is_err());
        assert!(Layout::new(&DatabaseSpec::new("a#b", &[])).is_err());
    }
}
