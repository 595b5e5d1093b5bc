//! Bidding mode (§4, §7.2): an Orcade bid job per task, its outcome carried back.
//!
//! **Start** (from the assignment queue): the task's bid job id is chosen once and recorded
//! with the bidding deadline ([`crate::repo::BiddingRecord`]), so a repeated attempt creates
//! the same job (Orcade answers a second create of that id 409, taken as done). Then
//! `task_metadata.bid_job_id` is written with the status `bidding`. The subjects see the job
//! (its `bid_job_description`), never the `task_data`.
//!
//! **The mark**: the job's `bid_job_metadata` is the task's (`task_assignment.bid_job_metadata`)
//! with [`JOB_MARK`] set: `"xchange": {"exchange_id": "<EXCHANGE_ID>", "task_id": "<task>"}`
//! (replacing any `xchange` key the task gave). Orcade sends its resolution event only for a
//! job that carries it (`agora_orcade_core::messages::RESOLUTION_MARK`), so the bidding-outcome
//! queue hears of this exchange's jobs and of no job someone else opened. An event for a job no
//! task here has is ignored all the same ([`Bidder::resolved`]).
//!
//! **The roster** (§7.2), resolved once, for a `closed` or `mixed` job (an `open` job has none):
//!
//! | `task_assignment` | Roster |
//! |---|---|
//! | `bid_job_subject_ids` given (even `[]`) | that list, verbatim |
//! | absent (or `null`), `topics` given and not empty | the subjects whose `topics` meet them |
//! | neither (`topics` absent or `[]`: no narrowing) | every subject of the exchange |
//! | `bid_job_mode: "mixed"` | the explicit list, then the topic matches not in it |
//!
//! **An empty roster fails the task at once**, `failed` with `task_output.error` naming why (an
//! explicit `bid_job_subject_ids: []`, topics no subject has, an exchange with no subjects), and
//! no bid job is created, so nobody gets a `bid_request`. Orcade refuses a closed job without
//! subjects (400), and a job nobody may bid on could only end as §4's no-bids case
//! (`no_valid_bids` → `failed`): the task ends as that case does, without a job and without
//! waiting for the bidding time limit. The error says `no_valid_bids` so that a caller matching
//! on it reads the same outcome.
//!
//! **Outcome**: Orcade's resolution event (in process, or a queue) names the job; polls with
//! backoff on the assignment queue look anyway (an external Orcade sends no event); the
//! deadline's one-shot schedule looks once more at the time limit. Each reads how the job
//! stands ([`crate::ports::Bidding::outcome`]) and settles the task once (a write conditional on
//! `bidding`):
//!
//! | The job | The task |
//! |---|---|
//! | its winner's `bid_winner` result is stored, the delegate answered | `completed`, `task_output` the whole result |
//! | the `bid_winner` delivery failed | `failed`, the error and the result |
//! | `no_valid_bids` | `failed` |
//! | the evaluation failed, or the job is gone | `failed` |
//! | closed with no winner, as read through Orcade §3's routes alone, for its grace period | `failed` (below) |
//! | none of these by the deadline (`AGORA_BIDDING_TIMEOUT_MS`) | `failed`, naming the limit |
//!
//! **An Orcade that serves only §3's routes** (an upstream one at `ORCADE_URL`) shows a job's
//! winner (its bid `is_winner`, then its `bid_winner` task result) but nothing that tells
//! "evaluated, no winner" from "not evaluated yet": after either, the job is `closed` and no bid
//! `is_winner`. The reading ([`BidOutcome::ClosedWithoutWinner`]): the first look that finds the
//! job so records when (`closed_seen_at`), and the task fails once the job has stayed so for a
//! grace period ([`BiddingLimits`]), each look in between coming at the end of it:
//!
//! * no bid on file passed the PQT (none, or all kept `bid_rejected`): no evaluation can name a
//!   winner, since an evaluator sees accepted bids only and a winner must be one; this is the
//!   spec's no-bids case, `no_valid_bids`. The grace (`no_bids_grace`, 2 s) only lets a bid
//!   stored as the job closed show (Orcade's close and the fence on its bids are two writes).
//! * some bids passed: the evaluation may still be running (the evaluator's time limit, retries
//!   of a transient failure, Orcade's repair sweep), so the grace is long (`no_winner_grace`,
//!   10 min); the error says no winner came, `no_valid_bids` or a failed evaluation.
//!
//! Agora's Orcade says exactly what its evaluation decided (in process, or its extra route over
//! HTTP), so none of this waits there.

