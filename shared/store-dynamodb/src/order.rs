//! Insertion-order tokens: the `seq` attribute, sort key of every GSI, so that queries list
//! documents oldest insert first; also the generation tokens of document parts.
//!
//! A token is 26 lowercase hex digits: the microseconds since the Unix epoch (14 digits, kept
//! strictly increasing within the process), then a random 48-bit process tag (12 digits).
//! Tokens sort as strings in the order they were made within a process, and by clock across
//! processes (clock skew between hosts reorders inserts made within that skew, which is as close
//! as a distributed writer gets to one insertion order).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

/// The last microsecond handed out by this process.
static LAST_MICROS: AtomicU64 = AtomicU64::new(0);

/// This process's random tag.
fn process_tag() -> u64 {
    static TAG: OnceLock<u64> = OnceLock::new();
    *TAG.get_or_init(|| (uuid::Uuid::new_v4().as_u128() as u64) & 0xffff_ffff_ffff)
}

/// A new token, greater than every token this process made before.
pub(crate) fn next_token() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    let previous = LAST_MICROS.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |last| Some(now.max(last + 1))).unwrap_or(now);
    let micros = now.max(previous + 1);
    format!("{micros:014x}{:012x}", process_tag())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_increase_and_have_a_fixed_width() {
        let tokens: Vec<String> = (0..10_000).map(|_| next_token()).collect();
        assert!(tokens.windows(2).all(|w| w[0] < w[1]));
        assert!(tokens.iter().all(|t| t.len() == 26));
    }
}
