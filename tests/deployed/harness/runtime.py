"""Each function's built binary as a process behind a Lambda Runtime API the harness serves
(`/2018-06-01/runtime/invocation/next`, `.../{id}/response`, `.../{id}/error`,
`/runtime/init/error`): cold starts, instances scaled up to a limit, the function's Timeout
(the process is killed and replaced, as Lambda resets a timed-out sandbox), init errors and
crashes reported as Lambda reports them."""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

MAX_RESPONSE = 6 * 1024 * 1024  # Lambda's synchronous response payload limit


def _die_with_parent():  # runs in the child before exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass
class InvokeResult:
    ok: bool
    payload: Any = None  # the decoded JSON response (or the raw text when it is not JSON)
    error: dict | None = None  # {"errorType", "errorMessage"} when not ok
    duration: float = 0.0
    request_id: str = ""

    @property
    def error_type(self) -> str:
        return (self.error or {}).get("errorType", "")


@dataclass
class Invocation:
    event: Any
    source: str
    future: asyncio.Future
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started: float = 0.0


@dataclass
class InvocationRecord:
    function: str
    source: str
    request_id: str
    event: Any
    result: InvokeResult
    at: float


class Instance:
    """One execution environment: a Runtime API endpoint and the process polling it."""

    def __init__(self, fn: "FunctionRuntime", number: int):
        self.fn, self.number = fn, number
        self.proc: asyncio.subprocess.Process | None = None
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.current: Invocation | None = None
        self.idle: asyncio.Future | None = None  # set by the dispatcher with the next invocation
        self.initialized = False
        self.dead = False
        self.init_error: dict | None = None
        self.timer: asyncio.TimerHandle | None = None

    async def start(self):
        app = web.Application(client_max_size=MAX_RESPONSE * 2)
        app.router.add_get("/2018-06-01/runtime/invocation/next", self.next)
        app.router.add_post("/2018-06-01/runtime/invocation/{id}/response", self.response)
        app.router.add_post("/2018-06-01/runtime/invocation/{id}/error", self.error)
        app.router.add_post("/2018-06-01/runtime/init/error", self.init_failed)
        self.runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        env = dict(self.fn.env)
        env["AWS_LAMBDA_RUNTIME_API"] = f"127.0.0.1:{self.port}"
        env["AWS_LAMBDA_LOG_STREAM_NAME"] = f"{time.strftime('%Y/%m/%d')}/[$LATEST]{uuid.uuid4().hex}"
        log = open(self.fn.log_path, "ab", buffering=0)
        log.write(f"--- instance {self.number} starting ---\n".encode())
        self.proc = await asyncio.create_subprocess_exec(
            *self.fn.command,
            env=env,
            cwd=self.fn.task_root,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            preexec_fn=_die_with_parent,
            start_new_session=True,
        )
        log.close()
        asyncio.get_running_loop().create_task(self._watch())

    async def _watch(self):
        code = await self.proc.wait()
        self.dead = True
        with open(self.fn.log_path, "ab") as log:
            log.write(f"--- instance {self.number} exited with {code} ---\n".encode())
        if self.idle is not None and not self.idle.done():
            self.idle.cancel()
        inv = self.current
        self.current = None
        if inv is not None and not inv.future.done():
            if self.init_error is not None:
                err = {"errorType": "Runtime.InitError", "errorMessage": json.dumps(self.init_error)}
            else:
                err = {"errorType": "Runtime.ExitError", "errorMessage": f"RequestId: {inv.request_id} Error: Runtime exited with error: exit status {code}"}
            inv.future.set_result(InvokeResult(False, error=err, request_id=inv.request_id))
        if not self.initialized and self.init_error is None:
            self.init_error = {"errorType": "Runtime.ExitError", "errorMessage": f"the process exited with {code} before asking for an event"}
        await self.fn._instance_gone(self)
        if self.runner is not None:
            await self.runner.cleanup()

    async def stop(self):
        if self.proc is not None and self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except asyncio.TimeoutError:
                pass

    # -- the Runtime API
    async def next(self, request: web.Request):
        self.initialized = True
        self.current = None
        loop = asyncio.get_running_loop()
        self.idle = loop.create_future()
        self.fn._idle(self)
        try:
            inv: Invocation = await self.idle
        except asyncio.CancelledError:
            raise
        finally:
            self.idle = None
        self.current = inv
        inv.started = time.monotonic()
        deadline_ms = int(time.time() * 1000 + self.fn.timeout * 1000)
        self.timer = loop.call_later(self.fn.timeout, lambda: loop.create_task(self._timed_out(inv)))
        headers = {
            "Lambda-Runtime-Aws-Request-Id": inv.request_id,
            "Lambda-Runtime-Deadline-Ms": str(deadline_ms),
            "Lambda-Runtime-Invoked-Function-Arn": self.fn.arn,
            "Lambda-Runtime-Trace-Id": f"Root=1-{int(time.time()):08x}-{uuid.uuid4().hex[:24]};Parent={uuid.uuid4().hex[:16]};Sampled=0",
            "Content-Type": "application/json",
        }
        return web.Response(body=json.dumps(inv.event).encode(), headers=headers)

    def _finish(self, request_id: str, result: InvokeResult) -> bool:
        inv = self.current
        if inv is None or inv.request_id != request_id:
            return False
        if self.timer is not None:
            self.timer.cancel()
        self.current = None
        result.duration = time.monotonic() - inv.started
        result.request_id = request_id
        if not inv.future.done():
            inv.future.set_result(result)
        return True

    async def response(self, request: web.Request):
        body = await request.read()
        rid = request.match_info["id"]
        if len(body) > MAX_RESPONSE:
            res = InvokeResult(False, error={"errorType": "Function.ResponseSizeTooLarge", "errorMessage": f"Response payload size ({len(body)} bytes) exceeded maximum allowed payload size ({MAX_RESPONSE} bytes)."})
        else:
            try:
                payload = json.loads(body) if body else None
            except ValueError:
                payload = body.decode("utf-8", "replace")
            res = InvokeResult(True, payload)
        if not self._finish(rid, res):
            return web.json_response({"errorMessage": "Invalid request ID", "errorType": "InvalidRequestID"}, status=400)
        return web.json_response({"status": "OK"}, status=202)

    async def error(self, request: web.Request):
        body = await request.read()
        try:
            err = json.loads(body)
        except ValueError:
            err = {"errorType": request.headers.get("Lambda-Runtime-Function-Error-Type", "Unhandled"), "errorMessage": body.decode("utf-8", "replace")}
        if not isinstance(err, dict):
            err = {"errorType": "Unhandled", "errorMessage": str(err)}
        if not self._finish(request.match_info["id"], InvokeResult(False, error=err)):
            return web.json_response({"errorMessage": "Invalid request ID", "errorType": "InvalidRequestID"}, status=400)
        return web.json_response({"status": "OK"}, status=202)

    async def init_failed(self, request: web.Request):
        body = await request.read()
        try:
            self.init_error = json.loads(body)
        except ValueError:
            self.init_error = {"errorType": "Runtime.Unknown", "errorMessage": body.decode("utf-8", "replace")}
        self.fn.init_errors.append(self.init_error)
        return web.json_response({"status": "OK"}, status=202)

    async def _timed_out(self, inv: Invocation):
        if self.current is not inv or inv.future.done():
            return
        self.current = None
        inv.future.set_result(
            InvokeResult(False, error={"errorType": "Sandbox.Timedout", "errorMessage": f"RequestId: {inv.request_id} Error: Task timed out after {self.fn.timeout:.2f} seconds"}, duration=self.fn.timeout, request_id=inv.request_id)
        )
        await self.stop()  # Lambda resets the environment; the watcher replaces the instance


