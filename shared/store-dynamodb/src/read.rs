//! Reading a document back: its main item, then its text, inline or from its parts, read again
//! when a concurrent write replaced the parts being read.

use crate::connection::{consistent_get, Inner};
use crate::items;
use crate::items::Stored;
use crate::parts;
use crate::table::{Collection, MAX_KEY_BYTES};
use agora_store::StoreError;

/// Times `update` and `delete` read a document again after a concurrent write changed it (and a
/// read, after a concurrent write replaced the parts it was reading).
pub(crate) const MAX_ATTEMPTS: u32 = 64;

/// The main item of the document keyed `id` (consistent read).
pub(crate) async fn get_main(inner: &Inner, c: &Collection, id: &str) -> Result<Option<Stored>, StoreError> {
    let pk = c.doc_pk(id);
    if pk.len() > MAX_KEY_BYTES {
        // Longer than any key the store writes.
        return Ok(None);
    }
    consistent_get(inner, pk).await?.map(|item| items::stored(c, item)).transpose()
}

/// The text of the document keyed `id`, whole.
pub(crate) async fn get_text(inner: &Inner, c: &Collection, id: &str) -> Result<Option<String>, StoreError> {
    for _ in 0..MAX_ATTEMPTS {
        let Some(stored) = get_main(inner, c, id).await? else { return Ok(None) };
        if let Some(text) = parts::text_of(inner, c, stored).await? {
            return Ok(Some(text));
        }
    }
    Err(StoreError::Backend(format!("{}/{id}: the document kept being replaced while it was read", c.name())))
}
