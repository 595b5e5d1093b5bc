//! Typed access to the voting database over the generic [`DocumentStore`]: one place that
//! knows the collection names, the filters the flows use and how documents decode.

use crate::error::VotingError;
use agora_filter::Filter;
use agora_store::sharded::ShardCounted;
use agora_store::{to_json, Change, DocStream, DocumentStore, Json, Page, StoreError};
use agora_voting_schema::collections::{EVALUATION_INPUTS, SUBJECT_SPECS, TASKS, VOTES};
use agora_voting_schema::time::format_datetime;
use agora_voting_schema::TaskStatus;
use agora_voting_schema::{Entity, SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, TaskBundle, Vote};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde_json::json;
use std::sync::Arc;

#[derive(Clone)]
pub struct Repo {
    store: Arc<dyn DocumentStore>,
}

fn decode<T: DeserializeOwned>(doc: &Json) -> Result<T, VotingError> {
    Ok(serde_json::from_str(doc.get())?)
}

impl Repo {
    pub fn new(store: Arc<dyn DocumentStore>) -> Self {
        Self { store }
    }

    /// Stores a task's three documents together (§1.2 step 1).
    pub async fn insert_bundle(&self, b: &TaskBundle) -> Result<(), StoreError> {
        self.store
            .insert(vec![
                (TASKS, to_json(&b.task)),
                (SUBJECT_SPECS, to_json(&b.subject_spec)),
                (EVALUATION_INPUTS, to_json(&b.evaluation_input)),
            ])
            .await
    }

    pub async fn task_raw(&self, id: &str) -> Result<Option<Json>, VotingError> {
        Ok(self.store.get(TASKS, id).await?)
    }

    pub async fn task(&self, id: &str) -> Result<Option<SocialTaskCoreData>, VotingError> {
        self.task_raw(id).await?.map(|d| decode(&d)).transpose()
    }

    /// A task's subject spec as stored, if it has one.
    pub async fn subject_spec_raw(&self, id: &str) -> Result<Option<Json>, VotingError> {
        Ok(self.store.get(SUBJECT_SPECS, id).await?)
    }

    pub async fn subject_spec(&self, id: &str) -> Result<SocialChoiceSubjectSpecInput, VotingError> {
        let doc = self.subject_spec_raw(id).await?;
        let doc = doc.ok_or_else(|| VotingError::internal(format!("task {id} has no subject spec")))?;
        decode(&doc)
    }

    /// A task's evaluation input as stored, if it has one.
    pub async fn evaluation_input_raw(&self, id: &str) -> Result<Option<Json>, VotingError> {
        Ok(self.store.get(EVALUATION_INPUTS, id).await?)
    }

    pub async fn evaluation_input(&self, id: &str) -> Result<SocialChoiceEvaluationInput, VotingError> {
        let doc = self.evaluation_input_raw(id).await?;
        let doc = doc.ok_or_else(|| VotingError::internal(format!("task {id} has no evaluation input")))?;
        decode(&doc)
    }

    /// Tasks due to start at `now` (§1.2 step 2).
    pub async fn due_tasks(&self, now: DateTime<Utc>) -> Result<Vec<SocialTaskCoreData>, VotingError> {
        let filter = Filter::must(json!({"status": "scheduled", "scheduled_time": {"$lte": format_datetime(&now)}}));
        let docs = self.store.find(TASKS, &filter).await?;
        docs.iter().map(decode).collect()
    }

    /// Every `started` task (the repair sweep's candidates).
    pub async fn started_tasks(&self) -> Result<Vec<SocialTaskCoreData>, VotingError> {
        let docs = self.store.find(TASKS, &Filter::must(json!({"status": TaskStatus::Started}))).await?;
        docs.iter().map(decode).collect()
    }

    /// Moves a task `scheduled` → `started` with a conditional write, recording `start_time`;
    /// false when it was not scheduled.
    pub async fn start(&self, id: &str, at: &DateTime<Utc>) -> Result<bool, VotingError> {
        let cond = Filter::must(json!({"status": TaskStatus::Scheduled}));
        let set = json!({"status": TaskStatus::Started, "start_time": format_datetime(at)});
        Ok(self.store.update(TASKS, id, &cond, &Change::set(&set)).await?)
    }

