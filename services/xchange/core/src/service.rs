//! The Xchange service: its ports and settings, and [`Xchange`], every flow wired from them.
//! Each flow is a struct of its own in [`crate::flows`]; a Lambda function builds only its own.

use crate::flows::assign::Assigner;
use crate::flows::bidding::{Bidder, BiddingLimits};
use crate::flows::intake::TaskIntake;
use crate::flows::query::Queries;
use crate::flows::subjects::Subjects;
use crate::hooks::XchangeHooks;
use crate::ports::{Bidding, Clock, Delegate, NoSchedules, OneShotSchedules, SystemClock, WorkQueue};
use crate::repo::Repo;
use crate::work::{AssignmentWork, BiddingOutcomeWork};
use agora_store::DocumentStore;
use agora_xchange_schema::DEFAULT_EXCHANGE_ID;
use std::sync::Arc;
use std::time::Duration;

/// Everything the flows talk to.
#[derive(Clone)]
pub struct Ports {
    /// The exchange's database (`exchange_{EXCHANGE_ID}`).
    pub store: Arc<dyn DocumentStore>,
    pub hooks: XchangeHooks,
    /// Where assignments and bidding polls go ([`crate::messages::Assignment`]).
    pub assignments: Arc<dyn WorkQueue>,
    pub delegate: Arc<dyn Delegate>,
    /// Orcade, for bidding mode.
    pub bidding: Arc<dyn Bidding>,
    pub clock: Arc<dyn Clock>,
    /// One-shot bidding deadlines; the polls end a task at its limit anyway.
    pub scheduler: Arc<dyn OneShotSchedules>,
    /// The exchange (`EXCHANGE_ID`), named in the mark of the bid jobs it opens
    /// ([`crate::flows::bidding::JOB_MARK`]).
    pub exchange_id: String,
}

impl Ports {
    /// Ports with the system clock, no one-shot schedules, and the exchange `default`.
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: XchangeHooks,
        assignments: Arc<dyn WorkQueue>,
        delegate: Arc<dyn Delegate>,
        bidding: Arc<dyn Bidding>,
    ) -> Self {
        Self {
            store,
            hooks,
            assignments,
            delegate,
            bidding,
            clock: Arc::new(SystemClock),
            scheduler: Arc::new(NoSchedules),
            exchange_id: DEFAULT_EXCHANGE_ID.to_owned(),
        }
    }
}

/// How much longer than the delegate's time limit an assignment's lease lasts.
pub const ASSIGNMENT_MARGIN: Duration = Duration::from_secs(5);

/// Time limits and leases.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// The delegate's time limit (`AGORA_DELEGATE_TIMEOUT_MS`, 30 s), for the lease and the
    /// words of a timeout; the delegate adapter enforces it.
    pub delegate_timeout: Duration,
    /// An assignment's claim: renewed while the worker lives, so it bounds how long a dead
    /// worker blocks its task.
    pub assignment_lease: chrono::Duration,
    pub bidding: BiddingLimits,
}

impl Default for Settings {
    fn default() -> Self {
        Self::new(Duration::from_secs(30), BiddingLimits::default())
    }
}

impl Settings {
    /// The lease kept above the delegate's time limit by [`ASSIGNMENT_MARGIN`].
    pub fn new(delegate_timeout: Duration, bidding: BiddingLimits) -> Self {
        let lease = chrono::Duration::from_std(delegate_timeout + ASSIGNMENT_MARGIN).unwrap_or(chrono::Duration::seconds(60));
        Self { delegate_timeout, assignment_lease: lease, bidding }
    }
}

/// The Xchange service: every flow, wired from one set of ports (the local server, tests).
#[derive(Clone)]
pub struct Xchange {
    ports: Ports,
    repo: Repo,
    intake: TaskIntake,
    subjects: Subjects,
    queries: Queries,
    assigner: Assigner,
    bidder: Bidder,
}

impl Xchange {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        let p = &ports;
        let repo = Repo::new(p.store.clone());
        let bidder = Bidder::new(
            repo.clone(),
            p.bidding.clone(),
            p.assignments.clone(),
            p.scheduler.clone(),
            p.clock.clone(),
            settings.bidding,
            &p.exchange_id,
        );
        Self {
            intake: TaskIntake::new(repo.clone(), p.hooks.clone(), p.assignments.clone(), p.clock.clone()),
            subjects: Subjects::new(repo.clone(), p.hooks.clone()),
            queries: Queries::new(repo.clone()),
            assigner: Assigner::new(
                repo.clone(),
                p.hooks.clone(),
                p.delegate.clone(),
                bidder.clone(),
                p.clock.clone(),
                settings.assignment_lease,
                settings.delegate_timeout,
            ),
            bidder,
            repo,
            ports,
        }
    }

    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// `POST /tasks`.
    pub fn intake(&self) -> &TaskIntake {
        &self.intake
    }

    /// The subject routes.
    pub fn subjects(&self) -> &Subjects {
        &self.subjects
    }

    /// The task read routes.
    pub fn queries(&self) -> &Queries {
        &self.queries
    }

    /// The assignment queue's flow.
    pub fn assigner(&self) -> &Assigner {
        &self.assigner
    }

    /// Bidding mode's outcome flow (events, polls, deadlines).
    pub fn bidder(&self) -> &Bidder {
        &self.bidder
    }

    /// The assignment queue's handler.
    pub fn assignment_work(&self) -> AssignmentWork {
        AssignmentWork::new(self.assigner.clone(), self.bidder.clone())
    }

    /// The bidding-outcome queue's handler.
    pub fn outcome_work(&self) -> BiddingOutcomeWork {
        BiddingOutcomeWork::new(self.bidder.clone())
    }
}