class FunctionRuntime:
    """A function: its pending invocations and its instances (started on demand up to
    `max_instances`, the first at deploy)."""

    def __init__(self, logical_id: str, name: str, arn: str, command: list[str], env: dict[str, str], timeout: float, log_path: Path, task_root: str, max_instances: int = 2):
        self.logical_id, self.name, self.arn = logical_id, name, arn
        self.command, self.env, self.timeout = command, env, float(timeout)
        self.log_path, self.task_root = log_path, task_root
        self.max_instances = max_instances
        self.instances: list[Instance] = []
        self.pending: list[Invocation] = []
        self.idle_instances: list[Instance] = []
        self.init_errors: list[dict] = []
        self.records: list[InvocationRecord] = []
        self.closed = False
        self._count = 0

    async def start(self):
        await self._spawn()

    async def _spawn(self):
        if self.closed:
            return
        self._count += 1
        inst = Instance(self, self._count)
        self.instances.append(inst)
        await inst.start()

    def _idle(self, inst: Instance):
        if self.pending:
            inst.idle.set_result(self.pending.pop(0))
        else:
            self.idle_instances.append(inst)

    async def _instance_gone(self, inst: Instance):
        if inst in self.instances:
            self.instances.remove(inst)
        if inst in self.idle_instances:
            self.idle_instances.remove(inst)
        if self.closed:
            return
        if not inst.initialized:
            # Init failed: Lambda fails the invocation that waited for this environment.
            if self.pending:
                inv = self.pending.pop(0)
                err = inst.init_error or {"errorType": "Runtime.Unknown", "errorMessage": "init failed"}
                inv.future.set_result(InvokeResult(False, error={"errorType": "Runtime.InitError", "errorMessage": json.dumps(err)}, request_id=inv.request_id))
        if self.pending and not self.instances:
            await self._spawn()

    async def invoke(self, event: Any, source: str = "test") -> InvokeResult:
        loop = asyncio.get_running_loop()
        inv = Invocation(event, source, loop.create_future())
        while self.idle_instances:
            inst = self.idle_instances.pop(0)
            if not inst.dead and inst.idle is not None and not inst.idle.done():
                inst.idle.set_result(inv)
                break
        else:
            self.pending.append(inv)
            live = [i for i in self.instances if not i.dead]
            if len(live) < self.max_instances and not self.closed:
                await self._spawn()
        # A waiting invocation fails after the timeout plus a cold start's grace (never hangs).
        try:
            result = await asyncio.wait_for(asyncio.shield(inv.future), self.timeout + 30)
        except asyncio.TimeoutError:
            if inv in self.pending:
                self.pending.remove(inv)
            result = InvokeResult(False, error={"errorType": "Harness.NoInstance", "errorMessage": "no instance took the invocation in time"})
        self.records.append(InvocationRecord(self.logical_id, source, inv.request_id, event, result, time.time()))
        return result

    async def close(self):
        self.closed = True
        for inv in self.pending:
            if not inv.future.done():
                inv.future.set_result(InvokeResult(False, error={"errorType": "Harness.Stopped", "errorMessage": "the stack was stopped"}))
        self.pending.clear()
        await asyncio.gather(*(i.stop() for i in list(self.instances)), return_exceptions=True)
        for inst in list(self.instances):
            if inst.runner is not None:
                await inst.runner.cleanup()
