//! The voting flows of §1.2 as plain async functions over small traits: a store, the hook
//! runner, a message publisher, the work queue, one-shot schedules, a clock and a change
//! listener. The HTTP routes, the Lambda handlers and the local server all call these and
//! nothing else.

pub mod error;
pub mod flows;
pub mod hooks;
pub mod live;
pub mod messages;
pub mod ports;
pub mod repo;
pub mod service;
pub mod specs;
pub mod storage;
pub mod tasks;
mod telemetry;
pub mod trigger;
pub mod work;

pub use error::{InternalError, VotingError};
pub use flows::cancel::Canceller;
pub use flows::create::TaskCreator;
pub use flows::evaluate::{EvaluationOutcome, Evaluator};
pub use flows::parse::TaskParser;
pub use flows::query::Queries;
pub use flows::repair::{Repairer, Stall};
pub use flows::start::StartOutcome;
pub use flows::start::Starter;
pub use flows::vote::{VoteAccepted, VoteIntake};
pub use hooks::{voting_hooks, VotingBuiltins, VotingHooks};
pub use ports::{
    ChangeListener, Clock, ConnectionGateway, GatewayError, HookError, NoChangeListener, NoSchedules, OneShotSchedules, PublishError,
    Publisher, QueueError, ScheduleError, SystemClock, WorkHandler, WorkOutcome, WorkQueue,
};
pub use service::{Ports, Settings, Voting};
pub use storage::VOTING_DB;
pub use work::EvaluationWork;
