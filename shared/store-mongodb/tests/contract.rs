//! The store contract suite against [`agora_store_mongodb::MongoStore`] on the server at
//! `MONGODB_URI` (started by `./tests/run.sh`): each case names its databases with a prefix of
//! its own (`<prefix>_<spec name>`), dropped afterwards.

mod common;

use agora_store::DatabaseSpec;

agora_store_contract::contract_tests!(async {
    let prefix = common::fresh_database_name();
    move |spec: DatabaseSpec| {
        let name = format!("{prefix}_{}", spec.name);
        async move { common::TestStore::named(spec, name).await }
    }
});
