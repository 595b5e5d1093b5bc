//! The voting schema (§2): entities, function specs, hook input, report and request parsing.
//! No I/O.

pub mod entities;
pub mod function_spec;
pub mod hook_input;
pub mod report;
pub mod request;
pub mod time;

pub use entities::*;
pub use function_spec::{FunctionSpec, HookTarget};
pub use hook_input::{Hook, HookInput, UserInput};
pub use report::Report;
pub use request::{new_task_id, parse_create_request, parse_vote_request, FieldError, ValidationErrors};
