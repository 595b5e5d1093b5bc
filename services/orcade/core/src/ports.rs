//! The ports the Orcade flows run over, all the platform's: clock, work queues, one-shot
//! schedules, the delegate system, and the hook runner of `agora-hooks`.

pub use agora_hooks::HookError;
pub use agora_ports::{
    Clock, Delegate, DelegateError, DelegateRequest, NoListener, NoSchedules, OneShotSchedules, QueueError, ScheduleError, SystemClock,
    WorkHandler, WorkOutcome, WorkQueue,
};