use crate::error::XchangeError;
use crate::flows::assign::{finish, AssignOutcome};
use crate::messages::Assignment;
use crate::ports::{BidOutcome, Bidding, BiddingError, Clock, OneShotSchedules, WorkQueue};
use crate::repo::{BiddingRecord, Repo};
use agora_xchange_schema::{new_id, ExchangeTask, TaskStatus};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// The creator a bid job names when the task names none.
pub const DEFAULT_CREATOR: &str = agora_xchange_schema::request::DEFAULT_BID_JOB_CREATOR;

/// The key of `bid_job_metadata` that marks the bid jobs Xchange opens (see the module docs):
/// Orcade announces the resolution of those jobs alone.
pub const JOB_MARK: &str = "xchange";

/// The name of a bidding task's one-shot deadline.
pub fn deadline_schedule_name(task_id: &str) -> String {
    format!("xchange-bidding-{task_id}")
}

/// Bidding's time limit, how often it looks at a job with no event, and how long a job read
/// through Orcade §3's routes alone stays closed with no winner before the task fails.
#[derive(Debug, Clone, Copy)]
pub struct BiddingLimits {
    /// From the job's creation to the task's failure (`AGORA_BIDDING_TIMEOUT_MS`, 24 h).
    pub timeout: Duration,
    /// The first poll's delay; each next one doubles, up to `poll_cap`.
    pub first_poll: Duration,
    pub poll_cap: Duration,
    /// A job closed with no bid on file that passed its PQT: no evaluation can name a winner;
    /// this covers only a bid stored as the job closed (2 s).
    pub no_bids_grace: Duration,
    /// A job closed with accepted bids and no winner: its evaluation may still be running (the
    /// evaluator's time limit, retries of a transient failure, Orcade's repair sweep) (10 min).
    pub no_winner_grace: Duration,
}

impl Default for BiddingLimits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(24 * 3600),
            first_poll: Duration::from_secs(1),
            poll_cap: Duration::from_secs(60),
            no_bids_grace: Duration::from_secs(2),
            no_winner_grace: Duration::from_secs(600),
        }
    }
}

/// How a bidding task stands after a look at its job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settle {
    /// The task is final now (or was).
    Settled,
    /// The job has no outcome yet; look again before `after` runs out.
    Waiting { after: Duration },
    /// The task is not (or no longer) bidding, or no task has this job.
    NotBidding,
}

/// The error of a job read through Orcade §3's routes alone that stayed closed with no winner
/// for its grace period.
fn no_winner_error(accepted_bids: usize, grace: Duration) -> String {
    if accepted_bids == 0 {
        "the bid job found no valid bids (no_valid_bids): it closed with no bid on file that passed its PQT".into()
    } else {
        format!(
            "the bid job closed with no winner (no_valid_bids, or an evaluation that failed): none of its {accepted_bids} accepted \
             bids is_winner and no bid_winner result came within {} ms of its close (Orcade's routes of §3 do not say which)",
            grace.as_millis()
        )
    }
}

/// What an explicit empty roster is called in a task's error.
const EXPLICIT_EMPTY: &str = "task_metadata.task_assignment.bid_job_subject_ids is [] (an explicit empty roster)";

/// Why a task with no roster fails at once.
const NO_ROSTER: &str = "no subject could bid, so the job could only end with no valid bids (no_valid_bids); no bid job was created";

/// A bid job's roster, or why it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Roster {
    Subjects(Vec<String>),
    Empty(String),
}

/// The bidding flow.
#[derive(Clone)]
pub struct Bidder {
    repo: Repo,
    bidding: Arc<dyn Bidding>,
    assignments: Arc<dyn WorkQueue>,
    schedules: Arc<dyn OneShotSchedules>,
    clock: Arc<dyn Clock>,
    limits: BiddingLimits,
    exchange_id: String,
}

