"""`agora mcp` driven by the official MCP Python SDK against a real local server.

Needs the built binaries: AGORA_LOCAL_BIN (target/debug/agora-local) and AGORA_BIN
(target/debug/agora); both default to the workspace's target/debug. Each test starts its own
server on a free port with a temporary data folder; the authentication tests serve a JWKS from a
thread (an RSA key made by `cryptography`, tokens signed by PyJWT) and start the server with
AGORA_AUTH_JWKS_URL, AGORA_AUTH_ISSUER and AGORA_AUTH_AUDIENCE.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parents[4]
ISSUER = "https://idp.test/"
AUDIENCE = "agora-api"
ADMIN_SCOPE = "agora:admin"
REVIEWERS = {"agent-reviewer-01": "agent-translator-02", "agent-reviewer-02": "agent-translator-02", "agent-reviewer-03": "agent-translator-01"}
SOON = 20.0

EXPECTED_TOOLS = {
    "voting_find_open_tasks",
    "voting_get_ballot",
    "voting_vote",
    "voting_get_status",
    "voting_get_report",
    "orcade_find_jobs_by_tags",
    "orcade_find_open_jobs",
    "orcade_get_job",
    "orcade_bid",
    "orcade_get_job_bids",
    "orcade_get_job_results",
    "xchange_find_tasks",
    "xchange_get_task",
    "xchange_submit_task",
}


def binary(variable: str, name: str) -> str:
    path = Path(os.environ.get(variable) or ROOT / "target" / "debug" / name)
    if not path.is_file():
        pytest.fail(f"{path} is not built: cargo build -p agora-local -p agora-cli, or set {variable}")
    return str(path)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- identity provider -------------------------------------------------------------------------


class IdentityProvider:
    """An RSA signing key, its JWKS served over HTTP from a thread, and tokens it signs."""

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": "test-1", "use": "sig", "alg": "RS256"})
        body = json.dumps({"keys": [jwk]}).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.jwks_url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def token(self, sub: str, operator: bool = False) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600}
        if operator:
            claims["scope"] = f"openid {ADMIN_SCOPE}"
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": "test-1"})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the local server --------------------------------------------------------------------------


class LocalServer:
    def __init__(self, url: str, process: subprocess.Popen[bytes], token: str | None) -> None:
        self.url = url
        self.process = process
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if self.token:
            request.add_header("authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def wait_for(self, path: str, done: Any) -> Any:
        deadline = time.monotonic() + SOON
        while True:
            status, body = self.call("GET", path)
            if status == 200 and done(body):
                return body
            assert time.monotonic() < deadline, f"GET {path}: {status} {body}"
            time.sleep(0.1)

    def started_task(self) -> str:
        task = json.loads((ROOT / "examples" / "private-task.json").read_text())
        task["social_task"]["scheduled_time"] = "2020-01-01T00:00:00Z"
        status, body = self.call("POST", "/submit-social-choice-task", task)
        assert status == 201, body
        task_id = body["social_task_id"]
        self.wait_for(f"/get-status/{task_id}", lambda b: b["status"] == "started")
        return task_id

    def closed_job(self) -> str:
        job = json.loads((ROOT / "examples" / "closed-bid-job.json").read_text())
        status, body = self.call("POST", "/bid-jobs", job)
        assert status == 201, body
        return body["data"]["bid_job_id"]


@contextlib.contextmanager
def local_server(idp: IdentityProvider | None = None) -> Iterator[LocalServer]:
    port = free_port()
    env = dict(os.environ)
    for name in list(env):
        if name.startswith("AGORA_AUTH_"):
            del env[name]
    if idp is not None:
        env.update({"AGORA_AUTH_JWKS_URL": idp.jwks_url, "AGORA_AUTH_ISSUER": ISSUER, "AGORA_AUTH_AUDIENCE": AUDIENCE})
    with tempfile.TemporaryDirectory(prefix="agora-mcp-") as data_dir:
        args = [binary("AGORA_LOCAL_BIN", "agora-local"), "--port", str(port), "--data-dir", data_dir, "--functions-dir", "", "--sweep-interval-ms", "100"]
        process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        server = LocalServer(f"http://127.0.0.1:{port}", process, idp.token("ops", operator=True) if idp else None)
        try:
            deadline = time.monotonic() + SOON
            while True:
                assert process.poll() is None, f"agora-local exited with {process.returncode}"
                try:
                    with urllib.request.urlopen(server.url + "/healthz", timeout=2):
                        break
                except (urllib.error.URLError, ConnectionError):
                    assert time.monotonic() < deadline, "agora-local did not answer"
                    time.sleep(0.1)
            yield server
        finally:
            process.terminate()
            process.wait(timeout=10)


@pytest.fixture
def idp() -> Iterator[IdentityProvider]:
    provider = IdentityProvider()
    yield provider
    provider.close()


# --- MCP sessions ------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def stdio_session(server: LocalServer, token: str | None = None) -> Any:
    env = {"AGORA_URL": server.url}
    if token:
        env["AGORA_TOKEN"] = token
    params = StdioServerParameters(command=binary("AGORA_BIN", "agora"), args=["mcp"], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextlib.contextmanager
def mcp_over_http(server: LocalServer, own_token: str) -> Iterator[str]:
    """`agora mcp --listen` started with `own_token` (which its HTTP callers must never get to
    use); yields its /mcp URL."""
    port = free_port()
    env = dict(os.environ) | {"AGORA_URL": server.url, "AGORA_TOKEN": own_token}
    process = subprocess.Popen([binary("AGORA_BIN", "agora"), "mcp", "--listen", f"127.0.0.1:{port}"], env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + SOON
        while True:
            assert process.poll() is None, f"agora mcp exited with {process.returncode}"
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            assert time.monotonic() < deadline, "agora mcp --listen did not listen"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.asynccontextmanager
async def http_session(url: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with create_mcp_http_client(headers=headers) as client, streamable_http_client(url, http_client=client) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def data(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def refusal(result: Any) -> dict[str, Any]:
    assert result.is_error, result.content
    return result.structured_content


async def poll_tool(session: ClientSession, name: str, arguments: dict[str, Any], done: Any) -> Any:
    deadline = time.monotonic() + SOON
    while True:
        value = data(await session.call_tool(name, arguments))
        if done(value):
            return value
        assert time.monotonic() < deadline, f"{name} {arguments}: {value}"
        await asyncio.sleep(0.1)


def tool_schema(tools: Any, name: str) -> dict[str, Any]:
    return next(t for t in tools.tools if t.name == name).input_schema


# --- tests -------------------------------------------------------------------------------------


def test_agents_find_vote_and_bid_through_the_tools_over_stdio() -> None:
    async def scenario(server: LocalServer) -> None:
        task_id = server.started_task()
        job_id = server.closed_job()
        async with stdio_session(server) as session:
            tools = await session.list_tools()
            assert {t.name for t in tools.tools} == EXPECTED_TOOLS
            vote_schema = tool_schema(tools, "voting_vote")
            assert {"social_task_id", "submitter_subject_id", "vote_data"} <= set(vote_schema["properties"])
            assert "vote_id" not in vote_schema.get("required", []), vote_schema

            open_tasks = data(await session.call_tool("voting_find_open_tasks", {"filter": {"org_ids": "agent-reviewer-01"}}))
            assert [t["social_task_id"] for t in open_tasks] == [task_id]
            ballot = data(await session.call_tool("voting_get_ballot", {name(tools, "voting_get_ballot"): task_id}))
            assert set(ballot["subject_spec"]["voting_options_map"]) == set(REVIEWERS.values()) | {"agent-translator-03"}
            for voter, option in REVIEWERS.items():
                receipt = data(await session.call_tool("voting_vote", {"social_task_id": task_id, "submitter_subject_id": voter, "vote_data": {"selected_option": option}}))
                assert receipt == {"status": "accepted", "qualified": True}
            again = refusal(await session.call_tool("voting_vote", {"social_task_id": task_id, "submitter_subject_id": "agent-reviewer-01", "vote_data": {"selected_option": "agent-translator-01"}}))
            assert again["status"] == 409, again
            await poll_tool(session, "voting_get_status", {name(tools, "voting_get_status"): task_id}, lambda s: s["status"] == "complete")
            report = data(await session.call_tool("voting_get_report", {name(tools, "voting_get_report"): task_id}))
            assert report["winners"] == ["agent-translator-02"]

            found = data(await session.call_tool("orcade_find_jobs_by_tags", {"tags": "translation,fr"}))
            assert [j["bid_job_id"] for j in found] == [job_id]
            assert [j["bid_job_id"] for j in data(await session.call_tool("orcade_find_open_jobs", {}))] == [job_id]
            job_arg = name(tools, "orcade_bid")
            low = refusal(await session.call_tool("orcade_bid", {job_arg: job_id, "bid_subject_id": "agent-translator-01", "bid_data": {"price_usd": 90, "confidence": 0.5}}))
            assert low["status"] == 409, low
            for subject, price in (("agent-translator-02", 120), ("agent-translator-03", 150)):
                bid = data(await session.call_tool("orcade_bid", {job_arg: job_id, "bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": 0.9}}))
                assert bid["bid_subject_id"] == subject
            bids = await poll_tool(session, "orcade_get_job_bids", {name(tools, "orcade_get_job_bids"): job_id}, lambda b: any(x["is_winner"] for x in b))
            assert [b["bid_subject_id"] for b in bids if b["is_winner"]] == ["agent-translator-02"]
            results = data(await session.call_tool("orcade_get_job_results", {name(tools, "orcade_get_job_results"): job_id}))
            assert any(r["task_type"] == "bid_request" for r in results), results
            assert data(await session.call_tool("orcade_find_open_jobs", {})) == [], "a closed job is not open"

            submitted = data(await session.call_tool("xchange_submit_task", {"task_assignment_type": "direct", "task_data": {"text": "hi"}, "task_metadata": {"task_assignment": {"subject_id": "agent-x"}}}))
            task = await poll_tool(session, "xchange_get_task", {name(tools, "xchange_get_task"): submitted["task_id"]}, lambda t: t["task_assignment_status"] in ("completed", "failed"))
            assert task["task_id"] == submitted["task_id"]
            assert [t["task_id"] for t in data(await session.call_tool("xchange_find_tasks", {"filter": {"task_id": submitted["task_id"]}}))] == [submitted["task_id"]]

    with local_server() as server:
        asyncio.run(scenario(server))


def name(tools: Any, tool: str) -> str:
    """The one path parameter of a tool, as the OpenAPI document names it."""
    schema = tool_schema(tools, tool)
    required = schema.get("required", [])
    assert len(required) >= 1, schema
    return required[0]


def test_with_authentication_a_stdio_agent_acts_only_as_itself(idp: IdentityProvider) -> None:
    async def scenario(server: LocalServer) -> None:
        task_id = server.started_task()
        job_id = server.closed_job()
        async with stdio_session(server, token=idp.token("agent-reviewer-01")) as session:
            tools = await session.list_tools()
            other = refusal(await session.call_tool("voting_vote", {"social_task_id": task_id, "submitter_subject_id": "agent-reviewer-02", "vote_data": {"selected_option": "agent-translator-02"}}))
            assert other["status"] == 403, other
            own = data(await session.call_tool("voting_vote", {"social_task_id": task_id, "submitter_subject_id": "agent-reviewer-01", "vote_data": {"selected_option": "agent-translator-02"}}))
            assert own == {"status": "accepted", "qualified": True}
            bid = refusal(await session.call_tool("orcade_bid", {name(tools, "orcade_bid"): job_id, "bid_subject_id": "agent-translator-02", "bid_data": {"price_usd": 1, "confidence": 0.9}}))
            assert bid["status"] == 403, bid
        _, bundle = server.call("GET", f"/get-full-task-bundle/{task_id}")
        assert [v["submitter_subject_id"] for v in bundle["votes"]] == ["agent-reviewer-01"], "nothing stored for the refused vote"

    with local_server(idp) as server:
        asyncio.run(scenario(server))


def test_over_streamable_http_each_caller_acts_with_its_own_token(idp: IdentityProvider) -> None:
    async def scenario(server: LocalServer, url: str) -> None:
        task_id = server.started_task()
        vote = lambda voter: {"social_task_id": task_id, "submitter_subject_id": voter, "vote_data": {"selected_option": "agent-translator-02"}}  # noqa: E731
        async with http_session(url, idp.token("agent-reviewer-02")) as session:
            assert {t.name for t in (await session.list_tools()).tools} == EXPECTED_TOOLS
            other = refusal(await session.call_tool("voting_vote", vote("agent-reviewer-01")))
            assert other["status"] == 403, other
            assert data(await session.call_tool("voting_vote", vote("agent-reviewer-02")))["status"] == "accepted"
        # No header: no token forwarded, not the operator's token the MCP server was started with.
        async with http_session(url, None) as anonymous:
            unauthenticated = refusal(await anonymous.call_tool("voting_vote", vote("agent-reviewer-03")))
            assert unauthenticated["status"] == 401, unauthenticated

    with local_server(idp) as server, mcp_over_http(server, idp.token("ops", operator=True)) as url:
        asyncio.run(scenario(server, url))
