"""`moto_server`, with DynamoDB fixed for concurrent transactional workloads.

Problems of moto (5.2.5) that the DynamoDB store's tests hit:

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
   and kept up to date item by item: every put, delete, update and transaction rollback marks
   the item it wrote, and the next index query regroups the marked items (any other action that
   may write drops the groupings). Items are the same objects in the same order, so answers are
   exactly moto's.
4. Every request, whatever its service, lists moto's package directory (a stat per service
   module) and inspects the handler class's methods: about half of a small request's time.
   Here both are computed once (neither changes while the server runs).
5. A query deep-copies every item it answers, then projects each (the index's projection, then
   the request's) by converting the whole item to plain JSON and back: most of the time of the
   store's index reads. Here the copy shares the items' values (nothing changes them before the
   answer is sent) and a projection of top-level attributes picks them from the item.

And one SQS addition, for `infra/aws/dead-letters` and its tests:

6. moto has no dead-letter queue redrive (StartMessageMoveTask, ListMessageMoveTasks: "not
   implemented"). Here StartMessageMoveTask moves, at once, every message of a dead-letter queue
   that is visible now to DestinationArn (or, without one, to each message's source: the queue
   its `agora_source_queue` attribute names, else the one queue whose RedrivePolicy names the
   dead-letter queue), as SQS does: a new message with the same body, message attributes and
   (FIFO) group. The task is then COMPLETED, as ListMessageMoveTasks reports it. The DynamoDB
   fixes above are untouched by it.

Usage, exactly as moto_server:  python agora_moto_server.py -H 127.0.0.1 -p 5055
"""

import base64
import copy
import inspect
import json
import logging
import sys
import threading
import time
import uuid
import weakref

import werkzeug.serving

import moto.backends as moto_backends
import moto.core.responses as moto_responses
import moto.dynamodb.models as models
import moto.dynamodb.models.table as table_module
from moto.dynamodb.models.dynamo_type import Item, LimitedSizeDict
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.responses import DynamoHandler
from moto.dynamodb.models.table import Table
from moto.server import main
from moto.core.responses import ActionResult
from moto.sqs.exceptions import InvalidParameterValue, QueueDoesNotExist
from moto.sqs.models import sqs_backends
from moto.sqs.responses import SQSResponse


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
    _touch(table, hash_value, range_value)


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


# Actions that write nothing, and those whose writes reach the items only through the hooks
# below (Table.put_item, Table.delete_item, DynamoDBBackend.update_item, _restore). Any other
# action drops every grouping.
_READS = {
    "Query", "GetItem", "BatchGetItem", "Scan", "DescribeTable", "ListTables",
    "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource", "DescribeLimits",
    "DescribeEndpoints", "TransactGetItems",
}
_HOOKED_WRITES = {"PutItem", "DeleteItem", "UpdateItem", "TransactWriteItems", "BatchWriteItem"}


class _Groups:
    """One table's items grouped by the value of each index key attribute queried so far, kept
    up to date item by item: a write marks its item's key, and the next index query moves each
    marked item to the group of its current value (or out of every group once deleted)."""

    def __init__(self):
        self.by_attribute = {}  # attribute -> {value: {item key: item}}
        self.value_of = {}  # attribute -> {item key: value}
        self.touched = set()

    def candidates(self, table, attribute, value):
        self._settle(table)
        groups = self.by_attribute.get(attribute)
        if groups is None:
            groups, values = {}, {}
            for item in table.all_items():
                found = getattr(item, "attrs", {}).get(attribute)
                if found is not None:
                    key = (item.hash_key, item.range_key)
                    groups.setdefault(found, {})[key] = item
                    values[key] = found
            self.by_attribute[attribute], self.value_of[attribute] = groups, values
        group = groups.get(value)
        if not group:
            return []
        # all_items' order, so answers are exactly moto's.
        return sorted(group.values(), key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)

    def _settle(self, table):
        for key in self.touched:
            hash_value, range_value = key
            if range_value is None:
                item = table.items.get(hash_value)
            else:
                item = table.items.get(hash_value, {}).get(range_value)
            for attribute, groups in self.by_attribute.items():
                values = self.value_of[attribute]
                old = values.pop(key, None)
                if old is not None:
                    group = groups.get(old)
                    if group is not None:
                        group.pop(key, None)
                        if not group:
                            del groups[old]
                new = getattr(item, "attrs", {}).get(attribute) if item is not None else None
                if new is not None:
                    groups.setdefault(new, {})[key] = item
                    values[key] = new
        self.touched.clear()


_grouped_tables = weakref.WeakSet()


