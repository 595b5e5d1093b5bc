//! Datetimes as the spec stores them: written as naive ISO-8601 in UTC (Python's
//! `datetime.isoformat()`: microseconds only when non-zero), read from ISO-8601 with or without
//! `Z` or an offset, from epoch seconds, and naive values taken as UTC.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Timelike, Utc};
use serde::{de, Deserializer, Serializer};
use serde_json::Value;
use std::fmt;

/// Formats a UTC datetime the way the stored documents carry it: `2026-10-22T10:03:12.481203`,
/// or `2026-10-22T09:00:00` when the microseconds are zero.
pub fn format_datetime(dt: &DateTime<Utc>) -> String {
    use std::fmt::Write;
    // Written field by field: this runs for every stored vote, and a `strftime` pattern is
    // parsed again on every call.
    let micros = dt.nanosecond() / 1_000 % 1_000_000;
    let mut out = String::with_capacity(26);
    let year = dt.year();
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else {
        let _ = write!(out, "{year:+05}");
    }
    let _ = write!(out, "-{:02}-{:02}T{:02}:{:02}:{:02}", dt.month(), dt.day(), dt.hour(), dt.minute(), dt.second());
    if micros != 0 {
        let _ = write!(out, ".{micros:06}");
    }
    out
}

/// Formats with an explicit `Z`, for places that are not stored documents (logs, messages).
pub fn format_datetime_z(dt: &DateTime<Utc>) -> String {
    dt.to_rfc3339_opts(SecondsFormat::Micros, true)
}

/// Truncates to the microsecond, the precision of stored datetimes, so that a value survives a
/// round trip through `to_dict()`/`from_dict()` unchanged.
pub fn truncate_micros(dt: DateTime<Utc>) -> DateTime<Utc> {
    let nanos = dt.nanosecond();
    dt.with_nanosecond(nanos - nanos % 1_000).unwrap_or(dt)
}

/// Parses an ISO-8601 string: `2026-10-22T10:00:00`, `...Z`, `...+02:00`, a space instead of `T`,
/// fractional seconds, or a bare date (midnight UTC). A leap second (`:60`) is refused, as Python's
/// `fromisoformat()` refuses it: it could not be written back as a readable datetime.
pub fn parse_datetime_str(s: &str) -> Option<DateTime<Utc>> {
    parse_iso(s).filter(|dt| dt.nanosecond() < 1_000_000_000)
}

fn parse_iso(s: &str) -> Option<DateTime<Utc>> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    if let Some(dt) = parse_naive_fast(t) {
        return Some(dt);
    }
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Some(truncate_micros(dt.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%:z",
        "%Y-%m-%d %H:%M%:z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%d %H:%M%z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(t, fmt) {
            return Some(truncate_micros(dt.with_timezone(&Utc)));
        }
    }
    let naive = t.strip_suffix('Z').or_else(|| t.strip_suffix('z')).unwrap_or(t);
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(naive, fmt) {
            return Some(truncate_micros(Utc.from_utc_datetime(&n)));
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(naive, "%Y-%m-%d") {
        return Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?));
    }
    None
}

/// The form every stored document carries, `2026-10-22T10:03:12.481203` (a `T` or a space,
/// fraction optional, a trailing `Z` allowed), read without trying pattern after pattern: a
/// million stored votes are read per large evaluation. `None` for anything else, which the
/// general parser then takes.
fn parse_naive_fast(t: &str) -> Option<DateTime<Utc>> {
    let b = t.strip_suffix(['Z', 'z']).unwrap_or(t).as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let number =
        |digits: &[u8]| -> Option<u32> { digits.iter().try_fold(0u32, |n, d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))) };
    let micros = match &b[19..] {
        [] => 0,
        [b'.', fraction @ ..] if !fraction.is_empty() && fraction.len() <= 9 => {
            let n = number(fraction)?;
            // Scale to nanoseconds, then keep the microseconds (as the general path truncates).
            n * 10u32.pow(9 - fraction.len() as u32) / 1_000
        }
        _ => return None,
    };
    let year = i32::try_from(number(&b[0..4])?).ok()?;
    let date = NaiveDate::from_ymd_opt(year, number(&b[5..7])?, number(&b[8..10])?)?;
    let time = date.and_hms_micro_opt(number(&b[11..13])?, number(&b[14..16])?, number(&b[17..19])?, micros)?;
    Some(Utc.from_utc_datetime(&time))
}

