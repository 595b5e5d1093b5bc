//! A `find` large enough to be read in parallel ranges returns every match once, in order.

use agora_filter::Filter;
use agora_store::{to_json, DocumentStore};
use agora_store_contract::fixtures::vote;
use agora_store_contract::CONTRACT_DB;
use agora_store_embedded::EmbeddedStore;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_find_returns_every_match_in_order() {
    let path = std::env::temp_dir().join(format!("agora-store-embedded-large-find-{}.db", std::process::id()));
    let store = EmbeddedStore::open(&path, CONTRACT_DB).expect("open");
    // 36,000 votes of task_a, with a vote of task_b after every fifth: 43,200 rows, read in
    // two ranges on a machine with two cores or more.
    let mut expected = Vec::new();
    for chunk in 0..36 {
        let mut docs = Vec::new();
        for j in 0..1_000 {
            let i = chunk * 1_000 + j;
            let id = format!("a-{i:05}");
            docs.push(("votes", to_json(&vote(&id, "task_a", &format!("s-{i}"), i % 3 != 0))));
            expected.push((id, i % 3 != 0));
            if i % 5 == 0 {
                docs.push(("votes", to_json(&vote(&format!("b-{i:05}"), "task_b", &format!("s-{i}"), true))));
            }
        }
        store.insert(docs).await.expect("insert");
    }
    let ids = |docs: Vec<agora_store::Json>| -> Vec<String> {
        docs.iter().map(|d| serde_json::from_str::<Value>(d.get()).expect("json")["vote_id"].as_str().expect("id").to_string()).collect()
    };
    let all: Vec<String> = expected.iter().map(|(id, _)| id.clone()).collect();
    let qualified: Vec<String> = expected.iter().filter(|(_, q)| *q).map(|(id, _)| id.clone()).collect();

    let found = store.find("votes", &Filter::must(json!({"social_task_id": "task_a"}))).await.expect("find");
    assert_eq!(ids(found), all);
    let found = store.find("votes", &Filter::must(json!({"social_task_id": "task_a", "qualified": true}))).await.expect("find");
    assert_eq!(ids(found), qualified);
    let parsed = Filter::must(json!({"social_task_id": "task_a", "submitter_subject_id": {"$ne": "s-0"}}));
    assert_eq!(ids(store.find("votes", &parsed).await.expect("find")), all[1..]);
    assert_eq!(store.find("votes", &Filter::all()).await.expect("find").len(), 43_200);
    assert_eq!(store.count("votes", &Filter::must(json!({"social_task_id": "task_b"})), None).await.expect("count"), 7_200);

    drop(store);
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
}
