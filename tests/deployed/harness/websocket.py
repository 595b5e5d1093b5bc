"""The template's WebSocket API: `ws://127.0.0.1:<port>/<stage>` runs `$connect` (its answer
accepts or refuses the handshake), each message (route selection `$request.body.action`, else
`$default`), `$disconnect`; and its `@connections` management API on the same port
(`POST|GET|DELETE /<stage>/@connections/<id>`), which the functions reach through the
`https://…execute-api…` endpoint in their environment, rewritten here. API Gateway's limits:
a client message over 128 KB closes the connection (1009), a POST over 128 KB is refused 413
PayloadTooLargeException, a connection that is gone answers 410 GoneException."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aiohttp import WSMsgType, web

from .proxy import credential

if TYPE_CHECKING:
    from .stack import Stack

MAX_MESSAGE = 128 * 1024


@dataclass
class Connection:
    id: str
    ws: web.WebSocketResponse
    connected_at: int
    source_ip: str
    user_agent: str
    last_active: int
    open: bool = True
    sent: list[str] = field(default_factory=list)
    refused_posts: list[int] = field(default_factory=list)


def _connection_id() -> str:
    return base64.b64encode(os.urandom(10)).decode()[:13] + "="


class WebSocketApi:
    def __init__(self, stack: "Stack", api_id: str, stage: str, routes: dict[str, str], selection: str):
        self.stack, self.api_id, self.stage = stack, api_id, stage
        self.routes = routes  # route key -> function logical id
        self.selection = selection
        self.connections: dict[str, Connection] = {}
        self.posts: list[dict] = []  # every @connections call: {function, method, id, status, size}
        self.runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/{self.stage}"

    @property
    def endpoint(self) -> str:
        """The `@connections` endpoint the functions get instead of `https://{api}.execute-api…/{stage}`."""
        return f"http://127.0.0.1:{self.port}/{self.stage}"

    async def start(self):
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/{stage}/@connections/{id}", self.manage)
        app.router.add_get("/{stage}", self.connect)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]

    async def close(self):
        for c in list(self.connections.values()):
            if c.open:
                c.open = False
                await c.ws.close()
        if self.runner:
            await self.runner.cleanup()

    def _context(self, conn_id: str, route: str, event_type: str, request: web.Request | None, connected_at: int, **extra) -> dict:
        now = int(time.time() * 1000)
        ctx = {
            "routeKey": route,
            "eventType": event_type,
            "extendedRequestId": uuid.uuid4().hex[:16] + "=",
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now / 1000)),
            "messageDirection": "IN",
            "stage": self.stage,
            "connectedAt": connected_at,
            "requestTimeEpoch": now,
            "identity": {"sourceIp": (request.remote if request else None) or "127.0.0.1", "userAgent": request.headers.get("User-Agent", "") if request else ""},
            "requestId": uuid.uuid4().hex[:16] + "=",
            "domainName": f"{self.api_id}.execute-api.{self.stack.pseudo.region}.amazonaws.com",
            "connectionId": conn_id,
            "apiId": self.api_id,
        }
        ctx.update(extra)
        return ctx

    async def _invoke(self, route: str, event: dict):
        fn_id = self.routes.get(route) or self.routes.get("$default")
        if fn_id is None:
            return None
        return await self.stack.functions[fn_id].runtime.invoke(event, source=f"websocket {route}")

    async def connect(self, request: web.Request):
        if request.match_info["stage"] != self.stage:
            return web.json_response({"message": "Forbidden"}, status=403)
        conn_id = _connection_id()
        connected_at = int(time.time() * 1000)
        headers = {k: v for k, v in request.headers.items()}
        mv_headers = {k: request.headers.getall(k) for k in request.headers.keys()}
        query = {k: v for k, v in request.query.items()} or None
        mv_query = {k: request.query.getall(k) for k in request.query.keys()} or None
        event = {
            "headers": headers,
            "multiValueHeaders": mv_headers,
            "queryStringParameters": query,
            "multiValueQueryStringParameters": mv_query,
            "requestContext": self._context(conn_id, "$connect", "CONNECT", request, connected_at),
            "isBase64Encoded": False,
        }
        if "$connect" in self.routes:
            result = await self._invoke("$connect", event)
            if not result.ok:
                return web.json_response({"message": "Internal server error"}, status=500)
            status = result.payload.get("statusCode", 200) if isinstance(result.payload, dict) else 200
            if not 200 <= int(status) < 300:
                return web.Response(status=int(status), text=(result.payload or {}).get("body") or "")
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        conn = Connection(conn_id, ws, connected_at, request.remote or "127.0.0.1", request.headers.get("User-Agent", ""), connected_at)
        self.connections[conn_id] = conn
        close_code, reason = 1000, ""
        try:
            async for msg in ws:
                conn.last_active = int(time.time() * 1000)
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    data = msg.data if isinstance(msg.data, str) else msg.data.decode("utf-8", "replace")
                    if len(data.encode()) > MAX_MESSAGE:
                        close_code, reason = 1009, "Message too big"
                        await ws.close(code=1009, message=b"Message too big")
                        break
                    route = "$default"
                    m = re.fullmatch(r"\$request\.body\.(\w+)", self.selection or "")
                    if m:
                        try:
                            key = json.loads(data).get(m.group(1))
                        except (ValueError, AttributeError):
                            key = None
                        if isinstance(key, str) and key in self.routes:
                            route = key
                    ev = {
                        "requestContext": self._context(conn_id, route, "MESSAGE", request, connected_at, messageId=uuid.uuid4().hex[:16] + "="),
                        "body": data,
                        "isBase64Encoded": False,
                    }
                    await self._invoke(route, ev)
                elif msg.type == WSMsgType.ERROR:
                    close_code = 1006
                    break
        finally:
            was_open = conn.open
            conn.open = False
            if was_open or True:
                ev = {
                    "headers": {"Host": f"{self.api_id}.execute-api.{self.stack.pseudo.region}.amazonaws.com"},
                    "requestContext": self._context(conn_id, "$disconnect", "DISCONNECT", None, connected_at, disconnectStatusCode=ws.close_code or close_code, disconnectReason=reason),
                    "isBase64Encoded": False,
                }
                if "$disconnect" in self.routes:
                    asyncio.get_running_loop().create_task(self._invoke("$disconnect", ev))
        return ws

    async def manage(self, request: web.Request):
        body = await request.read()
        akid, _, service = credential(request.headers, {})
        conn_id = request.match_info["id"]
        method = request.method
        resource = f"arn:aws:execute-api:{self.stack.pseudo.region}:{self.stack.pseudo.account}:{self.api_id}/{self.stage}/{method}/@connections/{conn_id}"
        call = self.stack.proxy.check(akid, service or "execute-api", {"POST": "PostToConnection", "GET": "GetConnection", "DELETE": "DeleteConnection"}.get(method, method), [("execute-api:ManageConnections", resource)])
        record = {"function": akid, "method": method, "id": conn_id, "size": len(body)}
        self.posts.append(record)
        if not call.allowed and self.stack.enforce_iam:
            record["status"] = call.status = 403
            return web.json_response({"Message": f"User is not authorized to perform: execute-api:ManageConnections on resource: {resource}"}, status=403, headers={"x-amzn-ErrorType": "AccessDeniedException"})
        conn = self.connections.get(conn_id)
        if request.match_info["stage"] != self.stage:
            record["status"] = 403
            return web.json_response({"message": "Forbidden"}, status=403, headers={"x-amzn-ErrorType": "ForbiddenException"})
        if conn is None or not conn.open or conn.ws.closed:
            record["status"] = call.status = 410
            return web.json_response({"message": None}, status=410, headers={"x-amzn-ErrorType": "GoneException"})
        if method == "POST":
            if len(body) > MAX_MESSAGE:
                conn.refused_posts.append(len(body))
                record["status"] = call.status = 413
                return web.json_response({"message": "Message too long"}, status=413, headers={"x-amzn-ErrorType": "PayloadTooLargeException"})
            text = body.decode("utf-8", "replace")
            try:
                await conn.ws.send_str(text)
            except ConnectionError:
                record["status"] = call.status = 410
                return web.json_response({"message": None}, status=410, headers={"x-amzn-ErrorType": "GoneException"})
            conn.sent.append(text)
            record["status"] = call.status = 200
            return web.Response(status=200)
        if method == "GET":
            record["status"] = call.status = 200
            return web.json_response({
                "ConnectedAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(conn.connected_at / 1000)),
                "Identity": {"SourceIp": conn.source_ip, "UserAgent": conn.user_agent},
                "LastActiveAt": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(conn.last_active / 1000)),
            })
        if method == "DELETE":
            conn.open = False
            await conn.ws.close(code=1000, message=b"")
            record["status"] = call.status = 204
            return web.Response(status=204)
        record["status"] = 404
        return web.json_response({"message": "Not Found"}, status=404)
