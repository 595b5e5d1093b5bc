//! Conditional writes: one item alone as a conditional `PutItem`/`DeleteItem`, several together
//! as one `TransactWriteItems` (all or none), with each write's failure mapped back to what it
//! means (a duplicate key or unique set, or a concurrent change of the document).

use crate::connection::Inner;
use crate::items::Item;
use crate::key_writes::Written;
use crate::table::{PK, WRITE_TOKEN};
use agora_store::StoreError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update};
use std::time::Duration;

/// Most writes one `TransactWriteItems` takes (a DynamoDB limit).
pub const MAX_TRANSACTION_ITEMS: usize = 100;
/// Largest total item size written in one transaction (DynamoDB allows 4 MB; some room is left
/// for the request's own overhead).
pub(crate) const MAX_TRANSACTION_BYTES: usize = 3_500_000;
/// Times a transaction cancelled by a concurrent transaction on the same items is tried again.
const CONFLICT_RETRIES: u32 = 10;

/// The condition of one write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Condition {
    /// Unconditional.
    None,
    /// The item must not exist yet (`attribute_not_exists(pk)`).
    New,
    /// The item must be at this version (`ver = :ver`).
    Version(u64),
}

/// What a write whose condition fails means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The key or a unique set is taken: [`StoreError::Duplicate`].
    Duplicate { collection: String, fields: String },
    /// The document changed since it was read: read it again.
    Changed,
    /// A counter raised with the write was at its limit.
    Full,
}

/// One write.
#[derive(Debug, Clone)]
pub(crate) enum Write {
    Put {
        item: Item,
        condition: Condition,
        failure: Failure,
    },
    Delete {
        pk: String,
        condition: Condition,
        failure: Failure,
    },
    /// `ADD by` to the counter item `pk`, when it is below `limit` (fails as [`Failure::Full`]).
    Raise {
        pk: String,
        by: i64,
        limit: Option<i64>,
        failure: Failure,
    },
}

impl Write {
    /// What the write writes, for the key tally.
    fn written(&self) -> Written<'_> {
        match self {
            Write::Put { item, .. } => Written::Item(item),
            Write::Delete { pk, .. } | Write::Raise { pk, .. } => Written::Key(pk),
        }
    }

    fn failure(&self) -> &Failure {
        match self {
            Write::Put { failure, .. } | Write::Delete { failure, .. } | Write::Raise { failure, .. } => failure,
        }
    }
}

/// `(expression, :ver value)` of a condition.
fn expression(condition: Condition) -> (Option<&'static str>, Option<AttributeValue>) {
    match condition {
        Condition::None => (None, None),
        Condition::New => (Some("attribute_not_exists(pk)"), None),
        Condition::Version(v) => (Some("ver = :ver"), Some(AttributeValue::N(v.to_string()))),
    }
}

/// Runs `writes`, all or none. `Ok(Err(failure))` when a condition failed: the first failing
/// write's meaning, in the order given (so callers list the document's own write first).
pub(crate) async fn commit(inner: &Inner, writes: Vec<Write>) -> Result<Result<(), Failure>, StoreError> {
    match writes.len() {
        0 => Ok(Ok(())),
        1 if !matches!(writes[0], Write::Raise { .. }) => single(inner, writes.into_iter().next().expect("one write")).await,
        n if n > MAX_TRANSACTION_ITEMS => Err(StoreError::Backend(format!(
            "a write of {n} items exceeds DynamoDB's {MAX_TRANSACTION_ITEMS} items per transaction \
             (each document counts once, plus one per unique set, plus its parts when large)"
        ))),
        _ => transaction(inner, writes).await,
    }
}

/// One write on its own.
async fn single(inner: &Inner, write: Write) -> Result<Result<(), Failure>, StoreError> {
    match write {
        Write::Put { item, condition, failure } => {
            inner.stats.count_put();
            let token = item.get(WRITE_TOKEN).cloned();
            let (expr, ver) = expression(condition);
            // The item's keys, for the tally (not the whole item: it may hold 350 KB).
            let written = inner.key_writes.keys_of(&item);
            let mut call =
                inner.client.put_item().table_name(&inner.table).set_item(Some(item)).set_condition_expression(expr.map(str::to_string));
            if let Some(ver) = ver {
                call = call.expression_attribute_values(":ver", ver);
            }
            let sent = call.return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld).send().await;
            match sent {
                Ok(_) => {
                    inner.key_writes.record(false, [Written::Item(&written)]);
                    Ok(Ok(()))
                }
                Err(e) => match e.as_service_error() {
                    Some(PutItemError::ConditionalCheckFailedException(failed)) => {
                        // The SDK retried a put whose first attempt was applied (its response
                        // lost): the item found is this very write.
                        let ours = token.is_some() && failed.item().and_then(|old| old.get(WRITE_TOKEN)) == token.as_ref();
                        if !ours {
                            return Ok(Err(failure));
                        }
                        inner.key_writes.record(false, [Written::Item(&written)]);
                        Ok(Ok(()))
                    }
                    _ => Err(crate::error::backend("PutItem", e)),
                },
            }
        }
        Write::Raise { .. } => transaction(inner, vec![write]).await,
        Write::Delete { pk, condition, failure } => {
            inner.stats.count_delete();
            let (expr, ver) = expression(condition);
            let mut call = inner
                .client
                .delete_item()
                .table_name(&inner.table)
                .key(PK, AttributeValue::S(pk.clone()))
                .set_condition_expression(expr.map(str::to_string));
            if let Some(ver) = ver {
                call = call.expression_attribute_values(":ver", ver);
            }
            match call.send().await {
                Ok(_) => {
                    inner.key_writes.record(false, [Written::Key(&pk)]);
                    Ok(Ok(()))
                }
                Err(e) if e.as_service_error().is_some_and(|s| s.is_conditional_check_failed_exception()) => Ok(Err(failure)),
                Err(e) => Err(crate::error::backend("DeleteItem", e)),
            }
        }
    }
}