def _groups(table):
    groups = table.__dict__.get("_agora_groups")
    if groups is None:
        groups = table._agora_groups = _Groups()
        _grouped_tables.add(table)
    return groups


def _touch(table, hash_value, range_value):
    groups = table.__dict__.get("_agora_groups")
    if groups is not None and groups.by_attribute:
        groups.touched.add((hash_value, range_value))


def _forget_all_groupings():
    for table in list(_grouped_tables):
        table.__dict__.pop("_agora_groups", None)
    _grouped_tables.clear()


_original_put_item = Table.put_item
_original_delete_item = Table.delete_item
_original_update_item = models.DynamoDBBackend.update_item


def put_item(self, item_attrs, *args, **kwargs):
    try:
        return _original_put_item(self, item_attrs, *args, **kwargs)
    finally:
        try:
            hash_value = DynamoType(item_attrs[self.hash_key_attr])
            range_value = DynamoType(item_attrs[self.range_key_attr]) if self.range_key_attr else None
            _touch(self, hash_value, range_value)
        except Exception:
            self.__dict__.pop("_agora_groups", None)


def delete_item(self, hash_key, range_key, *args, **kwargs):
    try:
        return _original_delete_item(self, hash_key, range_key, *args, **kwargs)
    finally:
        _touch(self, hash_key, range_key)


def update_item(self, table_name, key, *args, **kwargs):
    try:
        return _original_update_item(self, table_name, key, *args, **kwargs)
    finally:
        table = self.tables.get(table_name)
        if table is not None:
            try:
                hash_value = DynamoType(key[table.hash_key_attr])
                range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
                _touch(table, hash_value, range_value)
            except Exception:
                table.__dict__.pop("_agora_groups", None)


_original_query = Table.query
_query_signature = inspect.signature(_original_query)


def query(self, *args, **kwargs):
    bound = _query_signature.bind(self, *args, **kwargs)
    index_name = bound.arguments.get("index_name")
    conditions = bound.arguments.get("hash_key_conditions")
    if not index_name or not conditions or len(conditions) != 1:
        return _original_query(self, *args, **kwargs)
    attribute, value = conditions[0]
    candidates = _groups(self).candidates(self, attribute, value)
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
        action = target.rsplit(".", 1)[-1]
        if action not in _READS and action not in _HOOKED_WRITES:
            _forget_all_groupings()
        return _original_call_action(self)


# Per-request work of moto's server that never changes while it runs: the list of its service
# modules (a directory listing and a stat per module, on every request) and the handler
# methods of a response class (inspect.getmembers, on every request).
_moto_modules = tuple(moto_backends.list_of_moto_modules())
_method_names = {}


def _cached_method_names(clazz):
    names = _method_names.get(clazz)
    if names is None:
        names = _method_names[clazz] = _original_method_names(clazz)
    return names


class _ResultsCopiedShallow:
    """The `copy` module as moto's table model sees it: the copy of a query's results (a list
    of items, taken so that projecting them leaves the table alone) copies each item's attribute
    map and shares its values, which nothing that follows changes (projection makes new items,
    filters and serialization only read, and requests run one at a time); moto deep-copies every
    value of every item there, the largest part of an index query's time."""

    def __getattr__(self, name):
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value, memo=None):
        if isinstance(value, list) and value and all(type(v) is Item for v in value):
            return [_item(v.hash_key, v.range_key, v.attrs) for v in value]
        return copy.deepcopy(value, memo)


def _item(hash_key, range_key, attrs):
    """An item holding `attrs` (name -> DynamoType) as they are: Item() converts each value again
    and re-sums the item's size on every attribute it sets."""
    item = Item.__new__(Item)
    item.hash_key, item.range_key, item.attrs = hash_key, range_key, LimitedSizeDict(attrs)
    return item


_original_project = Item.project


def project(self, projection_expressions):
    """Item.project for top-level attribute names (what the store projects: `pk`, `seq`, `doc`,
    ...): the item's own values for those names. moto converts the whole item to plain JSON and
    back for each projection. Paths into maps or lists still take moto's way."""
    if all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
        names = [path[0] for path in projection_expressions]
        return _item(self.hash_key, self.range_key, {n: self.attrs[n] for n in names if n in self.attrs})
    return _original_project(self, projection_expressions)


# 6. Dead-letter queue redrive (SQS's message move tasks), done at once.
_move_tasks = {}  # source queue ARN -> its tasks, latest first
_move_lock = threading.Lock()


