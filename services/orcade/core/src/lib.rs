//! The Orcade flows (orcade-1-3-5.md §1, §3–§5) over the platform's ports: a store, the hook
//! runner, two work queues (evaluations, deliveries), one-shot schedules, the delegate system
//! and a clock. No HTTP, no AWS: the routes (`agora-orcade-api`), the Lambda functions and the
//! local server call these flows and nothing else.
//!
//! | Flow | Module | Serves |
//! |---|---|---|
//! | [`JobCreator`] | [`flows::create`] | `POST /bid-jobs` |
//! | [`BidIntake`] | [`flows::bid`] | `POST /bid-jobs/{id}/bids` |
//! | [`Closer`] | [`flows::close`] | `POST /bid-jobs/{id}/close`, the close sweep, the one-shot `close-<id>` |
//! | [`Evaluator`] | [`flows::evaluate`] | the evaluation queue ([`EvaluationWork`]) |
//! | [`Deliverer`] | [`flows::deliver`] | the delivery queue ([`DeliveryWork`]) |
//! | [`Queries`] | [`flows::query`] | the GET and query routes |
//! | [`Edits`] | [`flows::edit`] | PATCH and DELETE |
//! | [`Repairer`] | [`flows::repair`] | the repair sweep |
//!
//! # Choices where the spec is silent
//!
//! * **The close is the trigger.** Every way a job ends (the last roster bid, the open job's
//!   last place, `bid_job_closes_at`, the creator) is the one conditional write `open` →
//!   `closed`; its one winner requests the evaluation ([`closing`]). So a closed or mixed job is
//!   `closed` from the moment its roster is complete, not only after the evaluation.
//! * **No bid after the close.** Bids are counted in the same atomic write that stores them,
//!   and the close raises the counter past every limit, so a bid that read the job open but was
//!   not stored before the close is refused `JobClosed`: every stored bid is one the evaluator
//!   reads. An open job refuses a bid after `bid_job_closes_at` even before the sweep ran, and
//!   closes it then.
//! * **Check order of a bid**: unknown job (404), malformed (400), not on the roster (403),
//!   closed or full (409), second bid (409, before the PQT runs: a subject's second bid is
//!   refused as such, not by the PQT), PQT refusal (409). A full open job answers "full" while
//!   its accepted count is at `bid_job_max_subjects`, "closed" when it closed otherwise.
//! * **PQT failures** refuse the bid with the reason `the PQT failed: <what>` (a timeout, an
//!   unreachable hook, a malformed output), stored on closed and mixed jobs like any refusal.
//!   No PQT (`""`): accepted, with the reason `no PQT configured`.
//! * **The evaluation decides once.** The decision (winner, no valid bids, or failure) is
//!   recorded before it is applied; a retried or repaired evaluation applies the recorded one,
//!   so a remote evaluator asked twice cannot yield two winners. A winner that names no accepted
//!   bid, a malformed output or a rule error is a failed evaluation: recorded with its error
//!   (readable through [`Queries::evaluation`]), logged, no winner, not retried; a transient
//!   failure is retried by the queue.
//! * **Deliveries are made once**, each failure stored (§5), none retried: the result and its
//!   `delivered:<id>` mark are one atomic insert, and a worker holds the delivery's claim while
//!   it calls. The delegate call's `session_id` and `task_id` are both the id of the
//!   `BidTaskResult` it will be stored under. A `bid_request` carries the job as it is when the
//!   delivery runs.
//! * **Close by the creator** works in every mode (an open job's creator may end the call
//!   early). The spec's API carries no caller identity: [`Closer::close_job`] takes the
//!   caller's id when the front door has one (403 for another), and closes for anyone who
//!   knows the job id otherwise.
//! * **Deleting a job deletes everything that is its**: its bids, task results, evaluation
//!   record and claims. The delete first fences the job's bid counter, so a bid that read the
//!   job before the delete is refused (404) in the write that would store it; a job created
//!   again under the id is a new incarnation ([`incarnation`]) that starts clean.
//! * **A withdrawn bid** (`DELETE /bids/{id}`) gives its place back while the job is open (the
//!   bid deleted and its job's count lowered in one atomic write), and is refused once the job
//!   is closed or evaluated (409 saying which).
//! * **A client-chosen `bid_job_id` already in use** is a 409 ([`OrcadeError::JobIdTaken`]).
//! * **Tags**: `by-tags` trims each tag and drops empty ones; none left is a 400.
//! * **Resolution events are Xchange's.** A job's resolution event (`bid_job_resolved`, on the
//!   resolutions queue, which is Xchange's bidding-outcome queue) is sent only for a job whose
//!   `bid_job_metadata.xchange` is an object: the mark Xchange's bidding mode sets on each job
//!   it opens ([`messages::RESOLUTION_MARK`]). Other jobs are resolved without a word to Xchange.

pub mod closing;
pub mod error;
pub mod flows;
pub mod hooks;
pub mod incarnation;
pub mod messages;
pub mod ports;
pub mod repo;
pub mod service;
mod telemetry;
pub mod work;

pub use agora_orcade_schema::ORCADE_DB;
pub use error::{InternalError, OrcadeError};
pub use flows::bid::BidIntake;
pub use flows::close::Closer;
pub use flows::create::JobCreator;
pub use flows::deliver::{Deliverer, DeliveryOutcome};
pub use flows::edit::Edits;
pub use flows::evaluate::{EvaluationOutcome, Evaluator};
pub use flows::query::{Queries, TagMatch};
pub use flows::repair::{Repairer, Stall};
pub use hooks::{orcade_hooks, OrcadeBuiltins, OrcadeHooks, OrcadeInput};
pub use messages::{announces_resolution, Delivery, RESOLUTION_MARK};
pub use repo::{Decision, EvaluationRecord, Repo};
pub use service::{Orcade, Ports, Settings};
pub use work::{DeliveryWork, EvaluationWork};
