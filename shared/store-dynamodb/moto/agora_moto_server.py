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

Usage, exactly as moto_server:  python agora_moto_server.py -H 127.0.0.1 -p 5055
"""

import copy
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


_dynamodb_lock = threading.Lock()
_original_call_action = DynamoHandler.call_action


def call_action(self):
    with _dynamodb_lock:
        return _original_call_action(self)


models.copy = _TablesNotCopied()
models.DynamoDBBackend.transact_write_items = transact_write_items
DynamoHandler.call_action = call_action

if __name__ == "__main__":
    sys.exit(main())