def _queue_of(arn, parameter="SourceArn"):
    """(backend, queue) of an SQS queue ARN (arn:aws:sqs:<region>:<account>:<name>)."""
    parts = str(arn or "").split(":")
    if len(parts) != 6 or parts[2] != "sqs":
        raise InvalidParameterValue(f"Value {arn} for parameter {parameter} is invalid. Reason: not an SQS queue ARN.")
    _, _, _, region, account, name = parts
    return sqs_backends[account][region], sqs_backends[account][region].get_queue(name)


def _sources_of(backend, dead_letter_queue):
    return [q for q in backend.queues.values() if q.dead_letter_queue is dead_letter_queue]


def _move(message, destination):
    """`message` sent to `destination` as SQS's redrive sends it: same body, message attributes
    and (FIFO) group, deduplicated by its message id; a new message, received 0 times."""
    fifo = destination.fifo_queue
    sqs_backends[destination.account_id][destination.region].send_message(
        destination.name, message.body, message_attributes=copy.deepcopy(message.message_attributes),
        group_id=(message.group_id or message.id) if fifo else None,
        deduplication_id=message.id if fifo else None,
        system_attributes=copy.deepcopy(message.system_attributes), validate_group_id=False)


def start_message_move_task(self):
    source_arn = self._get_param("SourceArn")
    destination_arn = self._get_param("DestinationArn")
    rate = self._get_param("MaxNumberOfMessagesPerSecond")
    with _move_lock:
        backend, source = _queue_of(source_arn)
        sources = _sources_of(backend, source)
        if not sources:
            raise InvalidParameterValue("Source queue must be configured as a Dead Letter Queue.")
        destination = _queue_of(destination_arn, "DestinationArn")[1] if destination_arn else None
        task = {"TaskHandle": base64.b64encode(json.dumps({"taskId": str(uuid.uuid4()), "sourceArn": source_arn}).encode()).decode(),
                "Status": "COMPLETED", "SourceArn": source_arn, "StartedTimestamp": int(time.time() * 1000)}
        if destination_arn:
            task["DestinationArn"] = destination_arn
        if rate is not None:
            task["MaxNumberOfMessagesPerSecond"] = int(rate)
        messages = [m for m in source._messages if m.visible and not m.delayed]
        moved = 0
        for message in messages:
            target = destination
            if target is None:
                named = (message.message_attributes.get("agora_source_queue") or {}).get("StringValue")
                if named:
                    try:
                        target = _queue_of(named)[1]
                    except (QueueDoesNotExist, InvalidParameterValue):
                        target = None
                elif len(sources) == 1:
                    target = sources[0]
            if target is None:
                task["Status"], task["FailureReason"] = "FAILED", "AWS.SimpleQueueService.CouldNotDetermineMessageSource"
                break
            _move(message, target)
            with source._messages_lock:
                source._messages.remove(message)
                source.pending_messages.discard(message)
            moved += 1
        task["ApproximateNumberOfMessagesMoved"] = moved
        task["ApproximateNumberOfMessagesToMove"] = len(messages)
        _move_tasks.setdefault(source_arn, []).insert(0, task)
    return ActionResult({"TaskHandle": task["TaskHandle"]})


def list_message_move_tasks(self):
    source_arn = self._get_param("SourceArn")
    _queue_of(source_arn)
    max_results = int(self._get_param("MaxResults") or 1)
    with _move_lock:
        results = [dict(t) for t in _move_tasks.get(source_arn, [])[:max_results]]
    return ActionResult({"Results": results})


SQSResponse.start_message_move_task = start_message_move_task
SQSResponse.list_message_move_tasks = list_message_move_tasks

_original_method_names = moto_responses.method_names_from_class
moto_backends.list_of_moto_modules = lambda: _moto_modules
moto_responses.method_names_from_class = _cached_method_names
models.copy = _TablesNotCopied()
table_module.copy = _ResultsCopiedShallow()
Item.project = project
# One log line per request costs a twentieth of a small request; errors are still logged.
logging.getLogger("werkzeug").setLevel(logging.WARNING)
# A store query fans out over 16 index shards, each on a connection of its own: 50 concurrent
# callers open 800 connections at once, past werkzeug's listen backlog of 128, and the kernel then
# drops their SYNs until the SDK's 3.1 s connect timeout fails them. The kernel's own cap
# (net.core.somaxconn, 4096 on current kernels) bounds this instead.
werkzeug.serving.BaseWSGIServer.request_queue_size = 4096
models.DynamoDBBackend.transact_write_items = transact_write_items
DynamoHandler.call_action = call_action
Table.query = query
Table.put_item = put_item
Table.delete_item = delete_item
models.DynamoDBBackend.update_item = update_item

if __name__ == "__main__":
    sys.exit(main())
