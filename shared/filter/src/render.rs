//! Turning parsed clauses back into a MongoDB filter document.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::ast::{Clause, FieldClause, Op};
use crate::parse::has_operator_key;

/// Renders a conjunction. When every clause has its own key (distinct field paths, at most one
/// `$or`) it becomes a single object in clause order; otherwise an `{"$and": [...]}` of one
/// object per clause. Parsing the result yields the same clauses in the same order.
pub(crate) fn clauses_to_json(clauses: &[Clause]) -> Value {
    if keys_are_distinct(clauses) {
        Value::Object(clauses.iter().map(clause_entry).collect())
    } else {
        let conjuncts = clauses.iter().map(|clause| Value::Object(std::iter::once(clause_entry(clause)).collect())).collect();
        Value::Object(Map::from_iter([("$and".to_owned(), Value::Array(conjuncts))]))
    }
}

fn keys_are_distinct(clauses: &[Clause]) -> bool {
    let mut seen = HashSet::with_capacity(clauses.len());
    clauses.iter().all(|clause| {
        seen.insert(match clause {
            Clause::Field(field) => field.path.dotted.as_str(),
            Clause::Or(_) => "$or",
        })
    })
}

/// The key and value of one clause.
fn clause_entry(clause: &Clause) -> (String, Value) {
    match clause {
        Clause::Field(FieldClause { path, ops }) => (path.dotted.clone(), condition_to_json(ops)),
        Clause::Or(branches) => ("$or".to_owned(), Value::Array(branches.iter().map(|b| clauses_to_json(b)).collect())),
    }
}

/// A lone equality is written plainly (`{field: value}`) unless the value would then read as an
/// operator object; everything else as an operator object.
fn condition_to_json(ops: &[Op]) -> Value {
    match ops {
        [Op::Eq(value)] if !matches!(value, Value::Object(m) if has_operator_key(m)) => value.clone(),
        _ => operators_to_json(ops),
    }
}

fn operators_to_json(ops: &[Op]) -> Value {
    Value::Object(
        ops.iter()
            .map(|op| {
                let (name, operand) = operator_entry(op);
                (name.to_owned(), operand)
            })
            .collect(),
    )
}

fn operator_entry(op: &Op) -> (&'static str, Value) {
    match op {
        Op::Eq(v) => ("$eq", v.clone()),
        Op::Ne(v) => ("$ne", v.clone()),
        Op::Cmp(cmp, v) => (cmp.name(), v.clone()),
        Op::In(values) => ("$in", Value::Array(values.clone())),
        Op::Nin(values) => ("$nin", Value::Array(values.clone())),
        Op::Exists(b) => ("$exists", Value::Bool(*b)),
        Op::Not(inner) => ("$not", operators_to_json(inner)),
    }
}
