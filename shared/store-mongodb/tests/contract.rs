//! The store contract suite against [`agora_store_mongodb::MongoStore`] on the server at
//! `MONGODB_URI` (started by `./tests/run.sh`), each case on a fresh database.

mod common;

agora_store_contract::contract_tests!(async { common::TestStore::fresh(agora_store_contract::VOTING_DB).await });
