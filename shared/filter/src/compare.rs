//! Equality and ordering of JSON values, following MongoDB's BSON comparison rules as far as
//! JSON can express them.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// Deep equality: numbers compare numerically (`1 == 1.0`), arrays element-wise in order,
/// objects by their set of keys and values regardless of key order (MongoDB compares embedded
/// documents in field order; this crate deliberately does not). Values of different JSON kinds
/// are never equal.
pub(crate) fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => cmp_numbers(x, y).is_eq(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(u, v)| values_equal(u, v)),
        (Value::Object(x), Value::Object(y)) => {
            // Keys are unique within an object, so equal sizes plus inclusion is set equality.
            x.len() == y.len() && x.iter().all(|(k, u)| y.get(k).is_some_and(|v| values_equal(u, v)))
        }
        _ => false,
    }
}

/// Orders two values of the same comparable type bracket: numbers with numbers (numerically),
/// strings with strings (by bytes, which is code point order), booleans with booleans
/// (`false < true`). `None` for anything else, so cross-type comparisons never match.
pub(crate) fn compare_scalars(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Some(cmp_numbers(x, y)),
        (Value::String(x), Value::String(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// A JSON number widened so that every representation compares exactly.
#[derive(Clone, Copy)]
enum Num {
    Int(i128),
    Float(f64),
}

fn widen(n: &Number) -> Num {
    if let Some(i) = n.as_i64() {
        Num::Int(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Num::Int(i128::from(u))
    } else {
        // Without serde_json's arbitrary_precision every number is an i64, a u64 or a finite f64.
        Num::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Exact numeric comparison of two JSON numbers, integer and floating point alike: no rounding
/// of large integers to `f64`. NaN (not representable in serde_json) would sort below every
/// number and equal to itself, as in MongoDB.
pub(crate) fn cmp_numbers(a: &Number, b: &Number) -> Ordering {
    match (widen(a), widen(b)) {
        (Num::Int(x), Num::Int(y)) => x.cmp(&y),
        (Num::Float(x), Num::Float(y)) => cmp_floats(x, y),
        (Num::Int(x), Num::Float(y)) => cmp_int_float(x, y),
        (Num::Float(x), Num::Int(y)) => cmp_int_float(y, x).reverse(),
    }
}

fn cmp_floats(x: f64, y: f64) -> Ordering {
    match x.partial_cmp(&y) {
        Some(o) => o,
        // At least one NaN: NaN is the smallest number and equal to itself.
        None => x.is_nan().cmp(&y.is_nan()).reverse(),
    }
}

/// Exactly compares an integer within the i64/u64 range with a float.
fn cmp_int_float(i: i128, f: f64) -> Ordering {
    /// 2^64: every integer we hold is below it.
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    /// -2^63: every integer we hold is at or above it.
    const MINUS_TWO_POW_63: f64 = -9_223_372_036_854_775_808.0;
    if f.is_nan() {
        return Ordering::Greater;
    }
    if f >= TWO_POW_64 {
        return Ordering::Less;
    }
    if f < MINUS_TWO_POW_63 {
        return Ordering::Greater;
    }
    let whole = f.trunc();
    // `whole` lies in [-2^63, 2^64) and is integral, so the conversion is exact.
    let whole_int = whole as i128;
    match i.cmp(&whole_int) {
        Ordering::Equal => {
            // Same integral part: the float's fraction decides.
            cmp_floats(whole, f)
        }
        o => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn num(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            other => panic!("not a number: {other}"),
        }
    }

    fn cmp(a: Value, b: Value) -> Ordering {
        cmp_numbers(&num(a), &num(b))
    }

    #[test]
    fn int_and_float_compare_numerically() {
        assert_eq!(cmp(json!(1), json!(1.0)), Ordering::Equal);
        assert_eq!(cmp(json!(-0.0), json!(0)), Ordering::Equal);
        assert_eq!(cmp(json!(1), json!(1.5)), Ordering::Less);
        assert_eq!(cmp(json!(2), json!(1.5)), Ordering::Greater);
        assert_eq!(cmp(json!(-1), json!(-1.5)), Ordering::Greater);
        assert_eq!(cmp(json!(-2), json!(-1.5)), Ordering::Less);
        assert_eq!(cmp(json!(1.5), json!(1)), Ordering::Greater);
    }

    #[test]
    fn large_integers_are_not_rounded() {
        // 2^53 + 1 is not representable as f64; it must still differ from 2^53 as a float.
        let big = 9_007_199_254_740_993_i64;
        assert_eq!(cmp(json!(big), json!(9_007_199_254_740_992.0)), Ordering::Greater);
        assert_eq!(cmp(json!(big), json!(big - 1)), Ordering::Greater);
        assert_eq!(cmp(json!(u64::MAX), json!(i64::MAX)), Ordering::Greater);
        assert_eq!(cmp(json!(u64::MAX), json!(1.8446744073709552e19)), Ordering::Less);
        assert_eq!(cmp(json!(i64::MIN), json!(i64::MIN as f64)), Ordering::Equal);
        assert_eq!(cmp(json!(i64::MIN), json!(-1e19)), Ordering::Greater);
        assert_eq!(cmp(json!(0), json!(1e300)), Ordering::Less);
        assert_eq!(cmp(json!(0), json!(-1e300)), Ordering::Greater);
    }

    #[test]
    fn nan_sorts_first() {
        assert_eq!(cmp_floats(f64::NAN, f64::NAN), Ordering::Equal);
        assert_eq!(cmp_floats(f64::NAN, -1e300), Ordering::Less);
        assert_eq!(cmp_floats(-1e300, f64::NAN), Ordering::Greater);
        assert_eq!(cmp_int_float(i128::from(i64::MIN), f64::NAN), Ordering::Greater);
    }

    #[test]
    fn deep_equality() {
        assert!(values_equal(&json!({"a": 1, "b": [1, {"c": 2.0}]}), &json!({"b": [1.0, {"c": 2}], "a": 1.0})));
        assert!(!values_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!values_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!values_equal(&json!(1), &json!(true)));
        assert!(!values_equal(&json!("1"), &json!(1)));
        assert!(!values_equal(&json!(null), &json!(false)));
        assert!(values_equal(&json!(null), &json!(null)));
    }

    #[test]
    fn scalar_brackets() {
        assert_eq!(compare_scalars(&json!("b"), &json!("a")), Some(Ordering::Greater));
        assert_eq!(compare_scalars(&json!("Z"), &json!("a")), Some(Ordering::Less));
        assert_eq!(compare_scalars(&json!(true), &json!(false)), Some(Ordering::Greater));
        assert_eq!(compare_scalars(&json!(1), &json!("1")), None);
        assert_eq!(compare_scalars(&json!(1), &json!(true)), None);
        assert_eq!(compare_scalars(&json!(null), &json!(null)), None);
        assert_eq!(compare_scalars(&json!([1]), &json!([1])), None);
    }
}
