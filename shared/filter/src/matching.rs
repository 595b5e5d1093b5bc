//! Evaluating a parsed filter against a document.

use serde_json::Value;

use crate::ast::{Clause, Op, Part};
use crate::compare::{compare_scalars, values_equal};
use crate::path::{any_item, Item};

/// Do all `clauses` match `doc`? (An empty conjunction matches everything.)
pub(crate) fn all_match(clauses: &[Clause], doc: &Value) -> bool {
    clauses.iter().all(|clause| clause_matches(clause, doc))
}

fn clause_matches(clause: &Clause, doc: &Value) -> bool {
    match clause {
        Clause::Field(field) => field.ops.iter().all(|op| op_matches(op, &field.path.parts, doc)),
        Clause::Or(branches) => branches.iter().any(|branch| all_match(branch, doc)),
    }
}

/// Does the field at `parts` in `doc` satisfy `op`?
fn op_matches(op: &Op, parts: &[Part], doc: &Value) -> bool {
    match op {
        Op::Eq(operand) => any_item(doc, parts, &mut |item| item_equals(item, operand)),
        Op::Ne(operand) => !any_item(doc, parts, &mut |item| item_equals(item, operand)),
        Op::Cmp(cmp, operand) => any_item(doc, parts, &mut |item| match item {
            Item::Value(value) => compare_scalars(value, operand).is_some_and(|o| cmp.accepts(o)),
            Item::Missing => false,
        }),
        Op::In(operands) => any_item(doc, parts, &mut |item| operands.iter().any(|operand| item_equals(item, operand))),
        Op::Nin(operands) => !any_item(doc, parts, &mut |item| operands.iter().any(|operand| item_equals(item, operand))),
        Op::Exists(wanted) => any_item(doc, parts, &mut |item| matches!(item, Item::Value(_))) == *wanted,
        Op::Not(ops) => !ops.iter().all(|inner| op_matches(inner, parts, doc)),
    }
}

/// MongoDB equality of one path item with an operand: `null` also matches a missing field.
fn item_equals(item: Item<'_>, operand: &Value) -> bool {
    match item {
        Item::Value(value) => values_equal(value, operand),
        Item::Missing => operand.is_null(),
    }
}