/// Epoch seconds (integer or fractional) to UTC.
pub fn from_epoch_seconds(secs: f64) -> Option<DateTime<Utc>> {
    if !secs.is_finite() {
        return None;
    }
    let whole = secs.floor();
    let micros = ((secs - whole) * 1_000_000.0).round() as i64;
    let dt = DateTime::from_timestamp(whole as i64, 0)?;
    // Checked: the last second chrono can represent plus a fraction rounding up is beyond it.
    dt.checked_add_signed(chrono::Duration::microseconds(micros))
}

/// Parses any accepted JSON form of a datetime: an ISO-8601 string or epoch seconds.
pub fn parse_datetime(v: &Value) -> Option<DateTime<Utc>> {
    match v {
        Value::String(s) => parse_datetime_str(s),
        Value::Number(n) => n.as_f64().and_then(from_epoch_seconds),
        _ => None,
    }
}

struct DateTimeVisitor;

impl de::Visitor<'_> for DateTimeVisitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an ISO-8601 datetime or epoch seconds")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        parse_datetime_str(s).ok_or_else(|| E::custom(format!("Invalid datetime: {s}")))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        self.visit_f64(n as f64)
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        self.visit_f64(n as f64)
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        from_epoch_seconds(n).ok_or_else(|| E::custom(format!("Invalid datetime: {n}")))
    }
}

/// `#[serde(with = "iso")]` for a required datetime field.
pub mod iso {
    use super::*;
    pub fn serialize<S: Serializer>(dt: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_datetime(dt))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        d.deserialize_any(DateTimeVisitor)
    }
}

