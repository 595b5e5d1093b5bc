//! SQLite failures as [`StoreError`]s.

use crate::schema::Table;
use agora_store::StoreError;
use rusqlite::ffi;

/// Any SQLite failure: [`StoreError::Backend`].
pub(crate) fn backend(e: rusqlite::Error) -> StoreError {
    StoreError::Backend(e.to_string())
}

/// A failed write to `table`: a broken key or unique constraint becomes
/// [`StoreError::Duplicate`] naming it, anything else [`StoreError::Backend`].
pub(crate) fn write_error(table: &Table, e: rusqlite::Error) -> StoreError {
    if let rusqlite::Error::SqliteFailure(failure, message) = &e {
        let unique = failure.extended_code == ffi::SQLITE_CONSTRAINT_UNIQUE || failure.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY;
        if unique {
            let fields = message.as_deref().map_or_else(|| table.spec.key.to_string(), |m| table.constraint_fields(m));
            return StoreError::Duplicate { collection: table.spec.name.to_string(), fields };
        }
    }
    backend(e)
}

/// A document the store refuses.
pub(crate) fn invalid(table: &Table, reason: impl Into<String>) -> StoreError {
    StoreError::InvalidDocument { collection: table.spec.name.to_string(), reason: reason.into() }
}
