//! A task's subject spec and evaluation input, read once per task: both are written at
//! creation and never changed, so the vote path and the evaluator may keep them in memory.

use crate::error::VotingError;
use crate::repo::Repo;
use agora_voting_schema::{SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A task's subject spec and evaluation input.
pub type TaskSpecs = (SocialChoiceSubjectSpecInput, SocialChoiceEvaluationInput);

/// How many tasks' specs are kept before the cache starts over.
const SPEC_CACHE_TASKS: usize = 4096;

/// The specs of the tasks seen so far. Cheap to clone: clones share the cache.
#[derive(Clone)]
pub struct SpecCache {
    repo: Repo,
    cache: Arc<Mutex<HashMap<String, Arc<TaskSpecs>>>>,
}

impl SpecCache {
    pub fn new(repo: Repo) -> Self {
        Self { repo, cache: Arc::default() }
    }

    /// The subject spec and evaluation input of a task, from memory when seen before.
    pub async fn get(&self, social_task_id: &str) -> Result<Arc<TaskSpecs>, VotingError> {
        if let Some(hit) = self.cache.lock().expect("spec cache lock").get(social_task_id) {
            return Ok(hit.clone());
        }
        let specs = Arc::new((self.repo.subject_spec(social_task_id).await?, self.repo.evaluation_input(social_task_id).await?));
        let mut cache = self.cache.lock().expect("spec cache lock");
        if cache.len() >= SPEC_CACHE_TASKS {
            cache.clear();
        }
        cache.insert(social_task_id.to_owned(), specs.clone());
        Ok(specs)
    }
}
