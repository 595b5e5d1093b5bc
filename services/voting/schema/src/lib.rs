//! The voting schema (voting-2-schema.md): entities, the hook input, the report and request
//! parsing. No I/O. Built on the platform's conventions (`agora-schema`), re-exported here so
//! that voting's crates name one schema.

pub mod entities;
pub mod hook_input;
pub mod options;
pub mod report;
pub mod request;

pub use agora_schema::{fields, time, Entity, FieldError, FunctionSpec, HookTarget, ValidationErrors};
pub use entities::*;
pub use hook_input::{Hook, HookInput, UserInput};
pub use options::{Deadline, VotingOptions, Weights};
pub use report::Report;
pub use request::{new_task_id, parse_create_request, parse_vote_request};
