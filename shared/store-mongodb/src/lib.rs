//! The MongoDB [`agora_store::DocumentStore`]: one MongoDB database per
//! [`agora_store::DatabaseSpec`], named as the spec is (`voting_db`, `exchange_<id>`), each
//! collection of the spec a MongoDB collection of the same name, holding the documents exactly as
//! the entities' `to_dict()` wrote them, and the database's counters in `_agora_counters`.
//! Several databases open side by side are separate MongoDB databases (they may share one
//! client: open them on one [`MongoDeployment`]). Works with any deployment that runs transactions: a replica set (a single node will do),
//! a sharded cluster, Atlas through a `mongodb+srv://` URI.
//!
//! * **`_id`**: the driver gives each inserted document an ObjectId `_id`. It orders the
//!   documents (`find` sorts by it: insertion order, as ObjectIds grow within a process) and
//!   never leaves the store: every read projects it away, and documents or `$set`s naming `_id`
//!   are refused. `get`, `update` and `delete` go through the key field's unique index.
//! * **Documents** round-trip byte for byte: JSON integers become int32/int64 and come back as
//!   the same integers, other numbers doubles (`1.0` stays `1.0`), field order is kept, nothing
//!   is read as extended JSON ([`convert`] has the table). Documents over MongoDB's 16 MB limit,
//!   keys holding a NUL (BSON cannot hold one), and any write the server or the driver refuses
//!   for what was written (a field name it cannot store, a size) are
//!   [`agora_store::StoreError::InvalidDocument`], never a backend error: the caller's input is
//!   at fault, and the services answer it as such (`error::input_fault`). Keys starting with `$`
//!   or holding a `.` below the top level are stored as given (the services refuse `$` keys and
//!   NULs at the edge, so that every store keeps the same documents).
//! * **Indexes** ([`indexes`]), created idempotently at connect: unique on the key, unique
//!   compound per `unique` set, and `{field: 1, _id: 1}` per `indexed` field, named so that a
//!   duplicate key error names the constraint it broke. Once all exist, the database's record in
//!   `_agora_indexes` lists them, and a later start-up that finds the same list makes that one
//!   read (a Lambda cold start: one round trip, not one per collection). Delete the record to
//!   have a dropped index made again.
//! * **Inserts** of one document are one `insertOne`; of several, one transaction (retried on
//!   transient errors such as write conflicts). `connect` refuses a deployment without
//!   transactions rather than give up atomicity.
//! * **A writer killed inside its transaction** leaves it open on the server, holding the
//!   documents it wrote, until the server's transaction lifetime ends it
//!   (`transactionLifetimeLimitSeconds`, 60 s by default). [`end_abandoned_transactions`] ends
//!   them at once: the local server calls it when it starts, the Lambda functions never do
//!   (its documentation says why).
//! * **Filters** are [`agora_filter::Filter::to_json`] sent as is; `update` is one `update_one`
//!   filtered on the key and the condition (atomic), with a pipeline `$set` of `$literal`
//!   values, `$mergeObjects` for dotted paths and `$concatArrays` for appends, so new fields are
//!   appended in the order given at every level (`document.rs`). A change the document cannot
//!   take fails on the server, and is reported naming its path.
//!
//! Connecting: [`MongoStore::connect`] takes the connection string (the services read it from
//! `MONGODB_URI`, [`MongoStore::connect_from_env`]). Any driver option goes in its query string.
//! `mongodb+srv://` URIs (Atlas) resolve through the driver's DNS resolver and connect over TLS
//! (rustls, webpki roots). The test server, secantusdb, advertises itself as the primary of a
//! single-node replica set, so a plain `mongodb://127.0.0.1:<port>` URI gets transactions; no
//! `replicaSet` or `directConnection` option is needed (`directConnection=true` also works).

mod convert;
mod deployment;
mod document;
mod error;
mod indexes;
mod sessions;
mod store;

pub use deployment::MongoDeployment;
pub use sessions::end_abandoned_transactions;
pub use store::{uri_from_env, MongoStore, DEFAULT_MONGO_URL, MONGODB_URI_ENV, MONGO_URL_ENV};

/// MongoDB's limit on the size of one document, in bytes (16 MiB).
pub const MAX_DOCUMENT_BYTES: usize = convert::MAX_DOCUMENT_BYTES;
