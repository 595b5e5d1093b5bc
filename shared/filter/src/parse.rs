//! Turning a filter document into [`Clause`]s, rejecting anything outside the supported
//! language.

use serde_json::{Map, Value};

use crate::ast::{Clause, CmpOp, FieldClause, FieldPath, Op};
use crate::error::{describe, kind, FilterError};

/// The operators that may appear inside a field condition.
const FIELD_OPERATORS: &[&str] = &["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$not"];

/// The operators that may appear at the top level of a filter.
const TOP_LEVEL_OPERATORS: &[&str] = &["$and", "$or"];

/// Parses a whole filter document into its conjuncts (`$and`s are flattened into them).
pub(crate) fn parse_filter(filter: &Value) -> Result<Vec<Clause>, FilterError> {
    let Value::Object(map) = filter else {
        return Err(FilterError::NotAnObject(kind(filter)));
    };
    let mut clauses = Vec::new();
    parse_object_into(map, &mut clauses)?;
    Ok(clauses)
}

/// Appends the conjuncts of the filter object `map` to `out`.
fn parse_object_into(map: &Map<String, Value>, out: &mut Vec<Clause>) -> Result<(), FilterError> {
    for (key, value) in map {
        match key.as_str() {
            "$and" => {
                for sub in filter_list("$and", value)? {
                    parse_object_into(sub, out)?;
                }
            }
            "$or" => {
                let branches = filter_list("$or", value)?
                    .into_iter()
                    .map(|sub| {
                        let mut branch = Vec::new();
                        parse_object_into(sub, &mut branch)?;
                        Ok(branch)
                    })
                    .collect::<Result<Vec<_>, FilterError>>()?;
                // A branch without conditions matches everything, and so does the `$or`.
                if !branches.iter().any(Vec::is_empty) {
                    out.push(Clause::Or(branches));
                }
            }
            op if op.starts_with('$') => return Err(top_level_operator_error(op)),
            field => out.push(Clause::Field(FieldClause { path: FieldPath::parse(field)?, ops: parse_condition(field, value)? })),
        }
    }
    Ok(())
}

/// The operand of `$and`/`$or`: a non-empty array of objects.
fn filter_list<'v>(op: &str, value: &'v Value) -> Result<Vec<&'v Map<String, Value>>, FilterError> {
    const EXPECTED: &str = "a non-empty array of filter objects";
    let bad = |got: String| FilterError::BadOperand { op: op.to_owned(), expected: EXPECTED, got };
    let Value::Array(elements) = value else {
        return Err(bad(describe(value)));
    };
    if elements.is_empty() {
        return Err(bad(describe(value)));
    }
    elements
        .iter()
        .enumerate()
        .map(|(i, element)| match element {
            Value::Object(map) => Ok(map),
            other => Err(bad(format!("{} at index {i}", describe(other)))),
        })
        .collect()
}

fn top_level_operator_error(op: &str) -> FilterError {
    if FIELD_OPERATORS.contains(&op) {
        FilterError::MisplacedOperator {
            op: op.to_owned(),
            context: format!(
                "at the top level of a filter; it belongs in a field condition such as \
                 {{\"field\": {{\"{op}\": ...}}}}"
            ),
        }
    } else {
        FilterError::UnsupportedOperator(op.to_owned())
    }
}

/// Parses the condition on `field`: an operator object, or a value to compare for equality.
fn parse_condition(field: &str, condition: &Value) -> Result<Vec<Op>, FilterError> {
    match condition {
        Value::Object(map) if has_operator_key(map) => {
            if let Some(plain) = map.keys().find(|k| !k.starts_with('$')) {
                return Err(FilterError::MixedOperatorObject { field: field.to_owned(), key: plain.clone() });
            }
            parse_operators(field, map)
        }
        // Includes objects without `$` keys: literal equality with that object.
        _ => Ok(vec![Op::Eq(operand(field, condition)?)]),
    }
}

