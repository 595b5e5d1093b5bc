//! The input every hook receives (§4 "Common input" and "Hooks in practice"):
//! `{"user_input": {...}, "addons": {...}}`. Typed and borrowed, so that an in-process rule reads
//! the votes without copying them and a remote hook gets the exact JSON.

use crate::entities::{SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, Vote};
use serde::Serialize;
use serde_json::{Map, Value};

/// Which of the five hooks is running (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    Invitation,
    Pqt,
    ChoiceEvaluation,
    TieBreaker,
    PostAward,
}

impl Hook {
    /// The key of this hook's raw output in `report_json.dsl_outputs` (§2.6), and its name in logs.
    pub fn output_key(self) -> &'static str {
        match self {
            Hook::Invitation => "voting_message_request_creator",
            Hook::Pqt => "voting_pqt_dsl",
            Hook::ChoiceEvaluation => "choice_evaluation_dsl",
            Hook::TieBreaker => "tie_breaker_dsl",
            Hook::PostAward => "post_awarding_dsl",
        }
    }
}

/// `user_input`: the task's configuration plus the hook's own keys.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UserInput<'a> {
    pub task: &'a SocialTaskCoreData,
    pub subject_spec: &'a SocialChoiceSubjectSpecInput,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evaluation_spec: Option<&'a SocialChoiceEvaluationInput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vote_data: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub votes: Option<&'a [Vote]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winners: Option<&'a [String]>,
}

/// The whole hook input.
#[derive(Debug, Clone, Serialize)]
pub struct HookInput<'a> {
    pub user_input: UserInput<'a>,
    pub addons: Map<String, Value>,
}

impl<'a> HookInput<'a> {
    /// Invitation creator (§4.2): task and subject spec, and no addons (§4 gives it none).
    pub fn invitation(task: &'a SocialTaskCoreData, subject_spec: &'a SocialChoiceSubjectSpecInput) -> Self {
        let addons = Map::new();
        Self::new(UserInput { task, subject_spec, evaluation_spec: None, vote_data: None, votes: None, winners: None }, addons)
    }

    /// PQT (§4.3): one vote's `vote_data`, the voter in the addons.
    pub fn pqt(
        task: &'a SocialTaskCoreData,
        subject_spec: &'a SocialChoiceSubjectSpecInput,
        evaluation_spec: &'a SocialChoiceEvaluationInput,
        vote_data: &'a Value,
        submitter_subject_id: &str,
    ) -> Self {
        let mut addons = Map::new();
        addons.insert("submitter_subject_id".into(), Value::String(submitter_subject_id.to_owned()));
        Self::new(
            UserInput {
                task,
                subject_spec,
                evaluation_spec: Some(evaluation_spec),
                vote_data: Some(vote_data),
                votes: None,
                winners: None,
            },
            addons,
        )
    }

    /// Choice evaluation (§4.4), and with `winners` the tie-breaker (§4.5) and post-award (§4.6).
    pub fn evaluation(
        task: &'a SocialTaskCoreData,
        subject_spec: &'a SocialChoiceSubjectSpecInput,
        evaluation_spec: &'a SocialChoiceEvaluationInput,
        votes: &'a [Vote],
        winners: Option<&'a [String]>,
    ) -> Self {
        let mut addons = Map::new();
        addons.insert("social_task_id".into(), Value::String(task.social_task_id.clone()));
        Self::new(
            UserInput { task, subject_spec, evaluation_spec: Some(evaluation_spec), vote_data: None, votes: Some(votes), winners },
            addons,
        )
    }

    fn new(user_input: UserInput<'a>, addons: Map<String, Value>) -> Self {
        Self { user_input, addons }
    }

    /// The same input with the final or tied winners added.
    pub fn with_winners(&self, winners: &'a [String]) -> Self {
        let mut next = self.clone();
        next.user_input.winners = Some(winners);
        next
    }
}
