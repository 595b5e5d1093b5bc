//! The voting service: its ports and settings. The flows are `impl Voting` blocks in
//! [`crate::flows`], one module per flow.

use crate::error::VotingError;
use crate::flows::parse::TaskParser;
use crate::flows::query::Queries;
use crate::hooks::VotingHooks;
use crate::ports::{ChangeListener, Clock, NoChangeListener, NoSchedules, OneShotSchedules, Publisher, SystemClock, WorkQueue};
use crate::repo::Repo;
use agora_store::claims::Claims;
use agora_store::DocumentStore;
use agora_voting_schema::{SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Everything the flows talk to.
#[derive(Clone)]
pub struct Ports {
    pub store: Arc<dyn DocumentStore>,
    pub hooks: VotingHooks,
    pub publisher: Arc<dyn Publisher>,
    /// Where evaluation requests go ([`crate::work`]).
    pub queue: Arc<dyn WorkQueue>,
    pub clock: Arc<dyn Clock>,
    pub changes: Arc<dyn ChangeListener>,
    /// One-shot starts at `scheduled_time` ([`crate::work`]); the sweep starts due tasks anyway.
    pub scheduler: Arc<dyn OneShotSchedules>,
}

impl Ports {
    /// Ports with the system clock, no change listener and no one-shot schedules.
    pub fn new(store: Arc<dyn DocumentStore>, hooks: VotingHooks, publisher: Arc<dyn Publisher>, queue: Arc<dyn WorkQueue>) -> Self {
        Self {
            store,
            hooks,
            publisher,
            queue,
            clock: Arc::new(SystemClock),
            changes: Arc::new(NoChangeListener),
            scheduler: Arc::new(NoSchedules),
        }
    }
}

/// Leases on claims: how long a starter or an evaluator may hold its task before another may
/// take over (a crashed worker must not block a task forever).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub start_lease: chrono::Duration,
    pub evaluation_lease: chrono::Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self { start_lease: chrono::Duration::minutes(5), evaluation_lease: chrono::Duration::minutes(15) }
    }
}

/// A task's subject spec and evaluation input. Both are written once, at creation, and never
/// changed, so the vote path may keep them in memory.
pub type TaskSpecs = (SocialChoiceSubjectSpecInput, SocialChoiceEvaluationInput);

/// How many tasks' specs the vote path keeps in memory before it starts over.
const SPEC_CACHE_TASKS: usize = 4096;

/// The voting service.
#[derive(Clone)]
pub struct Voting {
    pub(crate) ports: Ports,
    pub(crate) repo: Repo,
    pub(crate) settings: Settings,
    pub(crate) parser: TaskParser,
    pub(crate) claims: Claims,
    pub(crate) queries: Queries,
    spec_cache: Arc<Mutex<HashMap<String, Arc<TaskSpecs>>>>,
}

impl Voting {
    pub fn new(ports: Ports, settings: Settings) -> Self {
        let repo = Repo::new(ports.store.clone());
        let parser = TaskParser::new(ports.hooks.clone());
        let claims = Claims::new(ports.store.clone());
        let queries = Queries::new(repo.clone());
        Self { ports, repo, settings, parser, claims, queries, spec_cache: Arc::default() }
    }

    /// The subject spec and evaluation input of a task, from memory when seen before.
    pub(crate) async fn task_specs(&self, social_task_id: &str) -> Result<Arc<TaskSpecs>, VotingError> {
        if let Some(hit) = self.spec_cache.lock().expect("spec cache lock").get(social_task_id) {
            return Ok(hit.clone());
        }
        let specs = Arc::new((self.repo.subject_spec(social_task_id).await?, self.repo.evaluation_input(social_task_id).await?));
        let mut cache = self.spec_cache.lock().expect("spec cache lock");
        if cache.len() >= SPEC_CACHE_TASKS {
            cache.clear();
        }
        cache.insert(social_task_id.to_owned(), specs.clone());
        Ok(specs)
    }

    pub fn ports(&self) -> &Ports {
        &self.ports
    }

    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// The read flow over this service's store.
    pub fn queries(&self) -> &Queries {
        &self.queries
    }

    /// The parse flow this service validates create requests with.
    pub fn parser(&self) -> &TaskParser {
        &self.parser
    }
}
