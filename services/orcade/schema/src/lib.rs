//! The Orcade schema (orcade-2-schema.md §2, orcade-1-3-5.md §3–§4): the three entities, the
//! `assets` database, the functions' input and output, and request parsing. No I/O. Built on
//! the platform's conventions (`agora-schema`), re-exported here so that Orcade's crates name
//! one schema.
//!
//! # Choices where the spec is silent
//!
//! * Datetimes: a job's `bid_job_created_time` and `bid_job_closes_at` are written
//!   `2026-10-05T09:00:00.000000+00:00` ("always stored in UTC with microsecond precision", as
//!   §2.1's examples), so that they order as text; a bid's `submission_time` and a task result's
//!   `created_time` in the platform's naive UTC form, as §2.2 and §2.3 show them. Any accepted
//!   form is read.
//! * Unset optionals are written `null` (`bid_job_max_subjects`, `bid_job_max_time`,
//!   `bid_job_closes_at`), as the spec's examples write them; reading takes absent or `null` as
//!   the default of every field that has one.
//! * Mode, status and task type are closed sets: reading another value fails, naming it.
//! * Requests refuse unknown fields (a misspelt optional would be dropped unseen), tolerate the
//!   service's own fields when a client posts a whole `to_dict()` (see [`request`]), and refuse
//!   ids with surrounding whitespace (another id than the one the subject uses). A client may
//!   choose `bid_job_id` (at most 128 characters, no `/`), not `bid_id`.
//! * Request limits: every id a request carries (`bid_job_id`, `bid_job_creator_id`, each of
//!   `bid_job_subject_ids`, `bid_subject_id`) is at most 128 characters; `bid_job_tags` holds
//!   at most 64 tags of at most 128 characters each, besides a mixed job's `subject::` tags.
//! * Rosters drop duplicate subjects, as tags drop duplicate tags. `subject::<id>` tags are
//!   the service's: a request may carry one only for a member of a mixed job's roster.
//! * `bid_job_max_time` is at most 100 years, so that `bid_job_closes_at` is a datetime.
//! * The PATCH rules are in [`request`]'s `patch` module: which fields, why the others are
//!   refused, and that a changed builtin is checked again.
//! * A builtin's `accepted` verdict carries a reason too; the evaluator's `result_data` names
//!   the winning bid (`winning_bid_id`). See the rules crate.

pub mod bid;
pub mod bid_job;
pub mod bid_task_result;
mod conventions;
pub mod hook_io;
pub mod request;
pub mod status;
pub mod storage;
pub mod time;

pub use agora_schema::{fields, Entity, FieldError, FunctionSpec, HookTarget, ValidationErrors};
pub use bid::Bid;
pub use bid_job::{closes_at, subject_tag, BidJob};
pub use bid_task_result::BidTaskResult;
pub use conventions::new_id;
pub use hook_io::{Evaluation, EvaluatorInput, Hook, OutputError, PqtInput, PqtVerdict};
pub use request::{parse_bid_job_patch, parse_bid_patch, parse_bid_request, parse_create_request, BuiltinCheck, Patch};
pub use status::{BidJobMode, BidJobStatus, TaskType};
pub use storage::ORCADE_DB;
