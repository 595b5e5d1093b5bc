//! Documents as items: the main item of a document (its text or the manifest of its parts, its
//! version and insertion order, the partition keys of the GSIs it appears in), its unique
//! markers, the part items of a document too large for one item (written by [`crate::parts`]),
//! and back from items to documents.

use crate::table::{
    self, Collection, ALL_ATTR, DOC, MARKERS, MAX_KEY_BYTES, OWNER, PART_COUNT, PART_DATA, PART_GEN, PK, SEQ, VER, WRITE_TOKEN,
};
use agora_store::document::{scalar_of, TopLevel};
use agora_store::StoreError;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use std::collections::HashMap;

/// Longest text kept inline in the main item.
pub(crate) const INLINE_MAX: usize = 350_000;
/// Bytes per part.
pub(crate) const PART_BYTES: usize = 350_000;
/// The part items of the text `bytes` of the document keyed `id`, generation `gen`.
pub(crate) fn split(c: &Collection, id: &str, gen: &str, bytes: &[u8]) -> Vec<Item> {
    bytes
        .chunks(PART_BYTES)
        .enumerate()
        .map(|(n, chunk)| {
            Item::from([
                (PK.to_string(), AttributeValue::S(c.part_pk(id, gen, n))),
                (PART_DATA.to_string(), AttributeValue::B(Blob::new(chunk.to_vec()))),
            ])
        })
        .collect()
}

/// An item's attributes.
pub(crate) type Item = HashMap<String, AttributeValue>;

/// Where a document's text is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// In the main item's `doc` attribute.
    Inline(String),
    /// In `count` part items of generation `gen`.
    Parts { gen: String, count: usize },
}

/// A unique marker a document owns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    pub pk: String,
    /// The unique set, its fields joined by `,` (as [`StoreError::Duplicate`] names it).
    pub set: String,
}

/// A document ready to be written: its main item, its markers, and its parts when it does not
/// fit in one item.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub id: String,
    pub pk: String,
    pub main: Item,
    pub markers: Vec<Marker>,
    /// The part items (empty when the text is inline).
    pub parts: Vec<Item>,
    /// The generation of `parts`, if any.
    pub gen: Option<String>,
}

/// Builds the items of `collection`'s document `text` (whose top level is `fields`), keyed `id`,
/// at insertion order `seq` and version `ver`.
pub(crate) fn prepare(c: &Collection, text: &str, fields: &TopLevel<'_>, id: &str, seq: &str, ver: u64) -> Result<Prepared, StoreError> {
    let pk = c.doc_pk(id);
    check_key_length(c, &pk, "the key")?;
    let mut main = Item::new();
    main.insert(PK.to_string(), s(&pk));
    main.insert(SEQ.to_string(), s(seq));
    main.insert(VER.to_string(), AttributeValue::N(ver.to_string()));
    main.insert(WRITE_TOKEN.to_string(), s(&crate::order::next_token()));
    // One shard for every GSI key of the document, from its key: stable across rewrites.
    let shard = c.shard_of(id);
    main.insert(ALL_ATTR.to_string(), s(&c.shard_pk(shard)));
    for index in &c.indexes {
        let values: Option<Vec<serde_json::Value>> = index.fields.iter().map(|f| scalar_of(fields, f)).collect();
        if let Some(index_pk) = values.and_then(|v| c.index_pk(index, &v.iter().collect::<Vec<_>>())) {
            let index_pk = c.index_shard_pk(&index_pk, shard);
            check_key_length(c, &index_pk, "an indexed value")?;
            main.insert(table::index_attr(index.slot), s(&index_pk));
        }
    }
    let markers = markers_of(c, fields)?;
    if !markers.is_empty() {
        main.insert(MARKERS.to_string(), AttributeValue::L(markers.iter().map(|m| s(&m.pk)).collect()));
    }
    let (parts, gen) = if text.len() <= INLINE_MAX {
        main.insert(DOC.to_string(), s(text));
        (Vec::new(), None)
    } else {
        let gen = crate::order::next_token();
        let parts = split(c, id, &gen, text.as_bytes());
        main.insert(PART_GEN.to_string(), s(&gen));
        main.insert(PART_COUNT.to_string(), AttributeValue::N(parts.len().to_string()));
        (parts, Some(gen))
    };
    Ok(Prepared { id: id.to_string(), pk, main, markers, parts, gen })
}

