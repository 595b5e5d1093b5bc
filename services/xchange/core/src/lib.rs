//! The Xchange flows (xchange-1-3-5.md §1, §3, §4, §7.2) over the platform's ports: the
//! exchange's store, the hook runner (selectors, acceptance functions), the assignment queue,
//! one-shot schedules, the delegate system, Orcade ([`ports::Bidding`]) and a clock. No HTTP,
//! no AWS: the routes (`agora-xchange-api`), the Lambda functions and the local server call
//! these flows and nothing else.
//!
//! | Flow | Module | Serves |
//! |---|---|---|
//! | [`TaskIntake`] | [`flows::intake`] | `POST /tasks` (function mode's selector inline) |
//! | [`Subjects`] | [`flows::subjects`] | `POST /subjects`, `GET`/`PATCH`/`DELETE /subjects/{id}` |
//! | [`Queries`] | [`flows::query`] | `GET /tasks/{id}`, `GET /tasks/{id}/output`, the two `/query` routes |
//! | [`Assigner`] | [`flows::assign`] | the assignment queue: direct, function, open |
//! | [`Bidder`] | [`flows::bidding`] | bidding mode: the bid job, Orcade's resolution events, polls, the deadline |
//!
//! # Choices where the spec is silent
//!
//! * **Nothing waits for ever.** Assignment runs from the queue, never in the HTTP reply
//!   (except the selector). The delegate's time limit ends a round trip, and bidding's time
//!   limit a bid job with no winner; the task is then `failed` with an error naming the limit.
//! * **The chosen subject is kept** in `task_metadata.assigned_subject_id` (direct, function
//!   and open mode), so a reader can see who has the task while it is `assigned`.
//! * **Direct mode** sends to any `subject_id`, registered here or not: the delegate system
//!   knows the subjects; a subject it does not know fails the task with its answer.
//! * **Open mode**: an acceptance function that fails counts as a refusal; a worker killed
//!   while asking starts asking again from the first subject.
//! * **Function-mode failures** (the selector failed, named nobody or named a stranger) store
//!   the task `failed` and answer 400 with the reason; an unrunnable `function_id` (an unknown
//!   builtin, a registry id with no registry configured) is a 400 and stores nothing.
//! * **Bidding**: an empty roster (an explicit `bid_job_subject_ids: []`, topics that meet no
//!   subject) fails the task at once with no bid job, rather than sending the job to every
//!   subject; an Orcade serving only §3's routes is read from them alone (a job closed with no
//!   winner fails the task after a grace period, see [`flows::bidding`]); the job's creator is
//!   `bid_job_creator_id` or `"xchange"`; open bid jobs take `bid_job_max_subjects` /
//!   `bid_job_max_time` from the task's parameters; a winner whose `bid_winner` delivery failed
//!   fails the task with that result. Each job Xchange opens carries the mark
//!   `bid_job_metadata.xchange = {"exchange_id", "task_id"}` ([`JOB_MARK`]), the only jobs whose
//!   resolution Orcade announces; an event for a job no task here has is ignored.
//! * **Ids** a client chooses are at most 128 characters with no `/` (as Orcade's); an id in
//!   use is a 409.

pub mod error;
pub mod flows;
pub mod hooks;
pub mod messages;
pub mod ports;
pub mod repo;
pub mod service;
mod telemetry;
pub mod work;

pub use error::{InternalError, XchangeError};
pub use flows::assign::{AssignOutcome, Assigner};
pub use flows::bidding::{deadline_schedule_name, Bidder, BiddingLimits, Settle, JOB_MARK};
pub use flows::intake::TaskIntake;
pub use flows::query::Queries;
pub use flows::subjects::Subjects;
pub use hooks::{xchange_hooks, Hook, XchangeBuiltins, XchangeHooks, XchangeInput};
pub use messages::Assignment;
pub use ports::{BidOutcome, Bidding, BiddingError, NoBidding};
pub use repo::Repo;
pub use service::{Ports, Settings, Xchange};
pub use work::{AssignmentWork, BiddingOutcomeWork};
