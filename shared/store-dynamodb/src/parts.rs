//! Documents larger than an item (DynamoDB items hold at most 400 KB): the text is cut into
//! parts of [`PART_BYTES`], each in an item of its own (`p#<database>#<collection>#<id>#<gen>#<n>`, the
//! bytes in a binary `data` attribute), and the main item holds the manifest (`pgen`, `pn`).
//!
//! Every write of a large document writes a new generation of parts, never over the parts a
//! reader may be reading: the parts are written before (or in the same transaction as) the main
//! item that names them, so a reader never sees a manifest without its parts; the parts of the
//! previous generation are deleted once the main item no longer names them. A reader that finds
//! a part missing has raced such a replacement and reads the main item again.

use crate::connection::Inner;
use crate::items::{Item, Stored};
use crate::key_writes::Written;
use crate::table::{Collection, PART_DATA, PK};
use agora_store::StoreError;
use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, TryStreamExt};

/// Parts read or written at once.
const CONCURRENT_PARTS: usize = 8;

/// The text of a stored document: inline, or read from its parts. `None` when a part is
/// missing (the document was replaced or deleted since its main item was read).
pub(crate) async fn text_of(inner: &Inner, c: &Collection, stored: Stored) -> Result<Option<String>, StoreError> {
    let (gen, count) = match stored.body {
        crate::items::Body::Inline(text) => return Ok(Some(text)),
        crate::items::Body::Parts { gen, count } => (gen, count),
    };
    let id = stored.id;
    let chunks: Vec<Option<Vec<u8>>> = futures::stream::iter(0..count)
        .map(|n| {
            let pk = c.part_pk(&id, &gen, n);
            async move { read_part(inner, pk).await }
        })
        .buffered(CONCURRENT_PARTS)
        .try_collect()
        .await?;
    let mut bytes = Vec::with_capacity(chunks.iter().flatten().map(Vec::len).sum());
    for chunk in chunks {
        match chunk {
            Some(chunk) => bytes.extend_from_slice(&chunk),
            None => return Ok(None),
        }
    }
    String::from_utf8(bytes).map(Some).map_err(|_| StoreError::Backend(format!("{}/{id}: the parts are not UTF-8", c.name())))
}

/// One part's bytes, `None` when it is missing.
async fn read_part(inner: &Inner, pk: String) -> Result<Option<Vec<u8>>, StoreError> {
    inner.stats.count_get();
    let out = inner
        .client
        .get_item()
        .table_name(&inner.table)
        .key(PK, AttributeValue::S(pk.clone()))
        .consistent_read(true)
        .send()
        .await
        .map_err(|e| crate::error::backend("GetItem (part)", e))?;
    match out.item.and_then(|mut item| item.remove(PART_DATA)) {
        Some(AttributeValue::B(blob)) => Ok(Some(blob.into_inner())),
        Some(_) => Err(StoreError::Backend(format!("part {pk} holds no bytes"))),
        None => Ok(None),
    }
}

/// Writes part items outside any transaction, a few at a time.
pub(crate) async fn put_all(inner: &Inner, parts: &[Item]) -> Result<(), StoreError> {
    futures::stream::iter(parts.iter().cloned())
        .map(|part: Item| async move {
            inner.stats.count_put();
            let pk = match part.get(PK) {
                Some(AttributeValue::S(pk)) => pk.clone(),
                _ => String::new(),
            };
            inner
                .client
                .put_item()
                .table_name(&inner.table)
                .set_item(Some(part))
                .send()
                .await
                .map(|_| inner.key_writes.record(false, [Written::Key(&pk)]))
                .map_err(|e| crate::error::backend("PutItem (part)", e))
        })
        .buffer_unordered(CONCURRENT_PARTS)
        .try_collect::<Vec<()>>()
        .await
        .map(|_| ())
}

/// Deletes the `count` parts of generation `gen` of the document keyed `id`. Best effort: the
/// parts are unreachable already (no main item names them), so a failure only leaves garbage,
/// which is logged.
pub(crate) async fn delete(inner: &Inner, c: &Collection, id: &str, gen: &str, count: usize) {
    let outcome = futures::stream::iter(0..count)
        .map(|n| {
            let pk = c.part_pk(id, gen, n);
            async move {
                inner.stats.count_delete();
                inner
                    .client
                    .delete_item()
                    .table_name(&inner.table)
                    .key(PK, AttributeValue::S(pk.clone()))
                    .send()
                    .await
                    .map(|_| inner.key_writes.record(false, [Written::Key(&pk)]))
                    .map_err(|e| crate::error::backend("DeleteItem (part)", e))
            }
        })
        .buffer_unordered(CONCURRENT_PARTS)
        .try_collect::<Vec<()>>()
        .await;
    if let Err(e) = outcome {
        tracing::warn!(collection = c.name(), id, gen, error = %e, "DynamoDB store: old document parts left behind");
    }
}

/// Deletes the parts of an item list written for a document that was then not stored.
pub(crate) async fn delete_items(inner: &Inner, c: &Collection, id: &str, gen: Option<&str>, count: usize) {
    if let Some(gen) = gen {
        delete(inner, c, id, gen, count).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::items::{split, PART_BYTES};
    use crate::table::Layout;
    use agora_store::{CollectionSpec, DatabaseSpec};

    #[test]
    fn parts_cover_the_text_in_order() {
        const C: CollectionSpec = CollectionSpec { name: "t", key: "id", unique: &[], indexed: &[] };
        let layout = Layout::new(&DatabaseSpec::new("d", &[C])).expect("layout");
        let c = layout.collection("t").expect("t");
        let text = vec![b'x'; PART_BYTES * 2 + 5];
        let parts = split(c, "a", "g1", &text);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[2][PK], AttributeValue::S("p#d#t#a#g1#2".to_string()));
        let sizes: Vec<usize> = parts
            .iter()
            .map(|p| match &p[PART_DATA] {
                AttributeValue::B(b) => b.as_ref().len(),
                _ => 0,
            })
            .collect();
        assert_eq!(sizes, [PART_BYTES, PART_BYTES, 5]);
    }
}
