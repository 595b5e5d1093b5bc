"""The transport against a stub server (a tiny ``http.server``): the bearer token and headers
sent, retries of safe requests only, error shapes, path encoding. No agora-local needed."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agora_client import Agora, AgoraError, InvalidResponse, NotFound, ServerError, TransportError

#: A scripted "status" that closes the connection without an answer.
DROP = 0


@dataclass
class Seen:
    """A request the stub received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Stub:
    """The stub's script and record: ``failures[(method, path)]`` are answered, one per
    request, before the default answer (200 and ``{"ok": true, "data": ...}``)."""

    url: str
    seen: list[Seen] = field(default_factory=list)
    failures: dict[tuple[str, str], list[tuple[int, bytes]]] = field(default_factory=dict)

    def fail(self, method: str, path: str, *answers: tuple[int, Any]) -> None:
        """Answers the next requests to ``method path`` with ``answers`` (status, JSON or text;
        status :data:`DROP` closes the connection instead)."""
        self.failures[(method, path)] = [(s, b if isinstance(b, bytes) else json.dumps(b).encode()) for s, b in answers]

    def count(self, method: str, path: str) -> int:
        return sum(1 for s in self.seen if (s.method, s.path) == (method, path))


def _default_data(method: str, path: str) -> Any:
    """What the stub answers when it has no failure scripted: plausible data per route."""
    path = path.split("?")[0]
    if path.endswith(("/query", "/by-tags")) or path.startswith("/generic-query/") or path.endswith("/bids") and method == "GET":
        return []
    if path.startswith("/get-status/"):
        return {"status": "started"}
    if path.startswith("/bid-jobs"):
        return {"bid_job_id": "j", "bid_job_status": "open", "extra_field": 1}
    if path.startswith("/bids"):
        return {"bid_id": "b", "bid_job_id": "j", "bid_subject_id": "s", "bid_data": {}}
    return {"task_id": "t", "task_assignment_status": "pending", "task_output": {}}


