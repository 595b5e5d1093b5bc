//! The store contract suite against [`agora_store_dynamodb::DynamoStore`] on the server of
//! `AGORA_DYNAMODB_ENDPOINT`, each case on a fresh table.

mod common;

agora_store_contract::contract_tests!(async { common::TempTable::new().await });
