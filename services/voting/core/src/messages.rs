//! The payloads of §5: invitations and results. Transports are pluggable; these are not.

use agora_voting_schema::{Entity, SocialChoiceSubjectSpecInput, SocialTaskCoreData};
use serde_json::{json, Value};

/// §5.2: one per key of `voting_options_map`, addressed to that key.
pub fn voting_invite(task: &SocialTaskCoreData, subject_spec: &SocialChoiceSubjectSpecInput, custom_data: &Value) -> Value {
    json!({
        "event_type": "voting_invite",
        "sender_subject_id": task.created_by_subject_id,
        "event_data": {"custom_data": custom_data, "voting_info": subject_spec.to_dict()},
    })
}

/// §5.4: one per final winner, addressed to that winner.
pub fn voting_result(social_task_id: &str, winners: &[String], post_award_payload: &Value) -> Value {
    json!({
        "event_type": "voting_result",
        "task_id": social_task_id,
        "event_data": {"social_task_id": social_task_id, "winners": winners, "post_award_payload": post_award_payload},
    })
}
