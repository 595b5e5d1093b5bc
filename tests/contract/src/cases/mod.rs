//! The contract cases. Each takes a fresh, empty store holding [`CONTRACT_DB`](crate::CONTRACT_DB)
//! (or, for the cases about several databases, the test's [`Opener`](crate::Opener)) and panics
//! when the store breaks the contract.

mod change;
mod claims;
mod counters;
mod databases;
mod insert;
mod query;
mod races;
mod round_trip;
mod sharded;
mod stream;
mod update;

pub use change::*;
pub use claims::*;
pub use counters::*;
pub use databases::*;
pub use insert::*;
pub use query::*;
pub use races::*;
pub use round_trip::*;
pub use sharded::*;
pub use stream::*;
pub use update::*;
