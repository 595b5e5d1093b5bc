//! The bid job's datetimes as §2.1 stores them: "always stored in UTC with microsecond precision",
//! `2026-10-05T09:00:00.000000+00:00` (Python's `isoformat(timespec="microseconds")` of an aware
//! UTC datetime). Always six fraction digits and the same offset, so stored values order as text
//! (the expiry watcher compares `bid_job_closes_at` with now). Read in every form the platform
//! reads ([`agora_schema::time::parse_datetime`]).
//!
//! Bids and task results keep the platform's form ([`agora_schema::time::iso`]: naive UTC), as
//! §2.2 and §2.3 show them.

pub use agora_schema::time::{format_datetime, iso, iso_opt, parse_datetime, truncate_micros};
use chrono::{DateTime, Utc};
use serde::{Deserializer, Serializer};

/// `2026-10-05T09:00:00.000000+00:00`.
pub fn format_utc_micros(dt: &DateTime<Utc>) -> String {
    dt.format("%Y-%m-%dT%H:%M:%S%.6f+00:00").to_string()
}

/// `#[serde(with = "utc_micros")]` for a required bid job datetime.
pub mod utc_micros {
    use super::*;
    pub fn serialize<S: Serializer>(dt: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_utc_micros(dt))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        agora_schema::time::iso::deserialize(d)
    }
}

/// `#[serde(with = "utc_micros_opt")]` for an optional one (`None` written as `null`).
pub mod utc_micros_opt {
    use super::*;
    pub fn serialize<S: Serializer>(dt: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match dt {
            Some(dt) => s.serialize_str(&format_utc_micros(dt)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        agora_schema::time::iso_opt::deserialize(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn always_six_digits_and_the_utc_offset() {
        let whole = Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap();
        assert_eq!(format_utc_micros(&whole), "2026-10-05T09:00:00.000000+00:00");
        let fine = whole + chrono::Duration::microseconds(1_500);
        assert_eq!(format_utc_micros(&fine), "2026-10-05T09:00:00.001500+00:00");
        // Text order is time order.
        assert!(format_utc_micros(&whole) < format_utc_micros(&fine));
    }
}
