//! SDK failures as [`StoreError`]s.

use agora_store::StoreError;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};

/// Any failure of a DynamoDB call: [`StoreError::Backend`] naming the operation and the cause.
pub(crate) fn backend<E, R>(operation: &str, e: SdkError<E, R>) -> StoreError
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    StoreError::Backend(format!("DynamoDB {operation}: {}", DisplayErrorContext(&e)))
}
