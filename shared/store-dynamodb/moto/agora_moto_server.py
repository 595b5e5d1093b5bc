"""`moto_server`, with DynamoDB fixed for concurrent transactional workloads.

Two problems of moto (5.2.5) that the DynamoDB store's tests hit:

1. TransactWriteItems deep-copies the whole table once per item of the transaction, to restore
   it should the transaction fail: a 100-item transaction on a table of 10,000 items copies a
   million items (seconds, and gigabytes of garbage), so the store contract suite's batches of
   50 votes take the better part of an hour. Here a transaction snapshots only the items it
   touches, with the same behaviour (all or none, the same errors and cancellation reasons).
2. The DynamoDB model is not thread-safe, while the server runs each request on a thread of its
   own: a deep copy or a query iterating a table that another request is writing fails with
   "RuntimeError: dictionary changed size during iteration" (HTTP 500). Here DynamoDB requests
   run one at a time (other services are untouched).
3. A query on a global secondary index reads every item of the table to find the few with the
   queried partition key, and the store reads a hot key's index over 16 write shards: 16 full
   passes for one lookup. Here a query on an index looks at the items of its partition key only,
   from a grouping of the table's items by that key's attribute, made on the first such query
   and dropped by the next request that may write (any DynamoDB action that is not a read).
   Items are the same objects in the same order, so answers are exactly moto's.

Usage, exactly as moto_server:  python agora_moto_server.py -H 127.0.0.1 -p 5055
"""

import copy
import inspect
import sys
import threading

import moto.dynamodb.models as models
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.responses import DynamoHandler
from moto.dynamodb.models.table import Table
from moto.server import main


class _TablesNotCopied:
    """The `copy` module as moto's DynamoDB backend sees it: tables are not deep-copied (the
    wrapper below keeps snapshots of the touched items instead); everything else is."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, Table):
            return value
        return copy.deepcopy(value, memo)


_original_transact_write_items = models.DynamoDBBackend.transact_write_items


def _key(table, op_type, op):
    attrs = op["Item"] if op_type == "Put" else op["Key"]
    hash_value = DynamoType(attrs[table.hash_key_attr])
    range_value = DynamoType(attrs[table.range_key_attr]) if table.range_key_attr else None
    return hash_value, range_value


def _restore(table, hash_value, range_value, before):
    if range_value is None:
        if before is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = before
    else:
        if before is None:
            table.items.get(hash_value, {}).pop(range_value, None)
        else:
            table.items[hash_value][range_value] = before


def transact_write_items(self, transact_items):
    snapshots = []
    for entry in transact_items:
        try:
            op_type, op = next(iter(entry.items()))
            table = self.get_table(op["TableName"])
            hash_value, range_value = _key(table, op_type, op)
            before = table.get_item(hash_value, range_value)
        except Exception:
            # Malformed: moto's own code reports it.
            continue
        snapshots.append((table, hash_value, range_value, copy.deepcopy(before)))
    try:
        return _original_transact_write_items(self, transact_items)
    except Exception:
        for table, hash_value, range_value, before in reversed(snapshots):
            _restore(table, hash_value, range_value, before)
        raise


_READS = {
    "Query", "GetItem", "BatchGetItem", "Scan", "DescribeTable", "ListTables",
    "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource", "DescribeLimits",
    "DescribeEndpoints", "TransactGetItems",
}
# (table id, attribute) -> {partition key value: [items, in the table's order]}; valid while
# only reads run (requests run one at a time, under the lock below).
_index_groups = {}


def _grouped(table, attribute):
    key = (id(table), attribute)
    groups = _index_groups.get(key)
    if groups is None:
        groups = {}
        for item in table.all_items():
            value = getattr(item, "attrs", {}).get(attribute)
            if value is not None:
                groups.setdefault(value, []).append(item)
        _index_groups[key] = groups
    return groups


_original_query = Table.query
_query_signature = inspect.signature(_original_query)


def query(self, *args, **kwargs):
    bound = _query_signature.bind(self, *args, **kwargs)
    index_name = bound.arguments.get("index_name")
    conditions = bound.arguments.get("hash_key_conditions")
    if not index_name or not conditions or len(conditions) != 1:
        return _original_query(self, *args, **kwargs)
    attribute, value = conditions[0]
    candidates = _grouped(self, attribute).get(value, [])
    # moto's query filters what all_items yields by the same condition: give it the candidates.
    self.all_items = lambda: iter(candidates)
    try:
        return _original_query(self, *args, **kwargs)
    finally:
        del self.all_items


_dynamodb_lock = threading.Lock()
_original_call_action = DynamoHandler.call_action


def call_action(self):
    target = self.headers.get("X-Amz-Target", "") if self.headers else ""
    with _dynamodb_lock:
        if target.rsplit(".", 1)[-1] not in _READS:
            _index_groups.clear()
        return _original_call_action(self)


models.copy = _TablesNotCopied()
models.DynamoDBBackend.transact_write_items = transact_write_items
DynamoHandler.call_action = call_action
Table.query = query

if __name__ == "__main__":
    sys.exit(main())
