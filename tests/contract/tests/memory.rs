//! The store contract suite against [`agora_store::memory::MemoryStore`], each case on a fresh
//! [`MemoryBackend`] (several databases by name, as a server holds them).

use agora_store::memory::MemoryBackend;
use agora_store::DatabaseSpec;

agora_store_contract::contract_tests!(async {
    let backend = MemoryBackend::new();
    move |spec: DatabaseSpec| {
        let store = backend.open(spec).expect("open a memory database");
        async move { store }
    }
});
