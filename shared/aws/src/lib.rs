//! The AWS adapters of the platform's ports, for every service's Lambda functions:
//!
//! - [`EventBridgePublisher`]: messages as EventBridge events ([`agora_ports::Publisher`]);
//! - [`SqsQueue`]: work on SQS ([`agora_ports::WorkQueue`]);
//! - [`OneShotScheduler`]: one-shot EventBridge Scheduler schedules ([`agora_ports::OneShotSchedules`]);
//! - [`ApiGatewayConnections`]: WebSocket connections ([`agora_ports::ConnectionGateway`]);
//! - [`config`]: the SDK configuration all of them (and the Lambda functions) are built from.

pub mod config;
pub mod eventbridge;
pub mod live;
pub mod scheduler;
pub mod sqs;

pub use config::ConfigError;
pub use eventbridge::EventBridgePublisher;
pub use live::ApiGatewayConnections;
pub use scheduler::{OneShotScheduler, ScheduleTarget};
pub use sqs::SqsQueue;
