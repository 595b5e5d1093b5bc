//! Python's `datetime.fromisoformat` (CPython 3.11+, its C implementation) as a checker: the
//! Python clients (clients.md) read every datetime they are sent with it, so a datetime Agora
//! sends must be a string it accepts. [`fromisoformat`] follows `_datetimemodule.c` step by
//! step, quirks included (a date alone, basic and week dates, any one character between date
//! and time, a fraction of any length after `.` or `,`, `Z`, offsets with seconds and
//! fractions, under 24 hours), and then the range checks of `datetime(...)` and `timezone(...)`.

use chrono::{Datelike, NaiveDate};

/// The fields `datetime.fromisoformat(s)` reads, or why it raises `ValueError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PyDateTime {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub microsecond: u32,
    /// The UTC offset in microseconds; `None`: a naive datetime.
    pub offset_us: Option<i64>,
}

/// The string as C sees it: its UTF-8 bytes (each as the `char` of that value, so that only
/// ASCII ones match anything), then a NUL past the end.
struct Text(Vec<char>);

impl Text {
    fn at(&self, i: usize) -> char {
        self.0.get(i).copied().unwrap_or('\0')
    }

    /// `parse_digits`: `n` ASCII digits from `i`, or `None`.
    fn digits(&self, i: usize, n: usize) -> Option<(u32, usize)> {
        let mut v = 0u32;
        for k in 0..n {
            let c = self.at(i + k);
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (u32::from(c) - u32::from('0'));
        }
        Some((v, i + n))
    }
}

/// `_find_isoformat_datetime_separator`: where the date ends.
fn separator(t: &Text, len: usize) -> Option<usize> {
    if len == 7 {
        return Some(7);
    }
    if t.at(4) == '-' {
        if t.at(5) != 'W' {
            return Some(10);
        }
        if len > 8 && t.at(8) == '-' {
            if len == 9 {
                return None;
            }
            return Some(if len > 10 && t.at(10).is_ascii_digit() { 8 } else { 10 });
        }
        return Some(8);
    }
    if t.at(4) != 'W' {
        return Some(8);
    }
    let mut idx = 7;
    while idx < len && t.at(idx).is_ascii_digit() {
        idx += 1;
    }
    Some(if idx < 9 {
        idx
    } else if idx % 2 == 0 {
        7
    } else {
        8
    })
}

/// `parse_isoformat_date` over `t[..len]`: a calendar or an ISO week date.
fn date(t: &Text, len: usize) -> Option<(i32, u32, u32)> {
    let (year, mut p) = t.digits(0, 4)?;
    let dashed = t.at(p) == '-';
    p += usize::from(dashed);
    let year = i32::try_from(year).ok()?;
    if t.at(p) == 'W' {
        let (week, mut p) = t.digits(p + 1, 2)?;
        let mut weekday = 1;
        if p < len {
            if dashed {
                if t.at(p) != '-' {
                    return None;
                }
                p += 1;
            }
            weekday = t.digits(p, 1)?.0;
        }
        let weekday = match weekday {
            1 => chrono::Weekday::Mon,
            2 => chrono::Weekday::Tue,
            3 => chrono::Weekday::Wed,
            4 => chrono::Weekday::Thu,
            5 => chrono::Weekday::Fri,
            6 => chrono::Weekday::Sat,
            7 => chrono::Weekday::Sun,
            _ => return None,
        };
        let d = NaiveDate::from_isoywd_opt(year, week, weekday)?;
        return Some((d.year(), d.month(), d.day()));
    }
    let (month, mut p) = t.digits(p, 2)?;
    if dashed {
        if t.at(p) != '-' {
            return None;
        }
        p += 1;
    }
    let (day, _) = t.digits(p, 2)?;
    Some((year, month, day))
}