/// Parses an object whose keys are all operators.
fn parse_operators(field: &str, map: &Map<String, Value>) -> Result<Vec<Op>, FilterError> {
    map.iter().map(|(op, operand)| parse_operator(field, op, operand)).collect()
}

fn parse_operator(field: &str, op: &str, operand: &Value) -> Result<Op, FilterError> {
    let bad = |expected: &'static str| FilterError::BadOperand { op: op.to_owned(), expected, got: describe(operand) };
    let cmp = |c: CmpOp| match operand {
        Value::Number(_) | Value::String(_) | Value::Bool(_) => Ok(Op::Cmp(c, operand.clone())),
        _ => Err(bad("a number, a string or a boolean")),
    };
    match op {
        "$eq" => Ok(Op::Eq(self::operand(field, operand)?)),
        "$ne" => Ok(Op::Ne(self::operand(field, operand)?)),
        "$gt" => cmp(CmpOp::Gt),
        "$gte" => cmp(CmpOp::Gte),
        "$lt" => cmp(CmpOp::Lt),
        "$lte" => cmp(CmpOp::Lte),
        "$in" => Ok(Op::In(value_list(field, op, operand)?)),
        "$nin" => Ok(Op::Nin(value_list(field, op, operand)?)),
        "$exists" => match operand {
            Value::Bool(b) => Ok(Op::Exists(*b)),
            Value::Number(n) => Ok(Op::Exists(n.as_f64() != Some(0.0))),
            _ => Err(bad("a boolean (or a number, 0 meaning false)")),
        },
        "$not" => match operand {
            Value::Object(map) if !map.is_empty() && map.keys().all(|k| k.starts_with('$')) => Ok(Op::Not(parse_operators(field, map)?)),
            _ => Err(bad("a non-empty operator object such as {\"$gt\": 5}")),
        },
        _ if TOP_LEVEL_OPERATORS.contains(&op) => Err(FilterError::MisplacedOperator {
            op: op.to_owned(),
            context: format!("inside the condition on field {field:?}; it belongs at the top level of a filter"),
        }),
        _ => Err(FilterError::UnsupportedOperator(op.to_owned())),
    }
}

/// A value compared with `field` (`$eq`, `$ne`, an element of `$in`), checked: no object inside
/// it has a key with a NUL character (no stored document has one, and MongoDB cannot be sent
/// one).
fn operand(field: &str, value: &Value) -> Result<Value, FilterError> {
    fn check(field: &str, value: &Value) -> Result<(), FilterError> {
        match value {
            Value::Object(map) => map.iter().try_for_each(|(key, inner)| {
                if key.contains('\0') {
                    return Err(FilterError::UnstorableKey { field: field.to_owned(), key: key.clone() });
                }
                check(field, inner)
            }),
            Value::Array(items) => items.iter().try_for_each(|inner| check(field, inner)),
            _ => Ok(()),
        }
    }
    check(field, value)?;
    Ok(value.clone())
}

/// The operand of `$in`/`$nin`: an array of values, none of them an operator object.
fn value_list(field: &str, op: &str, operand: &Value) -> Result<Vec<Value>, FilterError> {
    let Value::Array(values) = operand else {
        return Err(FilterError::BadOperand { op: op.to_owned(), expected: "an array", got: describe(operand) });
    };
    if let Some((i, nested)) = values.iter().enumerate().find(|(_, v)| matches!(v, Value::Object(m) if has_operator_key(m))) {
        return Err(FilterError::BadOperand {
            op: op.to_owned(),
            expected: "an array of values without operators",
            got: format!("{} at index {i}", describe(nested)),
        });
    }
    values.iter().map(|v| self::operand(field, v)).collect()
}

/// Does the object have a key starting with `$` (making it an operator object)?
pub(crate) fn has_operator_key(map: &Map<String, Value>) -> bool {
    map.keys().any(|k| k.starts_with('$'))
}
