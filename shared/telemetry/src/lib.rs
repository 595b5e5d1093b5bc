//! What an operator of Agora sees, in one place for every service and front door:
//!
//! - [`trace`]: the trace id one unit of work (a vote, a bid, an exchange task) carries from the
//!   front door across every queue hop and into its hook and delegate calls;
//! - [`names`]: the metrics the flows record through the `metrics` facade, with their labels
//!   (the template's dashboard reads the same names);
//! - the exporters: [`prometheus`] (feature `prometheus`, the local server's `GET /metrics`) and
//!   [`emf`] (feature `emf`, one CloudWatch Embedded Metric Format line per Lambda invocation);
//! - [`testing`] (feature `testing`): what a piece of work recorded, for tests.

pub mod names;
pub mod trace;

#[cfg(feature = "emf")]
pub mod emf;
#[cfg(feature = "prometheus")]
pub mod prometheus;
#[cfg(feature = "testing")]
pub mod testing;
