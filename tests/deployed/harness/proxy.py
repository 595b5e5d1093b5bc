"""The AWS endpoint every function's SDK calls go to (`AGORA_AWS_ENDPOINT`): each request is
parsed (the service from the SigV4 credential scope, the operation from X-Amz-Target, the
`Action` parameter or the REST path), its IAM actions and resources checked against the
caller's role (the caller named by its access key id: each function has its own), recorded,
then forwarded to moto. A denied call is refused as AWS refuses it. Lambda's Invoke is served
by the harness (its functions are processes here, not moto's)."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote, urlparse

import aiohttp
from aiohttp import web

from .iam import Call

if TYPE_CHECKING:
    from .stack import Stack

CRED = re.compile(r"Credential=([^/,\s]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request")
HOP = {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "content-encoding"}


def credential(headers, query) -> tuple[str, str, str]:
    """(access key id, region, service) of a SigV4-signed request."""
    m = CRED.search(headers.get("Authorization", "")) or CRED.search("Credential=" + (query.get("X-Amz-Credential", [""])[0]))
    return (m.group(1), m.group(3), m.group(4)) if m else ("", "", "")


class AwsProxy:
    def __init__(self, stack: "Stack", moto_url: str):
        self.stack, self.moto_url = stack, moto_url.rstrip("/")
        self.calls: list[Call] = []
        self.session: aiohttp.ClientSession | None = None
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def start(self):
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=120), auto_decompress=False)
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"

    async def close(self):
        if self.runner:
            await self.runner.cleanup()
        if self.session:
            await self.session.close()

    # -- what a request is
    def describe(self, request: web.Request, body: bytes, service: str) -> tuple[str, list[tuple[str, str]]]:
        """(operation, [(IAM action, resource ARN)]) of a request to `service`."""
        s = self.stack
        region, acct = s.pseudo.region, s.pseudo.account
        target = request.headers.get("X-Amz-Target", "")
        form = {}
        if request.content_type == "application/x-www-form-urlencoded":
            form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        form.update({k: v[0] for k, v in parse_qs(request.query_string).items() if k not in form})
        try:
            doc = json.loads(body) if body and "json" in request.content_type else {}
        except ValueError:
            doc = {}
        if not isinstance(doc, dict):
            doc = {}
        op = target.rsplit(".", 1)[-1] if target else form.get("Action", "")

        if service == "dynamodb":
            def table(name, index=None):
                arn = name if str(name).startswith("arn:") else f"arn:aws:dynamodb:{region}:{acct}:table/{name}"
                return arn + (f"/index/{index}" if index else "")
            if op in ("TransactWriteItems", "TransactGetItems"):
                kinds = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem", "ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
                checks = []
                for item in doc.get("TransactItems", []):
                    for k, v in item.items():
                        checks.append((f"dynamodb:{kinds.get(k, k)}", table(v.get("TableName", ""))))
                return op, checks
            if op in ("BatchWriteItem", "BatchGetItem"):
                return op, [(f"dynamodb:{op}", table(t)) for t in doc.get("RequestItems", {})]
            return op, [(f"dynamodb:{op}", table(doc.get("TableName", ""), doc.get("IndexName")))]

        if service == "sqs":
            url = doc.get("QueueUrl") or form.get("QueueUrl") or ""
            name = doc.get("QueueName") or form.get("QueueName") or url.rstrip("/").rsplit("/", 1)[-1]
            return op, [(f"sqs:{op}", f"arn:aws:sqs:{region}:{acct}:{name}")]

        if service == "events":
            if op == "PutEvents":
                buses = {e.get("EventBusName") or "default" for e in doc.get("Entries", [])} or {"default"}
                return op, [("events:PutEvents", b if b.startswith("arn:") else f"arn:aws:events:{region}:{acct}:event-bus/{b}") for b in sorted(buses)]
            if op == "DescribeEventBus":
                bus = doc.get("Name") or "default"
                return op, [("events:DescribeEventBus", bus if bus.startswith("arn:") else f"arn:aws:events:{region}:{acct}:event-bus/{bus}")]
            return op, [(f"events:{op}", "*")]

        if service == "scheduler":
            path = unquote(request.path)
            m = re.fullmatch(r"/schedules/([^/]+)", path)
            if m:
                name = m.group(1)
                op = {"POST": "CreateSchedule", "PUT": "UpdateSchedule", "GET": "GetSchedule", "DELETE": "DeleteSchedule"}[request.method]
                group = doc.get("GroupName") or form.get("groupName") or "default"
                checks = [(f"scheduler:{op}", f"arn:aws:scheduler:{region}:{acct}:schedule/{group}/{name}")]
                role = (doc.get("Target") or {}).get("RoleArn")
                if role and op in ("CreateSchedule", "UpdateSchedule"):
                    checks.append(("iam:PassRole", role))
                return op, checks
            m = re.fullmatch(r"/schedule-groups/([^/]+)", path)
            if m and request.method == "GET":
                return "GetScheduleGroup", [("scheduler:GetScheduleGroup", f"arn:aws:scheduler:{region}:{acct}:schedule-group/{m.group(1)}")]
            if path == "/schedules":
                return "ListSchedules", [("scheduler:ListSchedules", "*")]
            return f"{request.method} {path}", [(f"scheduler:{request.method} {path}", "*")]

        if service == "lambda":
            m = re.fullmatch(r"/2015-03-31/functions/([^/]+)/invocations", unquote(request.path))
            if m:
                fn = self.stack.function_by_name(m.group(1))
                arn = fn.arn if fn else (m.group(1) if m.group(1).startswith("arn:") else f"arn:aws:lambda:{region}:{acct}:function:{m.group(1)}")
                return "Invoke", [("lambda:InvokeFunction", arn)]
            return f"{request.method} {request.path}", [(f"lambda:{request.method} {request.path}", "*")]

        if service == "secretsmanager":
            return op, [(f"secretsmanager:{op}", doc.get("SecretId", "*"))]
        if service == "sts":
            return op, [(f"sts:{op}", "*")]
        return op or f"{request.method} {request.path}", [(f"{service}:{op or request.method}", "*")]

    def check(self, caller: str, service: str, op: str, wanted: list[tuple[str, str]]) -> Call:
        fn = self.stack.functions.get(caller)
        policy = fn.policy if fn else None
        checks = [(a, r, bool(policy and policy.allows(a, r))) for a, r in wanted]
        call = Call(caller or "(unsigned)", service, op, checks)
        self.calls.append(call)
        return call

    # -- the endpoint
    async def handle(self, request: web.Request):
        body = await request.read()
        query = parse_qs(request.query_string)
        akid, _region, service = credential(request.headers, query)
        op, wanted = self.describe(request, body, service)
        call = self.check(akid, service, op, wanted)
        if not call.allowed and self.stack.enforce_iam:
            call.status = 403
            return self.denied(service, request, call)
        if service == "events" and op == "PutEvents":
            self.stack.record_events(akid, body)
        if service == "lambda" and op == "Invoke":
            resp = await self.stack.lambda_invoke(request, body)
            call.status = resp.status
            return resp
        resp = await self.forward(request, body)
        call.status = resp.status
        return resp

    def denied(self, service: str, request: web.Request, call: Call) -> web.Response:
        action, resource, _ = next(c for c in call.checks if not c[2])
        message = (
            f"User: arn:aws:sts::{self.stack.pseudo.account}:assumed-role/{call.function}Role/{call.function} is not authorized to perform: "
            f"{action} on resource: {resource} because no identity-based policy allows the {action} action"
        )
        if request.headers.get("X-Amz-Target"):
            # awsJson protocols (DynamoDB, SQS, EventBridge): 400 with __type.
            return web.json_response({"__type": "AccessDeniedException", "message": message}, status=400, content_type="application/x-amz-json-1.0")
        if request.content_type == "application/x-www-form-urlencoded":
            xml = f'<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>{message}</Message></Error><RequestId>0</RequestId></ErrorResponse>'
            return web.Response(text=xml, status=403, content_type="text/xml")
        return web.json_response({"Message": message}, status=403, headers={"x-amzn-ErrorType": "AccessDeniedException"})

    async def forward(self, request: web.Request, body: bytes) -> web.Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
        headers["Host"] = urlparse(self.moto_url).netloc
        async with self.session.request(request.method, self.moto_url + request.path_qs, headers=headers, data=body, allow_redirects=False) as r:
            data = await r.read()
            out = {k: v for k, v in r.headers.items() if k.lower() not in HOP}
            return web.Response(body=data, status=r.status, headers=out)
