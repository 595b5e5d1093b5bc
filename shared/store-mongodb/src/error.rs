//! MongoDB failures as [`StoreError`]s.

use crate::indexes::constraint_in_message;
use agora_store::{CollectionSpec, StoreError};
use mongodb::error::{Error, ErrorKind, WriteFailure};

/// Server error codes meaning "a key or unique index would be duplicated".
const DUPLICATE_KEY_CODES: [i32; 3] = [11000, 11001, 12582];

/// Server error codes meaning "the document is too large" (BSONObjectTooLarge; the document
/// after an update too large).
const TOO_LARGE_CODES: [i32; 3] = [10334, 17419, 17420];

/// Server error codes meaning "this field name cannot be stored or used" (DollarPrefixedFieldName,
/// EmptyFieldName, DottedFieldName, and the aggregation's FieldPath refusals: a name that is
/// empty, starts with `$`, holds a NUL or a `.`, ends with `.`): the document's fault, not the
/// server's. Agora sends none of these (keys are checked at the edge, values are `$literal`s),
/// but a server stricter than the one tested must still answer the input's fault as such.
const INVALID_NAME_CODES: [i32; 9] = [52, 56, 57, 15998, 16410, 16411, 16412, 40352, 40353];

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
/// [`StoreError::Duplicate`] naming it; what the written document is to blame for
/// [`StoreError::InvalidDocument`] ([`input_fault`]: a document over the size limit, a field
/// name the server refuses); anything else
/// [`StoreError::Backend`].
pub(crate) fn write_error(spec: &CollectionSpec, doing: &str, e: &Error) -> StoreError {
    if let Some((code, message)) = server_error(e) {
        if DUPLICATE_KEY_CODES.contains(&code) {
            // An index the adapter did not create (an `_id` clash) is still a duplicate: name the key.
            let fields = constraint_in_message(spec, message).unwrap_or_else(|| spec.key.to_string());
            return StoreError::Duplicate { collection: spec.name.to_string(), fields };
        }
    }
    match input_fault(e) {
        Some(reason) => invalid(spec, reason),
        None => backend(doing, e),
    }
}

/// Why the server or the driver refused a write because of what was written, if it did: a
/// document over the size limit (the server's codes, or the driver's own check before sending),
/// a field name the server cannot store.
pub(crate) fn input_fault(e: &Error) -> Option<String> {
    if let Some((code, message)) = server_error(e) {
        if TOO_LARGE_CODES.contains(&code) {
            return Some(TOO_LARGE.to_owned());
        }
        if INVALID_NAME_CODES.contains(&code) {
            return Some(format!("the server refused a field name: {message}"));
        }
        return None;
    }
    match e.kind.as_ref() {
        // The driver's own size check before sending (`insert document must be within N bytes`).
        ErrorKind::InvalidArgument { message, .. } if driver_says_too_large(message) => Some(TOO_LARGE.to_owned()),
        // (A document the driver could not encode never reaches it: the store encodes every
        // document itself first, a NUL in a key refused as an invalid document then.)
        _ => None,
    }
}

/// Whether the driver's refusal of an argument is its size check (`insert document must be
/// within 16777216 bytes, but document provided is ... bytes`).
fn driver_says_too_large(message: &str) -> bool {
    message.contains("must be within") && message.contains("bytes")
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

    /// A server's write error with `code` and `message`.
    fn written(code: i32, message: &str) -> Error {
        let failure: mongodb::error::WriteError =
            serde_json::from_value(serde_json::json!({"code": code, "errmsg": message})).expect("a write error");
        Error::from(ErrorKind::Write(WriteFailure::WriteError(failure)))
    }

    #[test]
    fn what_the_document_is_to_blame_for_is_an_invalid_document() {
        for (code, message) in [
            (52, "The dollar ($) prefixed field '$x' in 'm.$x' is not valid for storage."),
            (57, "The dotted field 'a.b' in 'a.b' is not valid for storage."),
            (16411, "FieldPath field names may not contain '\0'."),
            (10334, "BSONObj size: 17000000 is invalid."),
            (17419, "Resulting document after update is larger than 16777216"),
        ] {
            match write_error(&CLAIMS, "insert", &written(code, message)) {
                StoreError::InvalidDocument { collection, reason } => {
                    assert_eq!(collection, "agora_claims");
                    assert!(reason.contains(message) || reason == TOO_LARGE, "{code}: {reason}");
                }
                other => panic!("{code}: {other:?}"),
            }
        }
        assert!(driver_says_too_large("insert document must be within 16777216 bytes, but document provided is 16777300 bytes"));
        assert!(!driver_says_too_large("a bad option"));
        assert!(matches!(write_error(&CLAIMS, "insert", &written(11000, "E11000 duplicate key")), StoreError::Duplicate { .. }));
        assert!(matches!(write_error(&CLAIMS, "insert", &written(112, "WriteConflict")), StoreError::Backend(_)));
    }

    #[test]
    fn other_errors_are_backend_errors() {
        let e = Error::custom("boom".to_string());
        assert!(matches!(write_error(&CLAIMS, "insert", &e), StoreError::Backend(m) if m.starts_with("mongodb insert:")));
        assert!(!transactions_unsupported(&e));
    }
}
