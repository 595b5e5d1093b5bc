//! The voting flows of §1.2 as plain async functions over small traits: a store, a hook
//! runner, a message publisher, an evaluation queue, a clock and a change listener.
//! The HTTP routes, the Lambda handlers and the local server all call these and nothing else.

pub mod error;
pub mod flows;
pub mod live;
pub mod messages;
pub mod ports;
pub mod repo;
pub mod service;
pub mod storage;

pub use error::VotingError;
pub use flows::evaluate::EvaluationOutcome;
pub use flows::start::StartOutcome;
pub use flows::vote::VoteAccepted;
pub use ports::{
    ChangeListener, Clock, ConnectionGateway, EvaluationQueue, GatewayError, HookError, HookRunner, LiveQueue, LiveQueueError,
    NoChangeListener, PublishError, Publisher, QueueError, ScheduleError, StartScheduler, SweepOnly, SystemClock,
};
pub use service::{Ports, Settings, Voting};
pub use storage::VOTING_DB;
