//! Counters ([`agora_store::DocumentStore::increment`]): one item each, `c#<database>#<name>`, changed with
//! an atomic `ADD` (no read, no transaction, so concurrent increments never conflict).
//!
//! An `UpdateItem` the SDK retries after its first attempt was applied (the response lost)
//! must not count twice: each call stamps the item with a token of its own and is conditional
//! on the item not carrying it already. A retry that finds its own token reads the value back.

use crate::connection::Inner;
use crate::key_writes::Written;
use crate::table::{PK, WRITE_TOKEN};
use crate::writes::{Failure, Write};
use agora_store::StoreError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

/// The attribute holding a counter's value.
pub(crate) const VALUE: &str = "n";

/// Partition key of the counter `name` of `database`.
fn counter_pk(database: &str, name: &str) -> String {
    format!("c#{database}#{name}")
}

fn number(item: Option<&std::collections::HashMap<String, AttributeValue>>, name: &str) -> Result<i64, StoreError> {
    match item.and_then(|i| i.get(VALUE)) {
        Some(AttributeValue::N(n)) => n.parse().map_err(|_| StoreError::Backend(format!("counter {name} holds {n}, not an integer"))),
        other => Err(StoreError::Backend(format!("counter {name} holds {other:?}, not a number"))),
    }
}

/// The checked partition key of the counter `name`.
fn checked_pk(inner: &Inner, name: &str) -> Result<String, StoreError> {
    let pk = counter_pk(&inner.layout.database, name);
    if pk.len() > crate::table::MAX_KEY_BYTES {
        return Err(StoreError::Backend(format!("counter name of {} bytes is too long", name.len())));
    }
    Ok(pk)
}

/// The write adding `by` to the counter `name` inside a transaction, when below `limit`
/// (`DocumentStore::insert_counted` by 1, `delete_counted` by -1). A transaction cannot return
/// the new value: read it with [`value`] once committed. (Its client request token makes the
/// SDK's retries of a committed transaction harmless, so no write token is needed.)
pub(crate) fn raise(inner: &Inner, name: &str, by: i64, limit: Option<i64>) -> Result<Write, StoreError> {
    Ok(Write::Raise { pk: checked_pk(inner, name)?, by, limit, failure: Failure::Full })
}

/// The counter's value now, read consistently (0 when missing).
pub(crate) async fn value(inner: &Inner, name: &str) -> Result<i64, StoreError> {
    match crate::connection::consistent_get(inner, checked_pk(inner, name)?).await? {
        Some(item) => number(Some(&item), name),
        None => Ok(0),
    }
}

pub(crate) async fn increment(inner: &Inner, name: &str, by: i64) -> Result<i64, StoreError> {
    let pk = checked_pk(inner, name)?;
    let token = crate::order::next_token();
    inner.stats.count_update();
    let updated = inner
        .client
        .update_item()
        .table_name(&inner.table)
        .key(PK, AttributeValue::S(pk.clone()))
        .update_expression("ADD #n :by SET #wt = :wt")
        .condition_expression("attribute_not_exists(#wt) OR #wt <> :wt")
        .expression_attribute_names("#n", VALUE)
        .expression_attribute_names("#wt", WRITE_TOKEN)
        .expression_attribute_values(":by", AttributeValue::N(by.to_string()))
        .expression_attribute_values(":wt", AttributeValue::S(token))
        .return_values(ReturnValue::AllNew)
        .send()
        .await;
    match updated {
        Ok(out) => {
            inner.key_writes.record(false, [Written::Key(&pk)]);
            number(out.attributes(), name)
        }
        Err(e) if e.as_service_error().is_some_and(|s| s.is_conditional_check_failed_exception()) => {
            // Our own earlier attempt was applied: the value now (later increments included).
            inner.key_writes.record(false, [Written::Key(&pk)]);
            number(crate::connection::consistent_get(inner, pk).await?.as_ref(), name)
        }
        Err(e) => Err(crate::error::backend("UpdateItem", e)),
    }
}