/// `#[serde(with = "iso_opt")]` for an optional datetime field (absent or null = `None`).
pub mod iso_opt {
    use super::*;
    pub fn serialize<S: Serializer>(dt: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match dt {
            Some(dt) => s.serialize_str(&format_datetime(dt)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        struct OptVisitor;
        impl<'de> de::Visitor<'de> for OptVisitor {
            type Value = Option<DateTime<Utc>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an ISO-8601 datetime, epoch seconds or null")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(DateTimeVisitor).map(Some)
            }
        }
        d.deserialize_option(OptVisitor)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn epoch_seconds_at_the_edges_are_refused_not_a_panic() {
        let last = chrono::DateTime::<chrono::Utc>::MAX_UTC.timestamp() as f64;
        for secs in [f64::MAX, f64::MIN, 1e308, -1e308, last + 0.9999999, f64::NAN, f64::INFINITY] {
            assert_eq!(super::from_epoch_seconds(secs), None, "{secs}");
        }
        assert!(super::from_epoch_seconds(1e-308).is_some());
        assert!(super::from_epoch_seconds(-0.0).is_some());
    }

    use super::*;
    use serde_json::json;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// The general parser without the fast path, to compare with.
    fn parse_slow(t: &str) -> Option<DateTime<Utc>> {
        let naive = t.strip_suffix('Z').or_else(|| t.strip_suffix('z')).unwrap_or(t);
        ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
            .iter()
            .find_map(|fmt| NaiveDateTime::parse_from_str(naive, fmt).ok())
            .map(|n| truncate_micros(Utc.from_utc_datetime(&n)))
    }

    #[test]
    fn the_fast_path_reads_stored_datetimes_as_the_general_parser_does() {
        let samples = [
            "2026-10-22T10:03:12.481203",
            "2026-10-22T10:03:12",
            "2026-10-22 10:03:12.5",
            "2026-10-22T10:03:12.123456789Z",
            "2026-10-22T10:03:12.000001z",
            "2024-02-29T23:59:59.999999",
            "0001-01-01T00:00:00",
            "9999-12-31T23:59:59.999999",
        ];
        for s in samples {
            assert_eq!(parse_naive_fast(s), parse_slow(s), "{s}");
            assert!(parse_naive_fast(s).is_some(), "{s}");
        }
        // Not the stored form (or not a datetime): left to the general parser, or refused.
        for s in [
            "2023-02-29T10:00:00",
            "2026-10-22T24:00:00",
            "2026-10-22T10:03:60",
            "2026-10-22T10:03:1x",
            "2026-10-22T10:03:12.",
            "2026-10-22T10:03:12.1234567890",
            "2026-10-22T10:03:12+02:00",
            "2026-10-22T10:03",
            "+2026-10-22T10:03:12",
        ] {
            assert_eq!(parse_naive_fast(s), None, "{s}");
        }
        assert_eq!(parse_datetime_str("2026-10-22T10:03:12+02:00"), Some(utc("2026-10-22T08:03:12Z")));
    }

    #[test]
    fn formats_as_strftime_would() {
        let strftime = |dt: &DateTime<Utc>| {
            let micros = dt.nanosecond() / 1_000 % 1_000_000;
            let base = dt.format("%Y-%m-%dT%H:%M:%S").to_string();
            if micros == 0 {
                base
            } else {
                format!("{base}.{micros:06}")
            }
        };
        let samples = [
            utc("2026-10-22T10:03:12.481203Z"),
            utc("2026-10-22T09:00:00Z"),
            utc("0001-01-01T00:00:00.000001Z"),
            utc("9999-12-31T23:59:59.999999Z"),
            utc("2024-02-29T01:02:03.000500Z"),
            Utc.with_ymd_and_hms(12_345, 6, 7, 8, 9, 10).unwrap(),
            Utc.with_ymd_and_hms(-44, 3, 15, 12, 0, 0).unwrap(),
        ];
        for dt in samples {
            assert_eq!(format_datetime(&dt), strftime(&dt), "{dt:?}");
        }
        assert_eq!(format_datetime(&utc("2026-10-22T10:03:12.481203Z")), "2026-10-22T10:03:12.481203");
    }

    #[test]
    fn accepts_every_documented_form() {
        let want = utc("2026-10-22T10:00:00Z");
        for v in [
            json!("2026-10-22T10:00:00"),
            json!("2026-10-22T10:00:00Z"),
            json!("2026-10-22T12:00:00+02:00"),
            json!("2026-10-22T05:00:00-0500"),
            json!("2026-10-22 10:00:00"),
            json!("2026-10-22T10:00:00.000"),
            json!(want.timestamp()),
            json!(want.timestamp() as f64),
        ] {
            assert_eq!(parse_datetime(&v), Some(want), "{v}");
        }
    }

    #[test]
    fn keeps_microseconds_and_formats_like_isoformat() {
        let dt = parse_datetime(&json!("2026-10-22T10:03:12.481203")).unwrap();
        assert_eq!(format_datetime(&dt), "2026-10-22T10:03:12.481203");
        let dt = parse_datetime(&json!("2026-10-22T09:00:00Z")).unwrap();
        assert_eq!(format_datetime(&dt), "2026-10-22T09:00:00");
        let dt = parse_datetime(&json!(1_761_127_392.5)).unwrap();
        assert_eq!(format_datetime(&dt), "2025-10-22T10:03:12.500000");
    }

    #[test]
    fn refuses_what_is_not_a_datetime() {
        for v in [json!("tomorrow"), json!(""), json!("2026-13-01T00:00:00"), json!(true), json!(null), json!({})] {
            assert_eq!(parse_datetime(&v), None, "{v}");
        }
    }
}
