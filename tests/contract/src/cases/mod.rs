//! The contract cases. Each takes a fresh, empty store holding the voting database
//! (`agora_voting_core::VOTING_DB`) and panics when the store breaks the contract.

mod counters;
mod insert;
mod query;
mod races;
mod round_trip;
mod update;

pub use counters::*;
pub use insert::*;
pub use query::*;
pub use races::*;
pub use round_trip::*;
pub use update::*;