    /// Moves a `scheduled` or `started` task to `cancelled` with a conditional write; false when
    /// it was neither.
    pub async fn cancel(&self, id: &str) -> Result<bool, VotingError> {
        let cond = Filter::must(json!({"status": {"$in": [TaskStatus::Scheduled, TaskStatus::Started]}}));
        let set = json!({"status": TaskStatus::Cancelled});
        Ok(self.store.update(TASKS, id, &cond, &Change::set(&set)).await?)
    }

    /// Writes the report and completes the task in one conditional write (only a `started` task),
    /// recording `end_time`.
    pub async fn complete<R: serde::Serialize>(&self, id: &str, report: &R, at: &DateTime<Utc>) -> Result<bool, VotingError> {
        // Serialized once, straight into the update: a report may hold a million votes.
        #[derive(serde::Serialize)]
        struct Completion<'a, R> {
            report_json: &'a R,
            status: TaskStatus,
            end_time: String,
        }
        let set = Change::set(&Completion { report_json: report, status: TaskStatus::Complete, end_time: format_datetime(at) });
        let cond = Filter::must(json!({"status": TaskStatus::Started}));
        Ok(self.store.update(TASKS, id, &cond, &set).await?)
    }

    pub async fn vote(&self, vote_id: &str) -> Result<Option<Vote>, VotingError> {
        self.store.get(VOTES, vote_id).await?.map(|d| decode(&d)).transpose()
    }

    pub async fn vote_by_subject(&self, task_id: &str, subject: &str) -> Result<Option<Vote>, VotingError> {
        let filter = Filter::must(json!({"social_task_id": task_id, "submitter_subject_id": subject}));
        let docs = self.store.find(VOTES, &filter).await?;
        docs.first().map(decode).transpose()
    }

    pub async fn insert_vote(&self, vote: &Vote) -> Result<(), StoreError> {
        self.store.insert(vec![(VOTES, to_json(vote))]).await
    }

    /// The qualified votes of a task, as stored (§1.2 step 6).
    pub async fn qualified_votes_raw(&self, task_id: &str) -> Result<Vec<Json>, VotingError> {
        let filter = Filter::must(json!({"social_task_id": task_id, "qualified": true}));
        Ok(self.store.find(VOTES, &filter).await?)
    }

    /// Every vote of a task, qualified or not.
    pub async fn all_votes_raw(&self, task_id: &str) -> Result<Vec<Json>, VotingError> {
        Ok(self.store.find(VOTES, &Filter::must(json!({"social_task_id": task_id}))).await?)
    }

    /// The `page` of the documents of `collection` matching `filter`, streamed.
    pub async fn stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, VotingError> {
        Ok(self.store.find_stream(collection, filter, page).await?)
    }

    /// Stores a qualified vote of `task` and raises one shard of the task's count of qualified
    /// votes in one atomic write ([`crate::trigger::qualified_counter`]), unless every shard the
    /// vote may take is full (a public task's places, a private task's members). The count is
    /// reported when this write filled its shard.
    pub async fn insert_counted_vote(&self, task: &SocialTaskCoreData, vote: &Vote) -> Result<ShardCounted, StoreError> {
        let counter = crate::trigger::qualified_counter(task);
        counter.insert(self.store.as_ref(), &vote.submitter_subject_id, vec![(VOTES, to_json(vote))]).await
    }

    /// How many qualified votes of the task are stored: the sum of its counter's shards.
    pub async fn qualified_count(&self, task: &SocialTaskCoreData) -> Result<i64, VotingError> {
        Ok(crate::trigger::qualified_counter(task).total(self.store.as_ref()).await?)
    }
}

/// Decodes typed entities from stored documents.
pub fn decode_all<T: DeserializeOwned + Send>(docs: &[Json]) -> Result<Vec<T>, VotingError> {
    docs.iter().map(decode).collect()
}

/// Re-exported so flows need not name the trait to call `to_dict`.
pub fn dict<E: Entity>(e: &E) -> serde_json::Value {
    e.to_dict()
}