@pytest.fixture
def stub() -> Iterator[Stub]:
    """A stub server on a free port, for one test."""
    state = Stub(url="")

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            state.seen.append(Seen(self.command, self.path, dict(self.headers.items()), json.loads(raw) if raw else None))
            scripted = state.failures.get((self.command, self.path.split("?")[0]))
            if scripted:
                status, body = scripted.pop(0)
                if status == DROP:
                    self.close_connection = True
                    return
            elif self.path.startswith(("/get-", "/submit-", "/generic-query", "/is-live")):
                status, body = 200, json.dumps(_default_data(self.command, self.path)).encode()
            else:
                status, body = 200, json.dumps({"ok": True, "data": _default_data(self.command, self.path)}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def fast(url: str, token: str | None = None) -> Agora:
    """A client whose retries wait milliseconds."""
    return Agora(url, token=token, timeout=5, backoff=0.01)


def test_the_bearer_token_and_json_headers_are_sent(stub: Stub) -> None:
    agora = fast(stub.url, token="tok-123")
    agora.orcade.get_job("j")
    agora.orcade.submit_bid("j", "agent-1", {"price_usd": 3})
    get, post = stub.seen
    assert get.headers["Authorization"] == "Bearer tok-123"
    assert get.headers["Accept"] == "application/json"
    assert "Content-Type" not in get.headers and get.body is None
    assert post.headers["Authorization"] == "Bearer tok-123"
    assert post.headers["Content-Type"] == "application/json"
    assert post.body == {"bid_subject_id": "agent-1", "bid_data": {"price_usd": 3}}

    fast(stub.url).orcade.get_job("j")
    assert "Authorization" not in stub.seen[-1].headers


def test_a_get_is_retried_after_a_503(stub: Stub) -> None:
    stub.fail("GET", "/bid-jobs/j", (503, {"ok": False, "error": "busy"}))
    job = fast(stub.url).orcade.get_job("j")
    assert job.bid_job_id == "j" and job.raw["extra_field"] == 1, "unknown fields are kept"
    assert stub.count("GET", "/bid-jobs/j") == 2


def test_a_query_is_retried_but_a_write_is_not(stub: Stub) -> None:
    agora = fast(stub.url)
    stub.fail("POST", "/tasks/query", (502, b"bad gateway"), (504, b""))
    assert agora.xchange.query_tasks({"task_id": "t"}, limit=5) == []
    assert stub.count("POST", "/tasks/query?limit=5") == 3

    stub.fail("POST", "/bid-jobs/j/bids", (503, {"ok": False, "error": "Service unavailable"}))
    with pytest.raises(ServerError) as failed:
        agora.orcade.submit_bid("j", "agent-1", {})
    assert (failed.value.status, failed.value.message) == (503, "Service unavailable")
    assert stub.count("POST", "/bid-jobs/j/bids") == 1

    stub.fail("POST", "/submit-vote", (503, {"error": "busy"}))
    with pytest.raises(ServerError):
        agora.voting.submit_vote("task_1", "s", {})
    assert stub.count("POST", "/submit-vote") == 1

    writes: list[tuple[str, str, Callable[[], object]]] = [
        ("POST", "/tasks", lambda: agora.xchange.submit_task("direct", {})),
        ("PATCH", "/subjects/s", lambda: agora.xchange.update_subject("s", {"topics": []})),
        ("DELETE", "/bids/b", lambda: agora.orcade.delete_bid("b")),
        ("POST", "/bid-jobs/j/close", lambda: agora.orcade.close_job("j")),
    ]
    for method, route, call in writes:
        stub.fail(method, route, (503, {"ok": False, "error": "busy"}))
        with pytest.raises(ServerError):
            call()
        assert stub.count(method, route) == 1, route


def test_a_dropped_connection_is_retried_for_reads_only(stub: Stub) -> None:
    agora = fast(stub.url)
    stub.fail("GET", "/tasks/t/output", (DROP, b""))
    assert agora.xchange.task_output("t").task_assignment_status == "pending"
    assert stub.count("GET", "/tasks/t/output") == 2

    stub.fail("POST", "/generic-query/votes", (DROP, b""))
    assert agora.voting.generic_query("votes", {"qualified": False}) == []
    assert stub.seen[-1].body == {"qualified": False}
    assert stub.count("POST", "/generic-query/votes") == 2

    stub.fail("POST", "/submit-social-choice-task", (DROP, b""))
    with pytest.raises(TransportError) as dropped:
        agora.voting.submit_task({"social_task": {}, "subject_spec": {}, "evaluation_spec": {}})
    assert dropped.value.status is None and dropped.value.__cause__ is not None
    assert stub.count("POST", "/submit-social-choice-task") == 1

    stub.fail("POST", "/bid-jobs", (DROP, b""))
    with pytest.raises(TransportError):
        agora.orcade.create_job({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "p"})
    assert stub.count("POST", "/bid-jobs") == 1


def test_retries_give_up_with_the_last_error(stub: Stub) -> None:
    stub.fail("GET", "/get-status/task_1", *[(503, {"error": "still busy"})] * 10)
    with pytest.raises(ServerError, match="still busy"):
        Agora(stub.url, backoff=0.01, retries=2).voting.get_status("task_1")
    assert stub.count("GET", "/get-status/task_1") == 3


def test_no_server_is_a_transport_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agora = fast(f"http://127.0.0.1:{port}")
    with pytest.raises(TransportError) as failed:
        agora.xchange.get_task("t")
    assert failed.value.status is None and isinstance(failed.value, AgoraError)
    with pytest.raises(TransportError):
        agora.xchange.create_subject(subject_id="s")


def test_error_shapes_and_path_segments(stub: Stub) -> None:
    agora = fast(stub.url)
    stub.fail("GET", "/tasks/a%2Fb%3Fc%20d", (404, {"ok": False, "error": "Task not found"}))
    with pytest.raises(NotFound) as not_found:
        agora.xchange.get_task("a/b?c d")
    assert (not_found.value.status, not_found.value.message, str(not_found.value)) == (404, "Task not found", "404: Task not found")
    assert stub.seen[-1].path == "/tasks/a%2Fb%3Fc%20d"

    stub.fail("GET", "/get-report/x", (404, {"error": "Invalid social_task_id."}))
    with pytest.raises(NotFound) as voting_404:
        agora.voting.get_report("x")
    assert voting_404.value.body == {"error": "Invalid social_task_id."}

    stub.fail("GET", "/bids/b", (418, b"I'm a teapot"))
    with pytest.raises(AgoraError) as teapot:
        agora.orcade.get_bid("b")
    assert (type(teapot.value), teapot.value.status, teapot.value.message) == (AgoraError, 418, "I'm a teapot")

    stub.fail("GET", "/subjects/s", (200, b"<html>"))
    with pytest.raises(InvalidResponse):
        agora.xchange.get_subject("s")
    stub.fail("GET", "/subjects/s", (200, {"data": {}}))
    with pytest.raises(InvalidResponse, match="envelope"):
        agora.xchange.get_subject("s")

    agora.orcade.jobs_by_tags(["a b", "c"], match="any")
    assert stub.seen[-1].path == "/bid-jobs/by-tags?tags=a+b%2Cc&match=any"
