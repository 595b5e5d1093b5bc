//! MongoDB failures as [`StoreError`]s.

use crate::indexes::constraint_in_message;
use agora_store::{CollectionSpec, StoreError};
use mongodb::error::{Error, ErrorKind, WriteFailure};

/// Server error codes meaning "a key or unique index would be duplicated".
const DUPLICATE_KEY_CODES: [i32; 3] = [11000, 11001, 12582];

/// Server error codes meaning "the document is too large" (BSONObjectTooLarge; the document
/// after an update too large).
const TOO_LARGE_CODES: [i32; 3] = [10334, 17419, 17420];

/// IllegalOperation: what a standalone server answers to a transaction.
const ILLEGAL_OPERATION: i32 = 20;

/// The reason given for documents over MongoDB's limit.
pub(crate) const TOO_LARGE: &str = "document exceeds 16 MB (MongoDB's document size limit)";

/// Any failure talking to the server: [`StoreError::Backend`], saying what was being done.
pub(crate) fn backend(doing: &str, e: &Error) -> StoreError {
    if transactions_unsupported(e) {
        return StoreError::Backend(format!("mongodb {doing}: {}: {e}", NO_TRANSACTIONS));
    }
    StoreError::Backend(format!("mongodb {doing}: {e}"))
}

/// What to tell when the deployment cannot run transactions.
pub(crate) const NO_TRANSACTIONS: &str = "this MongoDB deployment does not support transactions, which Agora needs for atomic \
     multi-document inserts: use a replica set (a single-node one will do), a sharded cluster or Atlas";

/// Whether `e` says a key or unique index would be duplicated.
pub(crate) fn is_duplicate_key(e: &Error) -> bool {
    server_error(e).is_some_and(|(code, _)| DUPLICATE_KEY_CODES.contains(&code))
}

/// A failed write to `spec`'s collection: a broken key or unique constraint becomes
/// [`StoreError::Duplicate`] naming it, a document over the size limit
/// [`StoreError::InvalidDocument`], anything else [`StoreError::Backend`].
pub(crate) fn write_error(spec: &CollectionSpec, doing: &str, e: &Error) -> StoreError {
    if let Some((code, message)) = server_error(e) {
        if DUPLICATE_KEY_CODES.contains(&code) {
            // An index the adapter did not create (an `_id` clash) is still a duplicate: name the key.
            let fields = constraint_in_message(spec, message).unwrap_or_else(|| spec.key.to_string());
            return StoreError::Duplicate { collection: spec.name.to_string(), fields };
        }
        if TOO_LARGE_CODES.contains(&code) {
            return invalid(spec, TOO_LARGE);
        }
    }
    backend(doing, e)
}

/// A document the store refuses.
pub(crate) fn invalid(spec: &CollectionSpec, reason: impl Into<String>) -> StoreError {
    StoreError::InvalidDocument { collection: spec.name.to_string(), reason: reason.into() }
}

/// The code and message of the first write or command error the server answered with.
fn server_error(e: &Error) -> Option<(i32, &str)> {
    match e.kind.as_ref() {
        ErrorKind::Write(WriteFailure::WriteError(w)) => Some((w.code, w.message.as_str())),
        ErrorKind::InsertMany(many) => many.write_errors.as_ref().and_then(|errors| errors.first()).map(|w| (w.code, w.message.as_str())),
        ErrorKind::Command(c) => Some((c.code, c.message.as_str())),
        _ => None,
    }
}

/// Did the driver or the server refuse a transaction because the deployment has none?
pub(crate) fn transactions_unsupported(e: &Error) -> bool {
    match e.kind.as_ref() {
        ErrorKind::SessionsNotSupported => true,
        ErrorKind::Transaction { message, .. } => message.contains("not supported"),
        _ => server_error(e).is_some_and(|(code, message)| {
            code == ILLEGAL_OPERATION && (message.contains("Transaction numbers") || message.contains("transaction"))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAIMS: CollectionSpec = CollectionSpec { name: "agora_claims", key: "claim_id", unique: &[], indexed: &[] };

    #[test]
    fn other_errors_are_backend_errors() {
        let e = Error::custom("boom".to_string());
        assert!(matches!(write_error(&CLAIMS, "insert", &e), StoreError::Backend(m) if m.starts_with("mongodb insert:")));
        assert!(!transactions_unsupported(&e));
    }
}
