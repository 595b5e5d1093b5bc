//! The platform's schema conventions, shared by every service (no I/O): the entity convention
//! (`to_dict`/`from_dict`), datetimes as the spec writes them, request fields reported by path
//! (free-form objects' keys checked storable on every store),
//! PATCH bodies' dotted paths, and function specs (where a hook's logic lives, from a spec object or a function id).

pub mod entity;
pub mod fields;
pub mod function_spec;
pub mod paths;
pub mod time;

pub use entity::{null_as_default, Entity};
pub use fields::{FieldError, ValidationErrors};
pub use function_spec::{FunctionSpec, HookTarget};