/// The markers a document with top-level `fields` owns: one per unique set whose fields all
/// hold scalars (a set with a missing, `null`, array or object value constrains nothing, as a
/// SQL unique index ignores rows with a NULL).
pub(crate) fn markers_of(c: &Collection, fields: &TopLevel<'_>) -> Result<Vec<Marker>, StoreError> {
    let mut out = Vec::new();
    for set in c.spec.unique {
        let values: Option<Vec<serde_json::Value>> = set.iter().map(|f| scalar_of(fields, f)).collect();
        if let Some(pk) = values.and_then(|v| c.marker_pk(set, &v.iter().collect::<Vec<_>>())) {
            check_key_length(c, &pk, "a unique value")?;
            out.push(Marker { pk, set: set.join(",") });
        }
    }
    Ok(out)
}

/// A marker item owned by the document keyed `owner`.
pub(crate) fn marker_item(marker: &Marker, owner: &str) -> Item {
    Item::from([(PK.to_string(), s(&marker.pk)), (OWNER.to_string(), s(owner))])
}

/// A document's main item as read back (from the table, or a GSI's projection of it).
#[derive(Debug, Clone)]
pub(crate) struct Stored {
    pub id: String,
    pub seq: String,
    /// 0 when not read (GSI projections leave it out).
    pub ver: u64,
    pub body: Body,
    /// Partition keys of the document's markers (empty when not read).
    pub markers: Vec<String>,
    /// The GSI keys of the item: `(attribute, key)` for `gall` and each `g<n>` it carries.
    pub index_keys: Vec<(String, String)>,
}

/// Reads a main item of `collection`.
pub(crate) fn stored(c: &Collection, mut item: Item) -> Result<Stored, StoreError> {
    let pk = take_s(&mut item, PK).ok_or_else(|| corrupt(c, "an item without pk"))?;
    let prefix = c.doc_pk("");
    let id = pk.strip_prefix(&prefix).ok_or_else(|| corrupt(c, &format!("item {pk} is not a document")))?.to_string();
    let seq = take_s(&mut item, SEQ).unwrap_or_default();
    let ver = match item.get(VER) {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| corrupt(c, &format!("{pk}: version {n}")))?,
        _ => 0,
    };
    let markers = match item.remove(MARKERS) {
        Some(AttributeValue::L(list)) => {
            list.into_iter().filter_map(|v| if let AttributeValue::S(s) = v { Some(s) } else { None }).collect()
        }
        _ => Vec::new(),
    };
    let body = match take_s(&mut item, DOC) {
        Some(text) => Body::Inline(text),
        None => {
            let gen = take_s(&mut item, PART_GEN).ok_or_else(|| corrupt(c, &format!("{pk} has neither doc nor parts")))?;
            let count = match item.get(PART_COUNT) {
                Some(AttributeValue::N(n)) => n.parse().map_err(|_| corrupt(c, &format!("{pk}: part count {n}")))?,
                _ => return Err(corrupt(c, &format!("{pk}: parts without a count"))),
            };
            Body::Parts { gen, count }
        }
    };
    let index_keys = item
        .into_iter()
        .filter(|(attr, _)| attr == ALL_ATTR || table::index_slot_of(attr).is_some())
        .filter_map(|(attr, value)| if let AttributeValue::S(key) = value { Some((attr, key)) } else { None })
        .collect();
    Ok(Stored { id, seq, ver, body, markers, index_keys })
}

/// A string attribute.
pub(crate) fn s(value: &str) -> AttributeValue {
    AttributeValue::S(value.to_string())
}

/// Removes a string attribute from an item.
fn take_s(item: &mut Item, name: &str) -> Option<String> {
    match item.remove(name) {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// An item the store did not write as it reads it.
pub(crate) fn corrupt(c: &Collection, what: &str) -> StoreError {
    StoreError::Backend(format!("DynamoDB store, collection {}: unexpected item: {what}", c.name()))
}

fn check_key_length(c: &Collection, key: &str, what: &str) -> Result<(), StoreError> {
    if key.len() > MAX_KEY_BYTES {
        return Err(StoreError::InvalidDocument {
            collection: c.name().to_string(),
            reason: format!("{what} is too long for a DynamoDB key ({} bytes, at most {MAX_KEY_BYTES} with its prefix)", key.len()),
        });
    }
    Ok(())
}

/// An item's approximate size as DynamoDB counts it (names plus values).
pub(crate) fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        _ => 8,
    }
}
