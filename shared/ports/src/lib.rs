//! The platform's ports: the small traits every service's flows run over, whatever the
//! deployment. Each has its adapters elsewhere (`agora-aws`, `agora-nats`, `agora-delegate`,
//! the local server); [`fakes`] holds the in-memory ones flow tests use.
//!
//! | Port | What it does | Adapters |
//! |---|---|---|
//! | [`Clock`] | the time | [`SystemClock`], [`fakes::ManualClock`] |
//! | [`Publisher`] | a message to a subject | EventBridge, NATS, the local inbox, a log |
//! | [`WorkQueue`] | work to do later, at least once | SQS, the local queue, [`NoListener`] |
//! | [`OneShotSchedules`] | a body delivered once at a time | an SQS timer queue with EventBridge Scheduler (`agora_aws::Timers`); none locally (sweeps) |
//! | [`ConnectionGateway`] | text to a client's open connection | API Gateway `@connections` |
//! | [`Delegate`] | a task handed to a subject, its reply awaited | the delegate system over HTTP |

pub mod clock;
pub mod delegate;
pub mod fakes;
pub mod gateway;
pub mod publisher;
pub mod queue;
pub mod schedule;

pub use clock::{Clock, SystemClock};
pub use delegate::{Delegate, DelegateError, DelegateRequest, RETRY_HEADER};
pub use gateway::{ConnectionGateway, GatewayError};
pub use publisher::{PublishError, Publisher};
pub use queue::{chunks, NoListener, QueueError, WorkHandler, WorkOutcome, WorkQueue};
pub use schedule::{NoSchedules, OneShotSchedules, ScheduleError};
