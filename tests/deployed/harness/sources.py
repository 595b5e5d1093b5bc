"""What invokes the functions besides the APIs: the SQS event source mappings, EventBridge
Scheduler's one-shot schedules and the template's rate rules."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import functools
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

if TYPE_CHECKING:
    from .stack import Stack


@dataclass
class Batch:
    mapping: str
    message_ids: list[str]
    failed: list[str]
    ok: bool
    error: dict | None
    at: float


class SqsEventSource:
    """One AWS::Lambda::EventSourceMapping of an SQS queue: polls the queue (as the Lambda
    service does, with its own credentials, not the function's), invokes with the SQS event,
    deletes what succeeded. An error or timeout fails the whole batch; with
    ReportBatchItemFailures only the listed messages stay, and an answer naming a message not in
    the batch (or an empty id) fails the whole batch, as Lambda does. The queue's RedrivePolicy
    moves a message received maxReceiveCount times to its dead-letter queue (moto does it on
    receive, as SQS does)."""

    def __init__(self, stack: "Stack", logical_id: str, function: str, queue_arn: str, queue_url: str, batch_size: int, window: float, partial: bool, concurrency: int = 2):
        self.stack, self.logical_id, self.function = stack, logical_id, function
        self.queue_arn, self.queue_url = queue_arn, queue_url
        self.batch_size, self.window, self.partial = max(1, min(batch_size, 10_000)), window, partial
        self.concurrency = concurrency
        self.batches: list[Batch] = []
        self.tasks: list[asyncio.Task] = []
        # Each poller long-polls on its own thread, as Lambda's pollers run side by side. On
        # asyncio's default executor (a few threads for every blocking call of the stack) the
        # pollers of a dozen queues would wait for each other's one-second polls, delaying a
        # message by seconds, which SQS does not.
        self.executor: concurrent.futures.ThreadPoolExecutor | None = None

    def start(self):
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix=f"sqs-{self.logical_id}")
        # Its own connections (one per poller), or the stack's client.
        self.client = self.stack._client("sqs") if hasattr(self.stack, "_client") else self.stack.sqs
        self.tasks = [asyncio.get_running_loop().create_task(self._poll()) for _ in range(self.concurrency)]

    async def stop(self):
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.executor:
            self.executor.shutdown(wait=False)

    async def _receive_async(self, n: int, wait: int):
        return await asyncio.get_running_loop().run_in_executor(self.executor, self._receive, n, wait)

    def _receive(self, n: int, wait: int):
        return self.client.receive_message(
            QueueUrl=self.queue_url, MaxNumberOfMessages=min(10, n), WaitTimeSeconds=wait,
            AttributeNames=["All"], MessageAttributeNames=["All"], MessageSystemAttributeNames=["All"],
        ).get("Messages", [])

    async def _poll(self):
        while True:
            try:
                msgs = await self._receive_async(self.batch_size, 1)
                if not msgs:
                    continue
                deadline = time.monotonic() + self.window
                while len(msgs) < self.batch_size and time.monotonic() < deadline:
                    more = await self._receive_async(self.batch_size - len(msgs), 0)
                    if not more:
                        await asyncio.sleep(0.1)
                    msgs.extend(more)
                await self._deliver(msgs)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # moto unreachable for a moment: keep polling
                self.stack.note(f"{self.logical_id}: poll failed: {e!r}")
                await asyncio.sleep(0.5)

    def record(self, m: dict) -> dict:
        attrs = dict(m.get("Attributes", {}))
        mattrs = {}
        for k, v in (m.get("MessageAttributes") or {}).items():
            mattrs[k] = {
                "stringValue": v.get("StringValue"),
                "binaryValue": base64.b64encode(v["BinaryValue"]).decode() if "BinaryValue" in v else None,
                "stringListValues": v.get("StringListValues", []),
                "binaryListValues": [base64.b64encode(b).decode() for b in v.get("BinaryListValues", [])],
                "dataType": v.get("DataType"),
            }
            mattrs[k] = {a: b for a, b in mattrs[k].items() if b is not None}
        return {
            "messageId": m["MessageId"],
            "receiptHandle": m["ReceiptHandle"],
            "body": m["Body"],
            "attributes": {k: attrs[k] for k in ("ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp", "SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "AWSTraceHeader") if k in attrs},
            "messageAttributes": mattrs,
            "md5OfBody": m.get("MD5OfBody"),
            "md5OfMessageAttributes": m.get("MD5OfMessageAttributes"),
            "eventSource": "aws:sqs",
            "eventSourceARN": self.queue_arn,
            "awsRegion": self.stack.pseudo.region,
        }

    async def _deliver(self, msgs: list[dict]):
        records = [self.record(m) for m in msgs]
        for r in records:
            if r["md5OfMessageAttributes"] is None:
                del r["md5OfMessageAttributes"]
        event = {"Records": records}
        fn = self.stack.functions[self.function].runtime
        result = await fn.invoke(event, source=f"sqs {self.logical_id}")
        ids = [m["MessageId"] for m in msgs]
        failed: list[str] = ids
        if result.ok:
            failed = []
            if self.partial and isinstance(result.payload, dict) and result.payload.get("batchItemFailures"):
                items = result.payload["batchItemFailures"]
                listed = [i.get("itemIdentifier") if isinstance(i, dict) else None for i in items]
                failed = ids if any((not x) or x not in ids for x in listed) else listed
        self.batches.append(Batch(self.logical_id, ids, failed, result.ok, result.error, time.time()))
        done = [m for m in msgs if m["MessageId"] not in failed]
        for i in range(0, len(done), 10):
            chunk = done[i : i + 10]
            entries = [{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(chunk)]
            delete = functools.partial(self.client.delete_message_batch, QueueUrl=self.queue_url, Entries=entries)
            await asyncio.get_running_loop().run_in_executor(self.executor, delete)


AT = re.compile(r"at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)")


@dataclass
class Firing:
    schedule: str
    group: str
    expression: str
    due: float
    fired_at: float
    target: str
    input: Any
    ok: bool = False
    error: dict | None = None


class SchedulerDriver:
    """EventBridge Scheduler's one-shot schedules: polls moto's schedules of this stack's
    targets, fires each `at(...)` schedule once at the time it says (in its time zone) by
    invoking its target function with its Input, then deletes it when ActionAfterCompletion is
    DELETE. A target that is not a function of the stack is recorded as a failed firing."""

    def __init__(self, stack: "Stack", interval: float = 0.2):
        self.stack, self.interval = stack, interval
        self.seen: dict[str, dict] = {}  # arn -> schedule
        self.fired: set[str] = set()
        self.firings: list[Firing] = []
        self.created: list[dict] = []
        self.task: asyncio.Task | None = None

    def start(self):
        self.task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self):
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def _scan(self) -> list[dict]:
        c = self.stack.scheduler
        out = []
        token = None
        for _ in range(50):
            kw = {"NextToken": token} if token else {}
            page = c.list_schedules(**kw)
            for s in page.get("Schedules", []):
                if s.get("Arn") in self.seen:
                    out.append(self.seen[s["Arn"]])
                    continue
                if s.get("GroupName") not in self.stack.schedule_groups and not (s.get("Target", {}).get("Arn", "").startswith(self.stack.arn_prefix)):
                    continue
                full = c.get_schedule(Name=s["Name"], GroupName=s.get("GroupName") or "default")
                full.pop("ResponseMetadata", None)
                self.seen[s["Arn"]] = full
                self.created.append(full)
                out.append(full)
            token = page.get("NextToken")
            if not token:
                break
        return out

    @staticmethod
    def due_time(s: dict) -> float | None:
        m = AT.fullmatch(s.get("ScheduleExpression", ""))
        if not m:
            return None
        tz = s.get("ScheduleExpressionTimezone") or "UTC"
        return datetime.fromisoformat(m.group(1)).replace(tzinfo=ZoneInfo(tz)).timestamp()

    async def _loop(self):
        while True:
            try:
                schedules = await asyncio.to_thread(self._scan)
                now = time.time()
                for s in schedules:
                    if s["Arn"] in self.fired or s.get("State") == "DISABLED":
                        continue
                    due = self.due_time(s)
                    if due is not None and due <= now:
                        self.fired.add(s["Arn"])
                        asyncio.get_running_loop().create_task(self._fire(s, due))
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.stack.note(f"scheduler poll failed: {e!r}")
            await asyncio.sleep(self.interval)

    async def _fire(self, s: dict, due: float):
        target = s.get("Target", {})
        raw = target.get("Input")
        try:
            payload = json.loads(raw) if raw is not None else {}
        except ValueError:
            payload = raw
        f = Firing(s["Name"], s.get("GroupName", "default"), s.get("ScheduleExpression", ""), due, time.time(), target.get("Arn", ""), payload)
        self.firings.append(f)
        fn = self.stack.function_by_name(target.get("Arn", ""))
        if fn is None:
            f.error = {"errorType": "ResourceNotFoundException", "errorMessage": f"no function {target.get('Arn')}"}
        else:
            result = await fn.runtime.invoke(payload, source=f"scheduler {s['Name']}")
            f.ok, f.error = result.ok, result.error
        if s.get("ActionAfterCompletion") == "DELETE":
            try:
                await asyncio.to_thread(self.stack.scheduler.delete_schedule, Name=s["Name"], GroupName=s.get("GroupName") or "default")
            except Exception as e:
                self.stack.note(f"delete schedule {s['Name']}: {e!r}")


RATE = re.compile(r"rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)")


def rate_seconds(expression: str) -> float:
    m = RATE.fullmatch(expression.strip())
    if not m:
        raise ValueError(f"unsupported schedule expression {expression}")
    return int(m.group(1)) * {"minute": 60, "hour": 3600, "day": 86400}[m.group(2).rstrip("s")]


@dataclass
class RateRule:
    """An AWS::Events::Rule with a rate(...) expression targeting a function: fired with the
    scheduled-event shape every period (the rule's own, or the harness's `sweep_seconds`),
    the first one period after the stack starts."""

    stack: "Stack"
    logical_id: str
    name: str
    expression: str
    function: str
    period: float
    fired: list[float] = field(default_factory=list)
    task: asyncio.Task | None = None

    def start(self):
        self.task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self):
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    def event(self) -> dict:
        return {
            "version": "0",
            "id": str(uuid.uuid4()),
            "detail-type": "Scheduled Event",
            "source": "aws.events",
            "account": self.stack.pseudo.account,
            "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "region": self.stack.pseudo.region,
            "resources": [f"arn:aws:events:{self.stack.pseudo.region}:{self.stack.pseudo.account}:rule/{self.name}"],
            "detail": {},
        }

    async def _loop(self):
        loop = asyncio.get_running_loop()
        next_at = time.monotonic() + self.period
        while True:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            next_at += self.period
            if self.stack.rates_paused:
                continue
            self.fired.append(time.time())
            # EventBridge invokes asynchronously: a slow run does not delay the next tick.
            loop.create_task(self.stack.functions[self.function].runtime.invoke(self.event(), source=f"rule {self.logical_id}"))