/// Several writes in one transaction, tried again while concurrent transactions cancel it.
async fn transaction(inner: &Inner, writes: Vec<Write>) -> Result<Result<(), Failure>, StoreError> {
    let items = writes.iter().map(|w| transact_item(inner, w)).collect::<Result<Vec<_>, _>>()?;
    let mut attempt = 0;
    loop {
        inner.stats.count_transaction();
        // Idempotent for the SDK's own retries: a retry of a committed transaction succeeds.
        let token = uuid::Uuid::new_v4().to_string();
        let sent = inner.client.transact_write_items().set_transact_items(Some(items.clone())).client_request_token(token).send().await;
        let e = match sent {
            Ok(_) => {
                inner.key_writes.record(true, writes.iter().map(Write::written));
                return Ok(Ok(()));
            }
            Err(e) => e,
        };
        let reasons: Vec<Option<String>> = match e.as_service_error() {
            Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) => {
                cancelled.cancellation_reasons().iter().map(|r| r.code().map(str::to_string)).collect()
            }
            _ => return Err(crate::error::backend("TransactWriteItems", e)),
        };
        if let Some(i) = reasons.iter().position(|code| code.as_deref() == Some("ConditionalCheckFailed")) {
            if let Some(write) = writes.get(i) {
                return Ok(Err(write.failure().clone()));
            }
        }
        let conflict = reasons.iter().any(|code| code.as_deref() == Some("TransactionConflict"));
        if conflict && attempt < CONFLICT_RETRIES {
            attempt += 1;
            tokio::time::sleep(backoff(attempt)).await;
            continue;
        }
        return Err(crate::error::backend("TransactWriteItems", e));
    }
}

/// The SDK form of one write.
fn transact_item(inner: &Inner, write: &Write) -> Result<TransactWriteItem, StoreError> {
    let build_error = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Backend(format!("building a DynamoDB transaction: {e}"));
    Ok(match write {
        Write::Put { item, condition, .. } => {
            let (expr, ver) = expression(*condition);
            let mut put =
                Put::builder().table_name(&inner.table).set_item(Some(item.clone())).set_condition_expression(expr.map(str::to_string));
            if let Some(ver) = ver {
                put = put.expression_attribute_values(":ver", ver);
            }
            TransactWriteItem::builder().put(put.build().map_err(build_error)?).build()
        }
        Write::Delete { pk, condition, .. } => {
            let (expr, ver) = expression(*condition);
            let mut delete = Delete::builder()
                .table_name(&inner.table)
                .key(PK, AttributeValue::S(pk.clone()))
                .set_condition_expression(expr.map(str::to_string));
            if let Some(ver) = ver {
                delete = delete.expression_attribute_values(":ver", ver);
            }
            TransactWriteItem::builder().delete(delete.build().map_err(build_error)?).build()
        }
        Write::Raise { pk, by, limit, .. } => {
            let mut update = Update::builder()
                .table_name(&inner.table)
                .key(PK, AttributeValue::S(pk.clone()))
                .update_expression("ADD #n :by")
                .expression_attribute_names("#n", crate::counters::VALUE)
                .expression_attribute_values(":by", AttributeValue::N(by.to_string()));
            if let Some(limit) = limit {
                // A missing counter counts as 0: below any positive limit.
                let condition = if *limit > 0 { "attribute_not_exists(#n) OR #n < :limit" } else { "#n < :limit" };
                update = update.condition_expression(condition).expression_attribute_values(":limit", AttributeValue::N(limit.to_string()));
            }
            TransactWriteItem::builder().update(update.build().map_err(build_error)?).build()
        }
    })
}

/// A short random wait before trying again: up to `2 * attempt` ms (at most 40 ms).
pub(crate) fn backoff(attempt: u32) -> Duration {
    let span = u128::from(attempt.clamp(1, 20)) * 2_000;
    let jitter = uuid::Uuid::new_v4().as_u128() % span;
    Duration::from_micros(u64::try_from(jitter).unwrap_or(0))
}
