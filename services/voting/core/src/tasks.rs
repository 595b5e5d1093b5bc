//! Started tasks, read once: a task's status changes at most twice in its life (scheduled →
//! started → complete) and nothing else of it changes, so the vote path keeps the tasks it has
//! seen started in memory and reads the store only for the others. A task that has completed
//! since is still `started` here: every vote the store refuses (voting closed, already voted, not a
//! member) is checked against the task as stored before the refusal is answered.

use crate::error::VotingError;
use crate::repo::Repo;
use agora_voting_schema::{SocialTaskCoreData, TaskStatus};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How many started tasks are kept before the cache starts over.
const TASK_CACHE_TASKS: usize = 4096;

/// The started tasks seen so far. Cheap to clone: clones share the cache.
#[derive(Clone)]
pub struct StartedTasks {
    repo: Repo,
    cache: Arc<Mutex<HashMap<String, Arc<SocialTaskCoreData>>>>,
}

impl StartedTasks {
    pub fn new(repo: Repo) -> Self {
        Self { repo, cache: Arc::default() }
    }

    /// The task, from memory when it was seen started before; `None` when there is no such task.
    pub async fn get(&self, id: &str) -> Result<Option<Arc<SocialTaskCoreData>>, VotingError> {
        if let Some(hit) = self.cache.lock().expect("task cache lock").get(id) {
            return Ok(Some(hit.clone()));
        }
        self.fresh(id).await
    }

    /// Forgets the task: the next vote reads it as stored (it was cancelled).
    pub fn forget(&self, id: &str) {
        self.cache.lock().expect("task cache lock").remove(id);
    }

    /// The task as stored now (remembered when started; forgotten otherwise).
    pub async fn fresh(&self, id: &str) -> Result<Option<Arc<SocialTaskCoreData>>, VotingError> {
        let Some(task) = self.repo.task(id).await? else { return Ok(None) };
        let task = Arc::new(task);
        let mut cache = self.cache.lock().expect("task cache lock");
        if task.status() == Some(&TaskStatus::Started) {
            if cache.len() >= TASK_CACHE_TASKS {
                cache.clear();
            }
            cache.insert(id.to_owned(), task.clone());
        } else {
            cache.remove(id);
        }
        Ok(Some(task))
    }
}
