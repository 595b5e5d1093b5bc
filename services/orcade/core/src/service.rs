//! The Orcade service: its ports and settings, and [`Orcade`], every flow wired from them. Each
//! flow is a struct of its own in [`crate::flows`] whose fields are the ports it uses; a Lambda
//! function builds only its flow.

use crate::closing::{Closing, RequestLeases};
use crate::error::OrcadeError;
use crate::flows::bid::BidIntake;
use crate::flows::close::Closer;
use crate::flows::create::JobCreator;
use crate::flows::deliver::Deliverer;
use crate::flows::edit::Edits;
use crate::flows::evaluate::Evaluator;
use crate::flows::query::Queries;
use crate::flows::repair::{Repairer, Stall};
use crate::hooks::OrcadeHooks;
use crate::ports::{Clock, Delegate, NoListener, NoSchedules, OneShotSchedules, SystemClock, WorkQueue};
use crate::repo::Repo;
use crate::work::{DeliveryWork, EvaluationWork};
use agora_store::DocumentStore;
use std::sync::Arc;

/// Everything the flows talk to.
#[derive(Clone)]
pub struct Ports {
    pub store: Arc<dyn DocumentStore>,
    pub hooks: OrcadeHooks,
    /// Where evaluation requests go ([`crate::work`]).
    pub evaluations: Arc<dyn WorkQueue>,
    /// Where delegate round trips go ([`crate::messages::Delivery`]).
    pub deliveries: Arc<dyn WorkQueue>,
    pub delegate: Arc<dyn Delegate>,
    pub clock: Arc<dyn Clock>,
    /// One-shot closes at `bid_job_closes_at`; the close sweep closes due jobs anyway.
    pub scheduler: Arc<dyn OneShotSchedules>,
    /// Where resolution events go ([`crate::messages::resolution_event`]); nowhere by default.
    pub resolutions: Arc<dyn WorkQueue>,
}

impl Ports {
    /// Ports with the system clock and no one-shot schedules.
    pub fn new(
        store: Arc<dyn DocumentStore>,
        hooks: OrcadeHooks,
        evaluations: Arc<dyn WorkQueue>,
        deliveries: Arc<dyn WorkQueue>,
        delegate: Arc<dyn Delegate>,
    ) -> Self {
        Self {
            store,
            hooks,
            evaluations,
            deliveries,
            delegate,
            clock: Arc::new(SystemClock),
            scheduler: Arc::new(NoSchedules),
            resolutions: Arc::new(NoListener),
        }
    }
}

/// How much longer than the delegate's time limit a delivery's lease lasts: the time to store
/// the result after the call.
pub const DELIVERY_MARGIN: chrono::Duration = chrono::Duration::seconds(5);

/// Leases on claims.
///
/// The evaluator renews its lease every third of it, so the lease bounds how long a crashed
/// evaluator blocks its job, not how long an evaluation may take. A delivery's lease must be
/// longer than the delegate's time limit (`AGORA_DELEGATE_TIMEOUT_MS`, 30 s by default).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub evaluation_lease: chrono::Duration,
    pub delivery_lease: chrono::Duration,
    /// How long a repair's claim on a request may stay unqueued.
    pub repair_lease: chrono::Duration,
    /// How long a queued evaluation request is trusted to the queue before the repair sweep
    /// requests it again (a day: far past the queue's own retries).
    pub request_lease: chrono::Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            evaluation_lease: chrono::Duration::seconds(60),
            delivery_lease: chrono::Duration::seconds(120),
            repair_lease: chrono::Duration::seconds(60),
            request_lease: chrono::Duration::hours(24),
        }
    }
}

