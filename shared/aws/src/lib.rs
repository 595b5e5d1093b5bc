//! The AWS adapters of the platform's ports, for every service's Lambda functions:
//!
//! - [`EventBridgePublisher`]: messages as EventBridge events ([`agora_ports::Publisher`]);
//! - [`SqsQueue`]: work on SQS ([`agora_ports::WorkQueue`]);
//! - [`Timers`]: work due at a time, within a second or two of it, on an SQS timer queue and
//!   EventBridge Scheduler ([`agora_ports::OneShotSchedules`]; see [`timers`]);
//! - [`OneShotScheduler`]: one-shot EventBridge Scheduler schedules, which [`Timers`] uses for
//!   times more than 15 minutes ahead;
//! - [`ApiGatewayConnections`]: WebSocket connections ([`agora_ports::ConnectionGateway`]);
//! - [`config`]: the SDK configuration all of them (and the Lambda functions) are built from;
//! - [`warm`]: each of them opens its connection during a function's init ([`Warmup`]).

pub mod config;
pub mod eventbridge;
pub mod live;
pub mod scheduler;
pub mod sqs;
pub mod timers;
pub mod warm;

pub use config::ConfigError;
pub use eventbridge::EventBridgePublisher;
pub use live::ApiGatewayConnections;
pub use scheduler::{OneShotScheduler, ScheduleTarget};
pub use sqs::SqsQueue;
pub use timers::{Arrival, TimerEnv, TimerQueueWork, TimerTarget, Timers};
pub use warm::{Warm, Warmup};
