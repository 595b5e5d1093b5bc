"""A stack of template.yaml deployed on this machine: moto for the AWS resources (created from
the template with a fresh stack name), the functions as processes behind the Runtime API, the
HTTP API, the WebSocket API, the SQS event source mappings, the Scheduler one-shots, the rate
rules, and the AWS proxy checking each function's calls against its role."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
from aiohttp import web
from botocore.config import Config

from . import template as tpl
from .httpapi import HttpApi, routes_from_openapi
from .iam import Policy
from .proxy import AwsProxy
from .runtime import FunctionRuntime
from .sources import RateRule, SchedulerDriver, SqsEventSource, rate_seconds
from .websocket import WebSocketApi

REPO = tpl.REPO
RIC = Path(__file__).with_name("python_ric.py")
EXECUTE_API = re.compile(r"https://([a-z0-9]+)\.execute-api\.[a-z0-9-]+\.amazonaws\.com(/[^\s]*)?")


def default_bin_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "lambda"


@dataclass
class Function:
    logical_id: str
    name: str
    arn: str
    binary: str | None
    env: dict[str, str]
    timeout: float
    memory: int
    policy: Policy
    runtime: FunctionRuntime | None = None


@dataclass
class Stack:
    parameters: dict[str, Any] = field(default_factory=dict)
    store: str | None = "mongodb"  # sets StoreKind (None: the template's default)
    bin_dir: Path | None = None
    moto_url: str = field(default_factory=lambda: os.environ.get("AGORA_AWS_ENDPOINT", "http://127.0.0.1:5055"))
    mongo_uri: str = field(default_factory=lambda: os.environ.get("MONGODB_URI", "mongodb://127.0.0.1:27117"))
    sweep_seconds: float | None = None  # None: each rate rule at its real rate
    enforce_iam: bool = True
    max_instances: int = 2
    create_mongo_secret: bool = True
    stack_name: str = field(default_factory=tpl.new_stack_name)
    log_dir: Path | None = None
    region: str = "us-east-1"
    # Lambda functions outside the stack that its hooks may name (another stack's, another
    # account's): function name -> handler(event) -> result, served on Lambda Invoke by name or
    # ARN (the caller's role is checked as for the stack's own functions).
    outside_functions: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.pseudo = tpl.Pseudo(self.stack_name, region=self.region)
        self.functions: dict[str, Function] = {}
        self.outside_invocations: list[tuple[str, Any]] = []
        self.ids: dict[str, Any] = {}
        self.events: list[dict] = []
        self.notes: list[str] = []
        self.rates_paused = False
        self.schedule_groups: set[str] = set()
        self.created: list[tuple[str, Any]] = []
        self.sources: list[SqsEventSource] = []
        self.rules: list[RateRule] = []
        self.scheduler_driver: SchedulerDriver | None = None
        self.http: HttpApi | None = None
        self.ws: WebSocketApi | None = None
        self.proxy = AwsProxy(self, self.moto_url)
        self.started = False
        self._tmp = Path(tempfile.mkdtemp(prefix=f"{self.stack_name}-"))
        if self.log_dir is None:
            self.log_dir = REPO / "target" / "deployed" / self.stack_name
        self.arn_prefix = f"arn:aws:lambda:{self.region}:{tpl.ACCOUNT}:function:{self.stack_name}-"

    # -- clients of moto (the harness's own credentials, not a function's)
    def _client(self, service: str):
        return boto3.client(service, endpoint_url=self.moto_url, region_name=self.region, aws_access_key_id="harness", aws_secret_access_key="harness", config=Config(retries={"max_attempts": 2}))

    def note(self, text: str):
        self.notes.append(f"{time.strftime('%H:%M:%S')} {text}")

    # -- physical ids
    def physical(self, lid: str):
        if lid in self.ids:
            return self.ids[lid]
        res = self.cfn["Resources"].get(lid) or self.source["Resources"][lid]
        kind = res["Type"]
        props = res.get("Properties", {})
        r = self.resolver
        name = lambda key, n=80: r(props[key]) if key in props else f"{self.stack_name}-{lid}-{tpl.random_suffix()}"[:n]
        if kind == "AWS::SQS::Queue":
            qname = name("QueueName")
            value = f"https://sqs.{self.region}.amazonaws.com/{tpl.ACCOUNT}/{qname}"
            self.ids[lid + ".QueueName"] = qname
        elif kind == "AWS::DynamoDB::Table":
            value = name("TableName", 255)
        elif kind == "AWS::Events::EventBus":
            value = r(props["Name"])
        elif kind == "AWS::Scheduler::ScheduleGroup":
            value = name("Name", 64)
        elif kind == "AWS::Lambda::Function":
            value = name("FunctionName", 64)
        elif kind == "AWS::IAM::Role":
            value = name("RoleName", 64)
        elif kind in ("AWS::ApiGatewayV2::Api", "AWS::ApiGatewayV2::Integration", "AWS::ApiGatewayV2::Route"):
            value = tpl.random_id(10 if kind.endswith("Api") else 7)
        elif kind == "AWS::ApiGatewayV2::Stage":
            value = r(props["StageName"])
        elif kind == "AWS::Events::Rule":
            value = name("Name", 64)
        else:
            value = f"{self.stack_name}-{lid}-{tpl.random_suffix()}"
        self.ids[lid] = value
        return value

    def attribute(self, lid: str, attr: str):
        res = (self.cfn["Resources"].get(lid) or self.source["Resources"][lid])
        kind = res["Type"]
        ref = self.physical(lid)
        reg, acct = self.region, tpl.ACCOUNT
        if kind == "AWS::SQS::Queue":
            qname = self.ids[lid + ".QueueName"]
            return {"Arn": f"arn:aws:sqs:{reg}:{acct}:{qname}", "QueueName": qname, "QueueUrl": ref}[attr]
        if kind == "AWS::Lambda::Function" and attr == "Arn":
            return f"arn:aws:lambda:{reg}:{acct}:function:{ref}"
        if kind == "AWS::IAM::Role" and attr == "Arn":
            return f"arn:aws:iam::{acct}:role/{ref}"
        if kind == "AWS::DynamoDB::Table" and attr == "Arn":
            return f"arn:aws:dynamodb:{reg}:{acct}:table/{ref}"
        if kind == "AWS::Events::EventBus":
            return {"Arn": f"arn:aws:events:{reg}:{acct}:event-bus/{ref}", "Name": ref}[attr]
        if kind == "AWS::Scheduler::ScheduleGroup" and attr == "Arn":
            return f"arn:aws:scheduler:{reg}:{acct}:schedule-group/{ref}"
        if kind == "AWS::ApiGatewayV2::Api" and attr == "ApiEndpoint":
            proto = "wss" if self.cfn["Resources"][lid]["Properties"].get("ProtocolType") == "WEBSOCKET" else "https"
            return f"{proto}://{ref}.execute-api.{reg}.amazonaws.com"
        if kind == "AWS::ApiGatewayV2::Api" and attr == "ApiId":
            return ref
        raise tpl.TemplateError(f"GetAtt {lid}.{attr} is not emulated")

    def dynamic(self, text: str) -> str:
        def one(m: re.Match) -> str:
            kind, rest = m.group(1), m.group(2)
            if kind != "secretsmanager":
                raise tpl.TemplateError(f"dynamic reference {m.group(0)} is not emulated")
            # secret-id[:SecretString[:json-key[:version-stage[:version-id]]]], the id an ARN or a name
            arn = re.match(r"(arn:[^:]*:secretsmanager:[^:]*:\d*:secret:[^:]+)(.*)", rest)
            secret_id, tail = (arn.group(1), arn.group(2)) if arn else (rest.split(":", 1)[0], ":" + rest.split(":", 1)[1] if ":" in rest else "")
            parts = tail.lstrip(":").split(":") if tail else []
            json_key = parts[1] if len(parts) > 1 and parts[1] else None
            if not secret_id:
                raise tpl.TemplateError(f"dynamic reference {m.group(0)}: no secret id (an empty parameter?)")
            try:
                value = self._client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]
            except Exception as e:
                raise tpl.TemplateError(f"dynamic reference {m.group(0)}: {e}") from None
            return json.loads(value)[json_key] if json_key else value

        return re.sub(r"\{\{resolve:(\w+):([^}]*)\}\}", one, text)

    def function_by_name(self, name: str) -> Function | None:
        name = name.split(":function:", 1)[-1].split(":", 1)[0] if ":function:" in name else name
        for f in self.functions.values():
            if name in (f.name, f.logical_id, f.arn):
                return f
        return None

    def _python_package(self, lid: str, code: Path) -> str:
        """The folder `sam build` makes of a Python function: its CodeUri folder as it is, or
        with `Metadata: {BuildMethod: makefile}` what `make -f <CodeUri>/Makefile build-<LogicalId>`
        leaves in ARTIFACTS_DIR, run (as SAM runs it) in a scratch copy of the CodeUri folder."""
        metadata = self.source["Resources"][lid].get("Metadata") or {}
        if metadata.get("BuildMethod") != "makefile":
            return str(code)
        scratch, out = self._tmp / "scratch" / lid, self._tmp / "build" / lid
        shutil.copytree(code, scratch)
        out.mkdir(parents=True)
        done = subprocess.run(["make", "-f", str(code / "Makefile"), f"build-{lid}"], cwd=scratch, env={**os.environ, "ARTIFACTS_DIR": str(out)}, capture_output=True, text=True)
        if done.returncode != 0:
            raise tpl.TemplateError(f"{lid}: make build-{lid} failed (exit {done.returncode}): {done.stderr.strip()}")
        return str(out)

    def binary_path(self, binary: str) -> tuple[list[str], str]:
        base = Path(self.bin_dir) if self.bin_dir else default_bin_dir()
        for p in (base / binary / "bootstrap", base / binary):
            if p.is_file() and os.access(p, os.X_OK):
                return [str(p)], str(p.parent)
        z = base / binary / "bootstrap.zip"
        if z.is_file():
            dest = self._tmp / "code" / binary
            dest.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(z) as f:
                f.extractall(dest)
            (dest / "bootstrap").chmod(0o755)
            return [str(dest / "bootstrap")], str(dest)
        raise FileNotFoundError(f"no binary for {binary} in {base} (bootstrap, {binary} or bootstrap.zip)")

    # -- deploy
    def plan(self):
        """Parameters, rules and conditions, the SAM transform, the physical ids (no side effects
        but reading secrets)."""
        self.source = tpl.load_source()
        given = dict(self.parameters)
        if self.store is not None:
            given.setdefault("StoreKind", self.store)
        self.values = tpl.parameter_values(self.source, given)
        rules = tpl.Resolver(self.source, self.values, self.pseudo)
        tpl.check_rules(self.source, rules)
        self.cfn = tpl.sam_transform(self.source, self.values, self.pseudo)
        self.resolver = tpl.Resolver(self.cfn, self.values, self.pseudo, self.physical, self.attribute, self.dynamic)

    def enabled(self, kind: str):
        for lid, res in self.cfn["Resources"].items():
            if res["Type"] == kind and self.resolver.resource_enabled(lid):
                yield lid, res

    def _create_resources(self):
        r = self.resolver
        sqs, ddb, events, sched = self._client("sqs"), self._client("dynamodb"), self._client("events"), self._client("scheduler")
        self.sqs, self.scheduler = sqs, sched
        redrives = []
        for lid, res in self.enabled("AWS::SQS::Queue"):
            props = r(res.get("Properties", {}))
            attrs = {k: str(v) for k, v in props.items() if k in ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "MaximumMessageSize", "ReceiveMessageWaitTimeSeconds")}
            qname = self.attribute(lid, "QueueName")
            sqs.create_queue(QueueName=qname, Attributes=attrs)
            self.created.append(("queue", qname))
            if "RedrivePolicy" in props:
                redrives.append((qname, props["RedrivePolicy"]))
        for qname, policy in redrives:
            url = sqs.get_queue_url(QueueName=qname)["QueueUrl"]
            sqs.set_queue_attributes(QueueUrl=url, Attributes={"RedrivePolicy": json.dumps(policy)})
        for lid, res in self.enabled("AWS::DynamoDB::Table"):
            props = r(res["Properties"])
            kw = {k: props[k] for k in ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes", "BillingMode", "ProvisionedThroughput", "StreamSpecification") if k in props}
            ddb.create_table(TableName=self.physical(lid), **kw)
            self.created.append(("table", self.physical(lid)))
        for lid, res in self.enabled("AWS::Events::EventBus"):
            events.create_event_bus(Name=self.physical(lid))
            self.created.append(("bus", self.physical(lid)))
        for lid, res in self.enabled("AWS::Scheduler::ScheduleGroup"):
            sched.create_schedule_group(Name=self.physical(lid))
            self.schedule_groups.add(self.physical(lid))
            self.created.append(("group", self.physical(lid)))

    def _environment(self, lid: str, props: dict, name: str) -> dict[str, str]:
        env = {k: tpl._str(v) for k, v in (props.get("Environment", {}).get("Variables", {}) or {}).items()}
        for k, v in list(env.items()):
            m = EXECUTE_API.fullmatch(v)
            if m and self.ws is not None and m.group(1) == self.ws.api_id:
                env[k] = f"http://127.0.0.1:{self.ws.port}{m.group(2) or ''}"
        nopath = self._tmp / "bin"
        nopath.mkdir(exist_ok=True)
        env.update({
            "AWS_LAMBDA_FUNCTION_NAME": name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(props.get("MemorySize", 128)),
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{name}",
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_REGION": self.region,
            "AWS_DEFAULT_REGION": self.region,
            "AWS_ACCESS_KEY_ID": lid,
            "AWS_SECRET_ACCESS_KEY": tpl.random_suffix(40),
            "AWS_SESSION_TOKEN": tpl.random_suffix(60),
            "_HANDLER": str(props.get("Handler", "bootstrap")),
            "LAMBDA_TASK_ROOT": "/var/task",
            "LAMBDA_RUNTIME_DIR": "/var/runtime",
            "TZ": ":UTC",
            "LANG": "en_US.UTF-8",
            # The runtime's PATH holds no interpreter (provided.al2023 has no python3).
            "PATH": str(nopath),
            # The emulator's one substitution: every AWS SDK call goes to the harness's proxy
            # (AGORA_AWS_ENDPOINT for the adapters; AWS_ENDPOINT_URL, the SDK's own variable, for
            # the clients that read no AGORA_ variable: the DynamoDB store, Lambda hooks).
            "AGORA_AWS_ENDPOINT": self.proxy.url,
            "AWS_ENDPOINT_URL": self.proxy.url,
        })
        return env

    async def start(self, wait_ready: float = 60.0):
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if self.store == "mongodb" and self.create_mongo_secret and "MongoUriSecretArn" not in self.parameters:
            sm = self._client("secretsmanager")
            arn = sm.create_secret(Name=f"{self.stack_name}/mongodb-uri", SecretString=self.mongo_uri)["ARN"]
            self.created.append(("secret", arn))
            self.parameters = {**self.parameters, "MongoUriSecretArn": arn}
        await asyncio.to_thread(self.plan)
        await self.proxy.start()
        r = self.resolver
        # The WebSocket API (its port goes into the functions' environment).
        for lid, res in self.enabled("AWS::ApiGatewayV2::Api"):
            props = res["Properties"]
            if props.get("ProtocolType") == "WEBSOCKET":
                routes = {}
                for rid, rres in self.enabled("AWS::ApiGatewayV2::Route"):
                    rp = rres["Properties"]
                    if rp.get("ApiId") == {"Ref": lid}:
                        integ = rp["Target"]["Fn::Sub"].split("${", 1)[1].rstrip("}") if isinstance(rp.get("Target"), dict) else None
                        uri = self.cfn["Resources"][integ]["Properties"]["IntegrationUri"]
                        routes[rp["RouteKey"]] = self._function_of_uri(uri)
                stage = next((r(s["Properties"]["StageName"]) for _, s in self.enabled("AWS::ApiGatewayV2::Stage") if s["Properties"].get("ApiId") == {"Ref": lid}), "live")
                self.ws = WebSocketApi(self, self.physical(lid), stage, routes, props.get("RouteSelectionExpression", ""))
                await self.ws.start()
        await asyncio.to_thread(self._create_resources)
        # Functions.
        for lid, res in self.enabled("AWS::Lambda::Function"):
            props = r(res["Properties"])
            name = props["FunctionName"] if "FunctionName" in props else self.physical(lid)
            self.ids[lid] = name
            role_id = res["Properties"]["Role"]["Fn::GetAtt"][0]
            policy = Policy.from_role(r(self.cfn["Resources"][role_id]["Properties"]))
            binary = (res.get("Metadata") or {}).get("BuildProperties", {}).get("Binary")
            fn = Function(lid, name, self.attribute(lid, "Arn"), binary, self._environment(lid, props, name), float(props.get("Timeout", 3)), int(props.get("MemorySize", 128)), policy)
            runtime_kind = str(props.get("Runtime", ""))
            if runtime_kind.startswith("python"):
                code = (REPO / str(self.source["Resources"][lid]["Properties"].get("CodeUri", "."))).resolve()
                command, root = [sys.executable, str(RIC)], self._python_package(lid, code)
                fn.env["LAMBDA_TASK_ROOT"] = root
                fn.env["PYTHONPATH"] = root
            else:
                command, root = self.binary_path(binary or lid)
            fn.runtime = FunctionRuntime(lid, name, fn.arn, command, fn.env, fn.timeout, self.log_dir / f"{lid}.log", root, self.max_instances)
            self.functions[lid] = fn
        # The HTTP API.
        for lid, res in self.enabled("AWS::ApiGatewayV2::Api"):
            props = res["Properties"]
            if "Body" in props:
                body = r(props["Body"])
                routes = routes_from_openapi(body, self._function_of_uri)
                stage = next((r(s["Properties"]) for _, s in self.enabled("AWS::ApiGatewayV2::Stage") if s["Properties"].get("ApiId") == {"Ref": lid}), {})
                rs = stage.get("DefaultRouteSettings", {})
                throttle = (float(rs["ThrottlingRateLimit"]), float(rs["ThrottlingBurstLimit"])) if "ThrottlingRateLimit" in rs else None
                self.http = HttpApi(self, self.physical(lid), routes, throttle)
                await self.http.start()
        # Cold starts: every function's first instance, each ready when it asks for an event.
        await asyncio.gather(*(f.runtime.start() for f in self.functions.values()))
        deadline = time.monotonic() + wait_ready
        while time.monotonic() < deadline:
            if all(any(i.initialized for i in f.runtime.instances) or f.runtime.init_errors or not f.runtime.instances for f in self.functions.values()):
                break
            await asyncio.sleep(0.05)
        # Event sources.
        queues_by_arn = {self.attribute(q, "Arn"): self.physical(q) for q, _ in self.enabled("AWS::SQS::Queue")}
        for lid, res in self.enabled("AWS::Lambda::EventSourceMapping"):
            p = r(res["Properties"])
            fn = self.function_by_name(p["FunctionName"])
            src = SqsEventSource(self, lid, fn.logical_id, p["EventSourceArn"], queues_by_arn[p["EventSourceArn"]], int(p.get("BatchSize", 10)), float(p.get("MaximumBatchingWindowInSeconds", 0)), "ReportBatchItemFailures" in p.get("FunctionResponseTypes", []), concurrency=self.max_instances)
            self.sources.append(src)
            src.start()
        self.scheduler_driver = SchedulerDriver(self)
        self.scheduler_driver.start()
        for lid, res in self.enabled("AWS::Events::Rule"):
            p = r(res["Properties"])
            expr = p.get("ScheduleExpression")
            if not expr or p.get("State", "ENABLED") != "ENABLED":
                continue
            for target in p.get("Targets", []):
                fn = self.function_by_name(target["Arn"])
                period = self.sweep_seconds if self.sweep_seconds is not None else rate_seconds(expr)
                rule = RateRule(self, lid, self.physical(lid), expr, fn.logical_id, period)
                self.rules.append(rule)
                rule.start()
        self.started = True

    def _function_of_uri(self, uri) -> str:
        text = json.dumps(uri)
        m = re.search(r"functions/\$\{(\w+)\.Arn\}", text)
        if m:
            return m.group(1)
        resolved = self.resolver(uri)
        m = re.search(r"function:([^/:]+)", resolved)
        fn = self.function_by_name(m.group(1)) if m else None
        if fn is None:
            raise tpl.TemplateError(f"integration {uri} names no function of the stack")
        return fn.logical_id

    async def stop(self):
        for rule in self.rules:
            await rule.stop()
        if self.scheduler_driver:
            await self.scheduler_driver.stop()
        for src in self.sources:
            await src.stop()
        await asyncio.gather(*(f.runtime.close() for f in self.functions.values() if f.runtime), return_exceptions=True)
        for part in (self.http, self.ws):
            if part:
                await part.close()
        await self.proxy.close()
        await asyncio.to_thread(self._delete_resources)
        shutil.rmtree(self._tmp, ignore_errors=True)

    def _delete_resources(self):
        clients = {}
        def c(s):
            clients.setdefault(s, self._client(s))
            return clients[s]
        for kind, name in reversed(self.created):
            try:
                if kind == "queue":
                    c("sqs").delete_queue(QueueUrl=c("sqs").get_queue_url(QueueName=name)["QueueUrl"])
                elif kind == "table":
                    c("dynamodb").delete_table(TableName=name)
                elif kind == "bus":
                    c("events").delete_event_bus(Name=name)
                elif kind == "group":
                    c("scheduler").delete_schedule_group(Name=name)
                elif kind == "secret":
                    c("secretsmanager").delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)
            except Exception as e:
                self.note(f"delete {kind} {name}: {e!r}")

    # -- what the tests read
    def record_events(self, caller: str, body: bytes):
        try:
            doc = json.loads(body)
        except ValueError:
            return
        for e in doc.get("Entries", []):
            try:
                detail = json.loads(e.get("Detail") or "null")
            except ValueError:
                detail = e.get("Detail")
            self.events.append({"function": caller, "bus": e.get("EventBusName"), "source": e.get("Source"), "detail_type": e.get("DetailType"), "detail": detail, "at": time.time()})

    async def lambda_invoke(self, request: web.Request, body: bytes) -> web.Response:
        name = re.search(r"/functions/([^/]+)/invocations", request.path).group(1)
        fn = self.function_by_name(name)
        outside = self.outside_functions.get(name.split(":function:", 1)[-1].split(":", 1)[0]) if fn is None else None
        if fn is None and outside is None:
            return web.json_response({"Type": "User", "Message": f"Function not found: {name}"}, status=404, headers={"x-amzn-ErrorType": "ResourceNotFoundException"})
        try:
            event = json.loads(body) if body else {}
        except ValueError:
            return web.json_response({"Type": "User", "Message": "Could not parse request body into json"}, status=400, headers={"x-amzn-ErrorType": "InvalidRequestContentException"})
        if outside is not None:
            self.outside_invocations.append((name, event))
            try:
                result = await asyncio.to_thread(outside, event)
            except Exception as e:  # noqa: BLE001 - the function's own error, as Lambda reports it
                error = {"errorMessage": str(e), "errorType": type(e).__name__}
                return web.Response(text=json.dumps(error), status=200, headers={"X-Amz-Function-Error": "Unhandled"}, content_type="application/json")
            return web.Response(text=json.dumps(result), status=200, headers={"X-Amz-Executed-Version": "$LATEST"}, content_type="application/json")
        kind = request.headers.get("X-Amz-Invocation-Type", "RequestResponse")
        if kind == "Event":
            asyncio.get_running_loop().create_task(fn.runtime.invoke(event, source="lambda:Invoke(Event)"))
            return web.Response(status=202)
        if kind == "DryRun":
            return web.Response(status=204)
        result = await fn.runtime.invoke(event, source="lambda:Invoke")
        headers = {"X-Amz-Executed-Version": "$LATEST"}
        if not result.ok:
            headers["X-Amz-Function-Error"] = "Unhandled"
            return web.Response(text=json.dumps(result.error), status=200, headers=headers, content_type="application/json")
        return web.Response(text=json.dumps(result.payload), status=200, headers=headers, content_type="application/json")

    # -- summaries
    def denied_calls(self):
        return [c for c in self.proxy.calls if not c.allowed]

    def invocations(self, logical_id: str):
        return self.functions[logical_id].runtime.records

    def batches(self):
        return [b for s in self.sources for b in s.batches]
