"""The stack for synchronous tests: it runs on an asyncio loop in a thread of its own, and the
tests talk to it as a client would, over HTTP and WebSocket (aiohttp clients on that loop)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any, Callable

import aiohttp

from .stack import Stack


class Deployed:
    def __init__(self, stack: Stack):
        self.stack = stack
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name=f"stack-{stack.stack_name}", daemon=True)
        self.session: aiohttp.ClientSession | None = None

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> "Deployed":
        self.thread.start()
        try:
            self.run(self.stack.start(), timeout=180)
        except BaseException:
            self.stop()
            raise

        async def session():
            return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60))

        self.session = self.run(session())
        return self

    def stop(self):
        try:
            if self.session is not None:
                self.run(self.session.close(), timeout=10)
            self.run(self.stack.stop(), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- HTTP, as a client of the HTTP API
    def request(self, method: str, path: str, body: Any = None, token: str | None = None, headers: dict | None = None, raw: bytes | None = None) -> tuple[int, Any, dict]:
        async def go():
            h = dict(headers or {})
            if token:
                h["Authorization"] = f"Bearer {token}"
            data = raw
            if body is not None:
                data = json.dumps(body).encode()
                h.setdefault("Content-Type", "application/json")
            async with self.session.request(method, self.stack.http.url + path, data=data, headers=h) as r:
                text = await r.text()
                try:
                    doc = json.loads(text) if text else None
                except ValueError:
                    doc = text
                return r.status, doc, dict(r.headers)

        return self.run(go())

    def get(self, path, **kw):
        return self.request("GET", path, **kw)[:2]

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)[:2]

    # -- WebSocket, as a client of the live stream
    def ws_connect(self, query: dict | None = None) -> "WsClient":
        async def go():
            ws = await self.session.ws_connect(self.stack.ws.url, params=query or {}, max_msg_size=0)
            return ws
        return WsClient(self, self.run(go()))

    def wait_until(self, what: str, timeout: float, check: Callable[[], Any], interval: float = 0.1):
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = check()
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(interval)


class WsClient:
    def __init__(self, deployed: Deployed, ws: aiohttp.ClientWebSocketResponse):
        self.d, self.ws = deployed, ws
        self.closed_code: int | None = None

    def send(self, doc: Any):
        self.d.run(self.ws.send_str(doc if isinstance(doc, str) else json.dumps(doc)))

    def receive(self, timeout: float) -> Any:
        """The next message (decoded JSON), or None when the connection closed; raises
        TimeoutError when nothing came."""
        async def go():
            msg = await asyncio.wait_for(self.ws.receive(), timeout)
            if msg.type == aiohttp.WSMsgType.TEXT:
                try:
                    return json.loads(msg.data)
                except ValueError:
                    return msg.data
            self.closed_code = self.ws.close_code
            return None
        try:
            return self.d.run(go(), timeout=timeout + 5)
        except (asyncio.TimeoutError, TimeoutError):
            raise TimeoutError("no message") from None

    def close(self):
        self.d.run(self.ws.close())


class _Paused:
    def __init__(self, d: Deployed):
        self.d = d

    def __enter__(self):
        self.d.stack.rates_paused = True
        return self

    def __exit__(self, *exc):
        self.d.stack.rates_paused = False


def paused_rate_rules(d: Deployed) -> _Paused:
    """No rate rule fires inside the block: the worst phase of the real one-minute sweep (it
    just fired), so that what a test sees is what the one-shot schedules and the flows do."""
    return _Paused(d)
