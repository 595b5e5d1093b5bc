//! The local message inbox: every published message goes to the log and to the addressee's
//! inbox, readable at `GET /local/inbox/{subject}` (oldest first).

use agora_ports::{PublishError, Publisher};
use async_trait::async_trait;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
pub struct LocalInbox {
    messages: Arc<Mutex<HashMap<String, Vec<Value>>>>,
}

impl LocalInbox {
    /// The messages addressed to `subject`, oldest first.
    pub fn messages(&self, subject: &str) -> Vec<Value> {
        self.messages.lock().expect("inbox lock").get(subject).cloned().unwrap_or_default()
    }
}

#[async_trait]
impl Publisher for LocalInbox {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        let event_type = message.get("event_type").and_then(Value::as_str).unwrap_or("message");
        tracing::info!(recipient = address, event_type, payload = %message, "message published");
        self.messages.lock().expect("inbox lock").entry(address.to_owned()).or_default().push(message.clone());
        Ok(())
    }
}