fn strings(a: &Map<String, Value>, key: &str) -> Vec<String> {
    a.get(key).and_then(Value::as_array).map(|v| v.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

impl Bidder {
    pub fn new(
        repo: Repo,
        bidding: Arc<dyn Bidding>,
        assignments: Arc<dyn WorkQueue>,
        schedules: Arc<dyn OneShotSchedules>,
        clock: Arc<dyn Clock>,
        limits: BiddingLimits,
        exchange_id: &str,
    ) -> Self {
        Self { repo, bidding, assignments, schedules, clock, limits, exchange_id: exchange_id.to_owned() }
    }

    /// Creates the task's bid job and moves the task to `bidding` (in the assignment's span,
    /// which names the task).
    pub async fn start(&self, task: &ExchangeTask) -> Result<AssignOutcome, XchangeError> {
        let id = &task.task_id;
        let now = self.clock.now();
        let deadline = now + chrono::Duration::from_std(self.limits.timeout).unwrap_or(chrono::Duration::MAX);
        let record = self.repo.bidding_record(id, &new_id(), deadline, now).await?;
        let request = match self.job_request(task, &record.bid_job_id).await? {
            Ok(request) => request,
            Err(error) => return self.fail_start(task, error).await,
        };
        match self.bidding.create_job(&request).await {
            Ok(()) => {}
            Err(BiddingError::Refused(why)) => return self.fail_start(task, format!("Orcade refused the bid job: {why}")).await,
            Err(BiddingError::Unavailable(why)) => return Ok(AssignOutcome::Retry(format!("Orcade is unavailable: {why}"))),
        }
        let change = agora_store::Change::set(
            &json!({"task_assignment_status": TaskStatus::Bidding, "task_metadata.bid_job_id": record.bid_job_id}),
        );
        if !self.repo.move_task(id, &[TaskStatus::Pending, TaskStatus::Assigned], &change).await? {
            return Ok(AssignOutcome::AlreadyDone);
        }
        let at = record.deadline().unwrap_or(deadline);
        if let Err(e) = self.schedules.schedule(&deadline_schedule_name(id), at, &json!({"task_id": id})).await {
            tracing::warn!(error = %e, "bidding deadline not scheduled; the polls end the task at its limit");
        }
        self.poll_later(id, 0).await?;
        tracing::info!(bid_job_id = %record.bid_job_id, "bidding task: bid job created");
        Ok(AssignOutcome::Bidding { bid_job_id: record.bid_job_id })
    }

    async fn fail_start(&self, task: &ExchangeTask, error: String) -> Result<AssignOutcome, XchangeError> {
        tracing::warn!(%error, "bidding task failed at its start");
        let from = [TaskStatus::Pending, TaskStatus::Assigned];
        finish(&self.repo, task, &from, TaskStatus::Failed, json!({"error": error}), self.clock.now()).await?;
        Ok(AssignOutcome::Failed { error })
    }

    /// The `POST /bid-jobs` body of the task's job, or why there is none (an empty roster).
    async fn job_request(&self, task: &ExchangeTask, bid_job_id: &str) -> Result<Result<Value, String>, XchangeError> {
        let a = task.assignment();
        let mode = a.get("bid_job_mode").and_then(Value::as_str).unwrap_or("closed");
        let mut body = Map::new();
        body.insert("bid_job_id".into(), json!(bid_job_id));
        for key in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
            body.insert(key.into(), a.get(key).filter(|v| !v.is_null()).cloned().unwrap_or_else(|| json!({})));
        }
        // The mark that makes Orcade announce the job's resolution (a metadata that is not an
        // object is left as given, for Orcade to refuse).
        if let Some(Value::Object(metadata)) = body.get_mut("bid_job_metadata") {
            metadata.insert(JOB_MARK.into(), json!({"exchange_id": self.exchange_id, "task_id": task.task_id}));
        }
        let creator = a.get("bid_job_creator_id").and_then(Value::as_str).unwrap_or(DEFAULT_CREATOR);
        body.insert("bid_job_creator_id".into(), json!(creator));
        body.insert("bid_job_mode".into(), json!(mode));
        for key in ["bid_job_evaluator_id", "bid_job_pqt_id", "bid_job_tie_id", "bid_job_tags", "bid_job_max_subjects", "bid_job_max_time"]
        {
            if let Some(v) = a.get(key).filter(|v| !v.is_null()) {
                body.insert(key.into(), v.clone());
            }
        }
        if mode != "open" {
            match self.roster(a, mode == "mixed").await? {
                Roster::Subjects(roster) => {
                    body.insert("bid_job_subject_ids".into(), json!(roster));
                }
                Roster::Empty(why) => return Ok(Err(format!("the bid job has no roster: {why}; {NO_ROSTER}"))),
            }
        } else if let Some(roster) = a.get("bid_job_subject_ids").filter(|v| !v.is_null()) {
            // Given, for Orcade to refuse (a task stored before `POST /tasks` refused it): a
            // roster dropped here would leave the task waiting on an open job nobody was asked to.
            body.insert("bid_job_subject_ids".into(), roster.clone());
        }
        Ok(Ok(Value::Object(body)))
    }

    /// §7.2's roster, resolved once: the explicit `bid_job_subject_ids` when the key is given
    /// (verbatim, `[]` included), else the topic matches, else (neither key) every subject;
    /// `mixed` takes the union of the explicit list and the topic matches.
    async fn roster(&self, a: &Map<String, Value>, mixed: bool) -> Result<Roster, XchangeError> {
        // `null` is an absent key (the SDK sends the key only when given; Orcade reads a null
        // optional as omitted).
        let explicit = a.get("bid_job_subject_ids").filter(|v| !v.is_null()).map(|_| strings(a, "bid_job_subject_ids"));
        let topics = strings(a, "topics");
        match explicit {
            Some(list) if !mixed => {
                return Ok(if list.is_empty() { Roster::Empty(EXPLICIT_EMPTY.into()) } else { Roster::Subjects(list) });
            }
            None if topics.is_empty() => {
                let every: Vec<String> = self.repo.subjects().await?.into_iter().map(|s| s.subject_id).collect();
                return Ok(if every.is_empty() { Roster::Empty("the exchange has no subjects".into()) } else { Roster::Subjects(every) });
            }
            _ => {}
        }
        let explicit_given = explicit.is_some();
        let mut roster = explicit.unwrap_or_default();
        if !topics.is_empty() {
            for s in self.repo.subjects().await?.into_iter().filter(|s| s.has_topic_in(&topics)) {
                if !roster.contains(&s.subject_id) {
                    roster.push(s.subject_id);
                }
            }
        }
        if !roster.is_empty() {
            return Ok(Roster::Subjects(roster));
        }
        Ok(Roster::Empty(match (explicit_given, topics.is_empty()) {
            (true, true) => format!("{EXPLICIT_EMPTY} and no topics are given"),
            (true, false) => format!("{EXPLICIT_EMPTY} and no subject of the exchange has any of the topics {topics:?}"),
            (false, _) => format!("no subject of the exchange has any of the topics {topics:?}"),
        }))
    }

    /// Queues the next poll of a bidding task.
    async fn poll_later(&self, task_id: &str, attempt: u32) -> Result<(), XchangeError> {
        let backoff = self.limits.first_poll.saturating_mul(2u32.saturating_pow(attempt.min(20))).min(self.limits.poll_cap);
        self.poll_after(task_id, attempt, backoff).await
    }

    async fn poll_after(&self, task_id: &str, attempt: u32, delay: Duration) -> Result<(), XchangeError> {
        let work = Assignment::Poll { task_id: task_id.to_owned(), attempt };
        self.assignments
            .send(&format!("poll:{task_id}"), &work.body(), delay)
            .await
            .map_err(|e| XchangeError::internal_caused("the next poll of a bidding task could not be queued", e))
    }

    /// A poll: settles the task if its job has an outcome (or its time is up), else polls later.
    #[tracing::instrument(skip_all, fields(task_id = task_id, attempt = attempt))]
    pub async fn poll(&self, task_id: &str, attempt: u32) -> Result<Settle, XchangeError> {
        let settle = self.settle(task_id).await?;
        if let Settle::Waiting { after } = &settle {
            let backoff = self.limits.first_poll.saturating_mul(2u32.saturating_pow(attempt.saturating_add(1).min(20)));
            self.poll_after(task_id, attempt.saturating_add(1), backoff.min(self.limits.poll_cap).min(*after)).await?;
        }
        Ok(settle)
    }

    /// Orcade's resolution event for `bid_job_id`: settles its task, if it is one of ours.
    #[tracing::instrument(skip_all, fields(bid_job_id = bid_job_id))]
    pub async fn resolved(&self, bid_job_id: &str) -> Result<Settle, XchangeError> {
        match self.repo.bidding_of_job(bid_job_id).await? {
            Some(record) => self.settle(&record.task_id).await,
            None => Ok(Settle::NotBidding),
        }
    }

    /// Waiting, until the deadline (and at most `within`); `Err` the time limit's error once it
    /// has passed.
    fn wait(&self, record: &BiddingRecord, within: Option<Duration>) -> Result<Settle, String> {
        let now = self.clock.now();
        match record.deadline() {
            Some(deadline) if deadline > now => {
                let left = (deadline - now).to_std().unwrap_or_default();
                Ok(Settle::Waiting { after: within.map_or(left, |w| w.min(left)) })
            }
            _ => Err(format!(
                "the bidding time limit passed: the bid job had no winner within {} ms (AGORA_BIDDING_TIMEOUT_MS)",
                self.limits.timeout.as_millis()
            )),
        }
    }

    /// Reads how the task's job stands and settles the task when it can. Its span names the
    /// task, and its job once read.
    #[tracing::instrument(skip_all, fields(task_id = task_id, bid_job_id = tracing::field::Empty))]
    pub async fn settle(&self, task_id: &str) -> Result<Settle, XchangeError> {
        let Some(task) = self.repo.task(task_id).await? else { return Ok(Settle::NotBidding) };
        if task.task_assignment_status != TaskStatus::Bidding {
            return Ok(Settle::NotBidding);
        }
        let record = self
            .repo
            .bidding_of_task(task_id)
            .await?
            .ok_or_else(|| XchangeError::internal(format!("bidding task {task_id} has no bidding record")))?;
        let job = &record.bid_job_id;
        tracing::Span::current().record("bid_job_id", job.as_str());
        let outcome = match self.bidding.outcome(job).await {
            Ok(outcome) => outcome,
            Err(e) => {
                tracing::warn!(error = %e, "bid job outcome not read; looking again later");
                BidOutcome::Pending
            }
        };
        let (status, output) = match outcome {
            BidOutcome::Winner(result) if result.pointer("/task_result/success") == Some(&Value::Bool(true)) => {
                (TaskStatus::Completed, result)
            }
            BidOutcome::Winner(result) => {
                let why = result.pointer("/task_result/error").and_then(Value::as_str).unwrap_or("no success in its reply").to_owned();
                (
                    TaskStatus::Failed,
                    json!({"error": format!("the bid job's winner was not told: the bid_winner delivery failed: {why}"), "bid_winner": result}),
                )
            }
            BidOutcome::NoValidBids => {
                (TaskStatus::Failed, json!({"error": "the bid job found no valid bids (no_valid_bids)", "bid_job_id": job}))
            }
            BidOutcome::Failed(why) => {
                (TaskStatus::Failed, json!({"error": format!("the bid job's evaluation failed: {why}"), "bid_job_id": job}))
            }
            BidOutcome::Gone => (TaskStatus::Failed, json!({"error": "the bid job no longer exists", "bid_job_id": job})),
            BidOutcome::ClosedWithoutWinner { accepted_bids } => {
                let now = self.clock.now();
                let seen = self.repo.closed_seen(task_id, now).await?;
                let grace = if accepted_bids == 0 { self.limits.no_bids_grace } else { self.limits.no_winner_grace };
                let left = grace.saturating_sub((now - seen).to_std().unwrap_or_default());
                if left.is_zero() {
                    (TaskStatus::Failed, json!({"error": no_winner_error(accepted_bids, grace), "bid_job_id": job}))
                } else {
                    match self.wait(&record, Some(left)) {
                        Ok(settle) => return Ok(settle),
                        Err(error) => (TaskStatus::Failed, json!({"error": error, "bid_job_id": job})),
                    }
                }
            }
            BidOutcome::Pending => match self.wait(&record, None) {
                Ok(settle) => return Ok(settle),
                Err(error) => (TaskStatus::Failed, json!({"error": error, "bid_job_id": job})),
            },
        };
        if finish(&self.repo, &task, &[TaskStatus::Bidding], status, output, self.clock.now()).await? {
            tracing::info!(status = status.as_str(), "bidding task settled");
        }
        Ok(Settle::Settled)
    }
}
