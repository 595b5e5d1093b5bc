//! The Xchange schema (xchange-2-schema.md §2, xchange-1-3-5.md §1, §3–§4): the two entities,
//! the `exchange_{EXCHANGE_ID}` database, the functions' input and output, and request parsing.
//! No I/O. Built on the platform's conventions (`agora-schema`).
//!
//! # Choices where the spec is silent
//!
//! * `taski_creation_time` (the spelling is the spec's, compat) is written in naive UTC with
//!   always six fraction digits, as both of §2.1's examples show it (Python's `isoformat()` would
//!   drop a zero fraction); any ISO form is read; `null` passes through.
//! * `task_assignment_type` and `task_assignment_status` are closed sets: a request naming
//!   another value is refused, naming the field; the stored values are the spec's strings.
//! * Every dict-typed field reads `null` or absent as `{}` (§2.3), every other optional field as
//!   its §2.2 default.
//! * Creation requests refuse fields that are not the entity's (a misspelt optional would be
//!   dropped unseen). `PATCH /subjects/{id}` is the spec's raw `$set` and stores any field
//!   ([`patch`]). Ids a client chooses are at most 128 characters, with no `/`, as Orcade's.
//! * Request limits: every id a request carries is at most 128 characters; every list of tags
//!   or topics at most 64 entries of at most 128 characters (see [`request`]).

pub mod hook_io;
pub mod patch;
pub mod request;
pub mod status;
pub mod storage;
pub mod subject;
pub mod task;

pub use agora_schema::{fields, Entity, FieldError, FunctionSpec, ValidationErrors};
pub use hook_io::{OpenAnswer, OpenInput, SelectorInput, SelectorOutput};
pub use patch::parse_subject_patch;
pub use request::{parse_subject_request, parse_task_request};
pub use status::{AssignmentType, TaskStatus};
pub use storage::{check_exchange_id, exchange_db, DEFAULT_EXCHANGE_ID, SUBJECTS, TASKS};
pub use subject::ExchangeSubject;
pub use task::ExchangeTask;

/// A fresh UUID4 id (`task_id`, `subject_id`).
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
