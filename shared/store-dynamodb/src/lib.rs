//! The DynamoDB [`agora_store::DocumentStore`]: every collection of every database in one
//! table, each key prefixed with the database's name.
//!
//! ```ignore
//! let store = DynamoStore::connect(DynamoConfig::from_env(), VOTING_DB).await?;
//! store.ensure_table().await?; // local and test use; in AWS the template creates the table
//! let exchange = DynamoStore::with_client(store.client().clone(), store.table_name(), XCHANGE_DB.named("exchange_a"))?;
//! ```
//!
//! # One table, the database as a key prefix
//!
//! Databases (`voting_db`, `exchange_<id>`, ...) share the stack's one table: every partition
//! key, GSI key and counter key starts with `<database>#` (after the item kind), so two databases
//! with the same collections never meet, and opening a new exchange's database needs no table,
//! no template change and no IAM change. A table per database would make a new exchange a
//! deployment step (`CreateTable` at run time, its GSIs, its permissions) for no gain:
//! DynamoDB partitions by key, not by table. The GSIs are shared too: a table needs as many
//! field GSIs as the database that needs the most ([`DynamoStore::ensure_table`] checks the
//! table has those of its own database).
//!
//! [`DynamoConfig::from_env`] reads `AGORA_DYNAMODB_TABLE` (default `agora`) and
//! `AGORA_DYNAMODB_ENDPOINT` (a DynamoDB-compatible server, e.g. moto); region and credentials
//! come from the standard AWS environment.
//!
//! # The table
//!
//! On-demand capacity; partition key only; every attribute named in a key schema is a string:
//!
//! | Key schema | Attribute | Type |
//! |---|---|---|
//! | table `HASH` | `pk` | S |
//! | GSI `gsi_all`: `HASH` / `RANGE` | `gall` / `seq` | S / S |
//! | GSI `gsi1`: `HASH` / `RANGE` | `g1` / `seq` | S / S |
//! | GSI `gsi2`: `HASH` / `RANGE` | `g2` / `seq` | S / S |
//! | GSI `gsi3`: `HASH` / `RANGE` | `g3` / `seq` | S / S |
//! | GSI `gsi4`: `HASH` / `RANGE` | `g4` / `seq` | S / S |
//! | ... `gsi10`: `HASH` / `RANGE` | `g10` / `seq` | S / S |
//!
//! Every GSI has projection `INCLUDE` with the non-key attributes `doc`, `pgen`, `pn`. The number
//! of field GSIs (`gsi1`..`gsiN`) a database needs is the most any of its collections needs: 4
//! for `voting_db`, 9 for Orcade's `assets`. [`DynamoStore::ensure_table`] creates a table with
//! ten (`gsi1`..`gsi10`), enough for every service's database, as the template does; in
//! CloudFormation/SAM:
//!
//! ```yaml
//! AttributeDefinitions:
//!   - {AttributeName: pk, AttributeType: S}
//!   - {AttributeName: seq, AttributeType: S}
//!   - {AttributeName: gall, AttributeType: S}
//!   - {AttributeName: g1, AttributeType: S}   # ... g2 to g10 likewise
//! KeySchema: [{AttributeName: pk, KeyType: HASH}]
//! BillingMode: PAY_PER_REQUEST
//! GlobalSecondaryIndexes:
//!   - IndexName: gsi_all                      # ... gsi1..gsi10 with g1..g10 likewise
//!     KeySchema: [{AttributeName: gall, KeyType: HASH}, {AttributeName: seq, KeyType: RANGE}]
//!     Projection: {ProjectionType: INCLUDE, NonKeyAttributes: [doc, pgen, pn]}
//! ```
//!
//! # Items
//!
//! In the keys below, `<collection>` stands for `<database>#<collection>`.
//!
//! * **Document** `pk = d#<collection>#<id>`: `doc` (S) the JSON text exactly as written (so
//!   documents round-trip byte for byte, and `find` hands the text back untouched), or the
//!   manifest `pgen` (S) + `pn` (N) of a document stored in parts; `ver` (N) raised by every
//!   write; `wt` (S) a token unique to each write (a `PutItem` the SDK retried after its first
//!   attempt was applied recognises itself); `seq` (S) insertion order (see `order.rs`), kept by
//!   updates; `gall` (S) `<collection>#<shard>`, where the document's shard is FNV-1a of its id
//!   modulo [`GSI_SHARDS`] (16); `g<n>` (S) for each field GSI the document is in, in the same
//!   shard (see *Write shards*); `uks` (L of S) the keys of its unique markers.
//! * **Unique marker** `pk = u#<collection>#<fields joined by ,>#<values>`, `owner` (S) the key
//!   of the document holding those values. Written and deleted in the same transaction as the
//!   document, each with `attribute_not_exists(pk)`.
//! * **Part** `pk = p#<collection>#<id>#<gen>#<n>`, `data` (B) bytes `n * 350,000 ..` of the
//!   text, for documents over 350,000 bytes (`parts.rs`).
//! * **Counter** `pk = c#<database>#<name>`, `n` (N) its value, `wt` (S) the token of its last increment
//!   (`counters.rs`). In no GSI.
//!
//! Values in keys keep their JSON type: `s:<string>`, `b:true`, `n:<number>` (numbers canonical:
//! `1`, `1.0` and `1e0` are all `n:1`); several values are a JSON array of those. Only strings,
//! numbers and booleans are indexed or unique: a document whose indexed field is missing, `null`,
//! an array or an object is not in that field's GSI (as the embedded store's generated columns are
//! NULL then), and a unique set with such a value constrains nothing.
//!
//! # Field GSIs
//!
//! Derived from each [`agora_store::CollectionSpec`]: one GSI per `indexed` field (except the
//! key, which `GetItem` serves), in `indexed` order, then one composite GSI pairing the first
//! indexed field with each later one, unless the pair is a unique set (its marker serves that
//! lookup). `g<n> = <collection>#<fields joined by ,>#<values>` in shard 0, and
//! `<collection>#<fields joined by ,>#<shard>#<values>` in shards 1 to 15 (see *Write shards*).
//! For `voting_db`:
//!
//! | GSI | `votes` | `social_task_core_data` |
//! |---|---|---|
//! | `gsi1` | `social_task_id` | `status` |
//! | `gsi2` | `submitter_subject_id` | |
//! | `gsi3` | `qualified` | |
//! | `gsi4` | `social_task_id,qualified` | |
//!
//! So the hot paths are keyed reads: vote intake is `GetItem` (vote by id) and the unique
//! marker of `(social_task_id, submitter_subject_id)`; the trigger count is a counter item
//! raised with one atomic `UpdateItem` per qualified vote (strongly consistent, unlike a GSI
//! count); the start sweep a `Query` of the shards of `gsi1` on
//! `status = scheduled`. `query.rs` documents the choice of access path; the store never calls
//! `Scan` (a filter without a usable equality queries the shards of `gsi_all`).
//!
//! # Write shards
//!
//! A DynamoDB partition takes about 1,000 write units a second, GSI partitions included. So that
//! no GSI key takes every write of a hot value (the votes of one task on `social_task_id`, every
//! qualified vote of the deployment on `qualified`), every GSI partition key is split over
//! [`GSI_SHARDS`] = 16 shards: a document's shard is FNV-1a of its key modulo 16, the same for
//! `gall` and each `g<n>`, and stable across rewrites (an update never moves an item between
//! shards). A value's writes spread evenly over its 16 keys (10,000 votes of one task: the
//! hottest key takes 6 to 7% of them). A read of a GSI key (`find`, `count`, `find_stream`)
//! queries its 16 shards at once and merges them by `seq`, so answers and their order are those
//! of one partition; a count with a limit stops once the shards' counts together reach it.
//!
//! Low-cardinality fields (`qualified`, `is_winner`, statuses, modes, types) keep their own GSIs:
//! sharded like the others, their keys take a sixteenth of the writes each, the fan-out reads
//! being the price (16 `Query` calls, in parallel, instead of one). Unique markers and
//! documents are keyed by high-cardinality values already, and counters (`c#...`) are one item
//! each: not sharded here.
//!
//! Items written before the shards (unsharded `g<n>` keys, `gall` shards 0 to 7) are read
//! unchanged: shard 0 of a field GSI key is the unsharded key, and shards `0..8` of `gall` are
//! among `0..16`. A rewrite moves such an item to its shard. The shard is written before the
//! values, not after them, because a single string is encoded unquoted (`s:a#1` could be the
//! value `a#1` unsharded, or `a` in shard 1); encoded values never start with a digit.
//!
//! # Writes per partition key
//!
//! [`DynamoStore::key_writes`] tallies the writes the store made per partition key, of the table
//! and of each GSI (off by default: switched on with [`DynamoStore::track_key_writes`] or
//! [`KEY_WRITES_ENV`], which makes every store of the process share one tally,
//! [`process_key_writes`]); [`hottest_share`] turns it into the hottest key's share of a number
//! of writes. `key_writes.rs` says what is counted.
//!
//! # Writes
//!
//! * `insert`: one conditional `PutItem` for a lone document without unique sets, else one
//!   `TransactWriteItems` for all the documents and their markers (at most
//!   [`MAX_TRANSACTION_ITEMS`] = 100 writes, e.g. 50 votes: a larger insert is refused with
//!   [`agora_store::StoreError::Backend`] before anything is written). A failed condition names
//!   the key or the unique set in [`agora_store::StoreError::Duplicate`].
//! * `update`: read (consistent), check the condition with [`agora_filter::Filter::matches`],
//!   write back conditioned on `ver` with the markers of changed unique values moved in the same
//!   transaction (a taken value is a `Duplicate`); on a concurrent change, read again (up to 64
//!   times).
//! * `delete`: the same, deleting the document and its markers together.
//! * Large documents: parts go in the same transaction when it stays within 100 items and
//!   3.5 MB, else before it; old parts are deleted once no main item names them.
//!
//! Transactions carry a `ClientRequestToken`, so that the SDK's own retries of a committed
//! transaction succeed instead of failing on their own writes.
//!
//! # Testing against moto
//!
//! moto 5.2's `TransactWriteItems` deep-copies the whole table once per item of a transaction,
//! and its DynamoDB model is not thread-safe (concurrent requests fail with HTTP 500,
//! "dictionary changed size during iteration"). `moto/agora_moto_server.py` in this crate starts
//! moto with both fixed; run it exactly as `moto_server`.
//!
//! # Consistency
//!
//! `get`, key and unique-marker lookups, and every write are strongly consistent. GSIs are
//! eventually consistent in DynamoDB (not in moto): a `find`/`count` served by a GSI may miss a
//! write made a moment (typically well under a second) before.
//!
//! # Streaming finds
//!
//! `find_stream` reads the same `Query` pages as `find`, one at a time as the stream is read
//! (a shard's next page only once the documents of its last one are handed on), so that it holds
//! about a page per partition it reads (16 for a GSI read); `stream.rs` describes it.

mod admin;
mod config;
mod connection;
mod counters;
mod document;
mod error;
mod items;
mod key_writes;
mod order;
mod parts;
mod query;
mod read;
mod store;
mod stream;
mod table;
mod writes;

pub use config::{DynamoConfig, DEFAULT_TABLE, ENDPOINT_ENV, TABLE_ENV};
pub use connection::StoreStats;
pub use key_writes::{hottest_share, process_key_writes, reset_process_key_writes, KeyCount, KeyWrites, KEY_WRITES_ENV};
pub use query::AccessPath;
pub use store::DynamoStore;
pub use table::GSI_SHARDS;
pub use writes::MAX_TRANSACTION_ITEMS;
