//! Datetimes as the spec stores them: written as naive ISO-8601 in UTC (Python's
//! `datetime.isoformat()`: microseconds only when non-zero), read from ISO-8601 with or without
//! `Z` or an offset, from epoch seconds, and naive values taken as UTC.

use chrono::{DateTime, NaiveDate, NaiveDateTime, SecondsFormat, TimeZone, Timelike, Utc};
use serde::{de, Deserializer, Serializer};
use serde_json::Value;
use std::fmt;

/// Formats a UTC datetime the way the stored documents carry it: `2026-10-22T10:03:12.481203`,
/// or `2026-10-22T09:00:00` when the microseconds are zero.
pub fn format_datetime(dt: &DateTime<Utc>) -> String {
    let micros = dt.nanosecond() / 1_000 % 1_000_000;
    if micros == 0 {
        dt.format("%Y-%m-%dT%H:%M:%S").to_string()
    } else {
        format!("{}.{:06}", dt.format("%Y-%m-%dT%H:%M:%S"), micros)
    }
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

/// Epoch seconds (integer or fractional) to UTC.
pub fn from_epoch_seconds(secs: f64) -> Option<DateTime<Utc>> {
    if !secs.is_finite() {
        return None;
    }
    let whole = secs.floor();
    let micros = ((secs - whole) * 1_000_000.0).round() as i64;
    let dt = DateTime::from_timestamp(whole as i64, 0)?;
    Some(dt + chrono::Duration::microseconds(micros))
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
    use super::*;
    use serde_json::json;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
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
