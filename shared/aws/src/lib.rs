//! The AWS adapters of the voting ports, shared by the Lambda functions:
//!
//! - [`EventBridgePublisher`]: §5 messages as EventBridge events ([`agora_voting_core::Publisher`]);
//! - [`SqsEvaluationQueue`]: evaluation requests on SQS ([`agora_voting_core::EvaluationQueue`]), and
//!   [`parse_evaluation_message`] for the `evaluate-task` Lambda;
//! - [`OneShotScheduler`]: one-shot EventBridge Scheduler starts
//!   ([`agora_voting_core::StartScheduler`]), and [`parse_start_event`] for the `start-tasks` Lambda;
//! - [`SqsLiveQueue`] and [`ApiGatewayConnections`]: the live stream's queue
//!   ([`agora_voting_core::LiveQueue`], and the flows' [`agora_voting_core::ChangeListener`]) and its
//!   WebSocket connections ([`agora_voting_core::ConnectionGateway`]);
//! - [`config`]: the SDK configuration all of them (and the Lambda functions) are built from.

pub mod config;
pub mod eventbridge;
pub mod live;
pub mod scheduler;
pub mod sqs;

pub use config::ConfigError;
pub use eventbridge::EventBridgePublisher;
pub use live::{ApiGatewayConnections, SqsLiveQueue};
pub use scheduler::{parse_start_event, OneShotScheduler, ScheduleTarget, StartRequest};
pub use sqs::{parse_evaluation_message, SqsEvaluationQueue};
