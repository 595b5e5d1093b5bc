//! The time, as a port so that tests can move it.

use chrono::{DateTime, Utc};

/// The time. Every timestamp the platform stores has microsecond precision (the spec's
/// `to_dict()` writes microseconds), so clocks answer truncated to the microsecond.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        agora_schema::time::truncate_micros(Utc::now())
    }
}
