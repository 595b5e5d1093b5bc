//! The store contract suite against [`agora_store_dynamodb::DynamoStore`] on the server of
//! `AGORA_DYNAMODB_ENDPOINT`: each case on a fresh table, its databases side by side in it.

mod common;

use agora_store::DatabaseSpec;
use std::sync::Arc;

agora_store_contract::contract_tests!(async {
    let table = Arc::new(common::TempTable::new().await);
    move |spec: DatabaseSpec| {
        let table = Arc::clone(&table);
        async move { common::OnTable { store: table.open(spec), table } }
    }
});