impl Settings {
    /// Every short lease set to `lease` (the local server's `--claim-lease-ms`); a delivery's
    /// lease is kept above the delegate's time limit (`delegate_timeout`), by [`DELIVERY_MARGIN`],
    /// so that a call still running is never taken for a dead one.
    pub fn with_leases(lease: chrono::Duration, delegate_timeout: std::time::Duration) -> Self {
        let d = Self::default();
        let call = chrono::Duration::from_std(delegate_timeout).unwrap_or(d.delivery_lease);
        Self { evaluation_lease: lease, repair_lease: lease, delivery_lease: lease.max(call + DELIVERY_MARGIN), ..d }
    }

    pub fn request_leases(&self) -> RequestLeases {
        RequestLeases { claim: self.repair_lease, request: self.request_lease }
    }
}

/// The Orcade service: every flow, wired from one set of ports (the local server, tests).
#[derive(Clone)]
pub struct Orcade {
    ports: Ports,
    repo: Repo,
    creator: JobCreator,
    intake: BidIntake,
    closer: Closer,
    evaluator: Evaluator,
    deliverer: Deliverer,
    queries: Queries,
    edits: Edits,
    repairer: Repairer,
}

impl Orcade {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        let p = &ports;
        let repo = Repo::new(p.store.clone());
        let closing = Closing::new(repo.clone(), p.evaluations.clone(), p.clock.clone(), settings.request_leases());
        Self {
            creator: JobCreator::new(repo.clone(), p.hooks.clone(), p.deliveries.clone(), p.scheduler.clone(), p.clock.clone()),
            intake: BidIntake::new(repo.clone(), p.hooks.clone(), p.clock.clone(), closing.clone()),
            closer: Closer::new(repo.clone(), p.clock.clone(), closing.clone()),
            evaluator: Evaluator::new(
                repo.clone(),
                p.hooks.clone(),
                p.deliveries.clone(),
                p.clock.clone(),
                closing.clone(),
                settings.evaluation_lease,
            )
            .with_resolutions(p.resolutions.clone()),
            deliverer: Deliverer::new(repo.clone(), p.delegate.clone(), p.clock.clone(), settings.delivery_lease)
                .with_resolutions(p.resolutions.clone())
                .with_deliveries(p.deliveries.clone()),
            queries: Queries::new(repo.clone()),
            edits: Edits::new(repo.clone(), p.hooks.clone(), p.deliveries.clone(), closing.clone()),
            repairer: Repairer::new(repo.clone(), p.clock.clone(), closing),
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

    /// `POST /bid-jobs`.
    pub fn creator(&self) -> &JobCreator {
        &self.creator
    }

    /// `POST /bid-jobs/{id}/bids`.
    pub fn intake(&self) -> &BidIntake {
        &self.intake
    }

    /// `POST /bid-jobs/{id}/close` and the close sweep.
    pub fn closer(&self) -> &Closer {
        &self.closer
    }

    /// The evaluation queue's flow.
    pub fn evaluator(&self) -> &Evaluator {
        &self.evaluator
    }

    /// The delivery queue's flow.
    pub fn deliverer(&self) -> &Deliverer {
        &self.deliverer
    }

    /// The read routes.
    pub fn queries(&self) -> &Queries {
        &self.queries
    }

    /// PATCH and DELETE.
    pub fn edits(&self) -> &Edits {
        &self.edits
    }

    /// The repair sweep.
    pub fn repairer(&self) -> &Repairer {
        &self.repairer
    }

    /// The evaluation queue's handler.
    pub fn evaluation_work(&self) -> EvaluationWork {
        EvaluationWork::new(self.evaluator.clone())
    }

    /// The delivery queue's handler.
    pub fn delivery_work(&self) -> DeliveryWork {
        DeliveryWork::new(self.deliverer.clone())
    }

    /// One sweep: closes the due open jobs, then requests the stalled evaluations again.
    pub async fn sweep(&self) -> Result<(Vec<String>, Vec<(String, Stall)>), OrcadeError> {
        let closed = self.closer.close_due_jobs().await?;
        let repaired = self.repairer.repair_stalled_jobs().await?;
        Ok((closed, repaired))
    }
}