/// `parse_hh_mm_ss_ff` over `t[start..end]`: `(h, m, s, us)` and whether anything is left
/// (C's "not at the NUL" flag), or `None`.
fn hh_mm_ss_ff(t: &Text, start: usize, end: usize) -> Option<([u32; 4], bool)> {
    let mut vals = [0u32; 4];
    let mut p = start;
    let mut has_separator = true;
    for (i, val) in vals.iter_mut().take(3).enumerate() {
        let (v, next) = t.digits(p, 2)?;
        *val = v;
        p = next;
        let c = t.at(p);
        p += 1;
        if i == 0 {
            has_separator = c == ':';
        }
        if p >= end {
            return Some((vals, c != '\0'));
        } else if has_separator && c == ':' {
            continue;
        } else if c == '.' || c == ',' {
            break;
        } else if !has_separator {
            p -= 1;
        } else {
            return None;
        }
    }
    // The fraction (C reads one here even with no '.' after three components).
    let to_parse = end.saturating_sub(p).min(6);
    if to_parse == 0 {
        return None;
    }
    let (us, next) = t.digits(p, to_parse)?;
    vals[3] = us * 10u32.pow(u32::try_from(6 - to_parse).unwrap_or(0));
    p = next;
    while t.at(p).is_ascii_digit() {
        p += 1;
    }
    Some((vals, t.at(p) != '\0'))
}

/// `parse_isoformat_time` over `t[start..len]`: the time and its offset in microseconds.
fn time(t: &Text, start: usize, len: usize) -> Option<([u32; 4], Option<i64>)> {
    let mut tz = start;
    loop {
        if matches!(t.at(tz), 'Z' | '+' | '-') {
            break;
        }
        tz += 1;
        if tz >= len {
            break;
        }
    }
    let (vals, rest) = hh_mm_ss_ff(t, start, tz)?;
    if tz == len {
        return (!rest).then_some((vals, None));
    }
    if t.at(tz) == 'Z' {
        return (t.at(tz + 1) == '\0').then_some((vals, Some(0)));
    }
    let sign: i64 = if t.at(tz) == '-' { -1 } else { 1 };
    let (z, rest) = hh_mm_ss_ff(t, tz + 1, len)?;
    if rest {
        return None;
    }
    let seconds = i64::from(z[0]) * 3600 + i64::from(z[1]) * 60 + i64::from(z[2]);
    Some((vals, Some(sign * (seconds * 1_000_000 + i64::from(z[3])))))
}

/// Reads `s` as `datetime.fromisoformat(s)` does; `Err` says why Python would raise.
pub fn fromisoformat(s: &str) -> Result<PyDateTime, String> {
    let invalid = || format!("Invalid isoformat string: {s:?}");
    if s.chars().count() < 7 {
        return Err(invalid());
    }
    let t = Text(s.bytes().map(char::from).collect());
    let len = t.0.len();
    let sep = separator(&t, len).ok_or_else(invalid)?;
    let (year, month, day) = date(&t, sep).ok_or_else(invalid)?;
    // The separator is any one character: C skips its UTF-8 bytes, read from its first byte.
    let width = match u32::from(t.at(sep)) {
        b if b & 0x80 == 0 => 1,
        b if b & 0xf0 == 0xe0 => 3,
        b if b & 0xf0 == 0xf0 => 4,
        _ => 2,
    };
    let (vals, offset_us) = if len > sep { time(&t, sep + width, len).ok_or_else(invalid)? } else { ([0; 4], None) };
    // datetime(...) and timezone(...): each field in its range.
    if !(1..=9999).contains(&year) || NaiveDate::from_ymd_opt(year, month, day).is_none() {
        return Err(format!("{s:?}: the date is out of range"));
    }
    if vals[0] > 23 || vals[1] > 59 || vals[2] > 59 {
        return Err(format!("{s:?}: the time is out of range"));
    }
    if offset_us.is_some_and(|o| o.abs() >= 86_400_000_000) {
        return Err(format!("{s:?}: the offset must be strictly between -24 and 24 hours"));
    }
    Ok(PyDateTime { year, month, day, hour: vals[0], minute: vals[1], second: vals[2], microsecond: vals[3], offset_us })
}
