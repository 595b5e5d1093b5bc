//! The flows of §1.2, one module each.

pub mod cancel;
pub mod create;
pub mod evaluate;
pub mod parse;
pub mod query;
pub mod repair;
pub mod start;
pub mod vote;

/// Python's truthiness, for hook outputs read the way the reference implementation reads them.
pub(crate) use agora_voting_schema::fields::truthy;
