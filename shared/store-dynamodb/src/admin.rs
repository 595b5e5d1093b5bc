//! Creating (for local and test use) and deleting the store's table.

use crate::connection::Inner;
use crate::table::{self, ALL_ATTR, ALL_INDEX, DOC, PART_COUNT, PART_GEN, PK, SEQ};
use agora_store::StoreError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, IndexStatus, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType, TableDescription, TableStatus,
};
use std::time::Duration;

/// How long [`ensure_table`] waits for a new table to become active.
const ACTIVE_TIMEOUT: Duration = Duration::from_secs(120);

/// Field GSIs a table this store creates carries at least, as the template's table does: every
/// database of a deployment shares the table, whichever of them creates it first, so it carries
/// what the most demanding of them needs (Orcade's `bid_jobs`: nine), with one to spare.
const TABLE_SLOTS: usize = 10;

/// The GSIs the store needs: `(name, partition key attribute)`, all sorted by `seq`.
pub(crate) fn indexes(inner: &Inner) -> Vec<(String, String)> {
    slots(inner.layout.slots)
}

/// The GSI of the whole collection and `n` field GSIs.
fn slots(n: usize) -> Vec<(String, String)> {
    let mut out = vec![(ALL_INDEX.to_string(), ALL_ATTR.to_string())];
    out.extend((1..=n).map(|slot| (table::index_name(slot), table::index_attr(slot))));
    out
}

/// Creates the table unless it exists, then waits until it and its GSIs are active; fails when
/// an existing table lacks a GSI the store needs.
pub(crate) async fn ensure_table(inner: &Inner) -> Result<(), StoreError> {
    if describe(inner).await?.is_none() {
        create(inner).await?;
    }
    let deadline = tokio::time::Instant::now() + ACTIVE_TIMEOUT;
    loop {
        let Some(description) = describe(inner).await? else {
            return Err(StoreError::Backend(format!("DynamoDB table {} vanished while being created", inner.table)));
        };
        check_indexes(inner, &description)?;
        if is_active(&description) {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(StoreError::Backend(format!("DynamoDB table {} is not active after {ACTIVE_TIMEOUT:?}", inner.table)));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Deletes the table; a missing table is not an error.
pub(crate) async fn delete_table(inner: &Inner) -> Result<(), StoreError> {
    match inner.client.delete_table().table_name(&inner.table).send().await {
        Ok(_) => Ok(()),
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => Ok(()),
        Err(e) => Err(crate::error::backend("DeleteTable", e)),
    }
}

/// The table's description, `None` when it does not exist.
async fn describe(inner: &Inner) -> Result<Option<TableDescription>, StoreError> {
    match inner.client.describe_table().table_name(&inner.table).send().await {
        Ok(out) => Ok(out.table),
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => Ok(None),
        Err(e) => Err(crate::error::backend("DescribeTable", e)),
    }
}

/// `CreateTable`, on-demand capacity. A table created meanwhile by someone else is fine.
async fn create(inner: &Inner) -> Result<(), StoreError> {
    let build = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Backend(format!("building CreateTable: {e}"));
    let key = |name: &str, kind: KeyType| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().map_err(build);
    let string_attr =
        |name: &str| AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().map_err(build);
    let mut call = inner
        .client
        .create_table()
        .table_name(&inner.table)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(key(PK, KeyType::Hash)?)
        .attribute_definitions(string_attr(PK)?)
        .attribute_definitions(string_attr(SEQ)?);
    for (name, attr) in slots(inner.layout.slots.max(TABLE_SLOTS)) {
        let projection = Projection::builder()
            .projection_type(ProjectionType::Include)
            .non_key_attributes(DOC)
            .non_key_attributes(PART_GEN)
            .non_key_attributes(PART_COUNT)
            .build();
        let gsi = GlobalSecondaryIndex::builder()
            .index_name(name)
            .key_schema(key(&attr, KeyType::Hash)?)
            .key_schema(key(SEQ, KeyType::Range)?)
            .projection(projection)
            .build()
            .map_err(build)?;
        call = call.attribute_definitions(string_attr(&attr)?).global_secondary_indexes(gsi);
    }
    match call.send().await {
        Ok(_) => Ok(()),
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_in_use_exception()) => Ok(()),
        Err(e) => Err(crate::error::backend("CreateTable", e)),
    }
}

/// Fails when the table lacks a GSI the store queries.
fn check_indexes(inner: &Inner, description: &TableDescription) -> Result<(), StoreError> {
    let present: Vec<&str> = description.global_secondary_indexes().iter().filter_map(|g| g.index_name()).collect();
    let missing: Vec<String> = indexes(inner).into_iter().map(|(name, _)| name).filter(|name| !present.contains(&name.as_str())).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(StoreError::Backend(format!(
            "DynamoDB table {} lacks the global secondary indexes {} (see the agora-store-dynamodb documentation for the table's design)",
            inner.table,
            missing.join(", ")
        )))
    }
}

fn is_active(description: &TableDescription) -> bool {
    let table = description.table_status() == Some(&TableStatus::Active);
    let gsis = description.global_secondary_indexes().iter().all(|g| g.index_status().is_none_or(|s| *s == IndexStatus::Active));
    table && gsis
}
