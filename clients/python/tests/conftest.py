"""Fixtures: the real local server (``agora-local``) for the whole session, a client on it, and
helpers to read its local inbox and to wait for asynchronous work.

The binary is ``$AGORA_LOCAL_BIN``, by default ``target/debug/agora-local`` of the repository
(build it with ``cargo build --locked -p agora-local``). It is started on a free port
(``--port 0``, the address read from its ``agora-local listening on http://...`` line), with a
fresh data folder, a 200 ms sweep and no local function registry, and stopped at the end.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _support import REPO_ROOT

from agora_client import Agora

STARTUP_TIMEOUT = 30.0

# Settings of the caller's environment that would point the server elsewhere (another store,
# a delegate, an Orcade, authentication): the server under test gets none of them.
_FOREIGN_ENV = re.compile(
    r"^(AGORA_(?!PYTHON$).*|DELEGATE_API_URL|ORCADE_URL|EXCHANGE_ID|FUNCTIONS_REGISTRY_URL|WORKFLOWS_API_URL|MONGODB_URI|MONGO_URL)$"
)


def _binary() -> Path:
    configured = os.environ.get("AGORA_LOCAL_BIN")
    binary = Path(configured) if configured else REPO_ROOT / "target" / "debug" / "agora-local"
    if not binary.is_absolute():
        binary = REPO_ROOT / binary
    if not binary.is_file():
        pytest.fail(f"no agora-local binary at {binary}: run `cargo build --locked -p agora-local` or set AGORA_LOCAL_BIN")
    return binary


def _get_json(url: str, timeout: float = 5.0) -> tuple[int, Any]:
    """GET ``url`` with plain urllib: the status and decoded body."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read() or b"null")


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a fresh ``agora-local``, started for the session."""
    workdir = tmp_path_factory.mktemp("agora-local")
    env = {k: v for k, v in os.environ.items() if not _FOREIGN_ENV.match(k)}
    env.setdefault("RUST_LOG", "warn")
    stdout_path, stderr_path = workdir / "stdout.log", workdir / "stderr.log"
    args = [
        str(_binary()),
        "--port", "0",
        "--bind", "127.0.0.1",
        "--store", "embedded",
        "--data-dir", str(workdir / "data"),
        "--sweep-interval-ms", "200",
        "--retry-delay-ms", "200",
        "--functions-dir", "",
    ]
    with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(args, cwd=workdir, env=env, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL)
    try:
        url = _wait_until_serving(process, stdout_path, stderr_path)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_serving(process: subprocess.Popen[bytes], stdout_path: Path, stderr_path: Path) -> str:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    url = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"agora-local exited with {process.returncode}:\n{stderr_path.read_text(errors='replace')[-4000:]}")
        if url is None:
            found = re.search(r"agora-local listening on (http://\S+)", stdout_path.read_text(errors="replace"))
            url = found.group(1) if found else None
        if url is not None:
            try:
                status, body = _get_json(url + "/healthz", timeout=2)
                if status == 200 and body.get("status") == "ok":
                    return url
            except OSError:
                pass
        time.sleep(0.05)
    pytest.fail(f"agora-local did not answer /healthz within {STARTUP_TIMEOUT} s:\n{stderr_path.read_text(errors='replace')[-4000:]}")


@pytest.fixture
def agora(server_url: str) -> Agora:
    """A client on the session's server."""
    return Agora(server_url, timeout=10)


@pytest.fixture
def uid() -> str:
    """A short unique suffix, so that each test's subjects, tags and topics are its own."""
    return uuid.uuid4().hex[:8]


@pytest.fixture
def inbox(server_url: str) -> Callable[[str], list[dict[str, Any]]]:
    """Reads ``GET /local/inbox/{subject}`` (a local-server-only route) with plain urllib."""

    def read(subject: str) -> list[dict[str, Any]]:
        status, body = _get_json(f"{server_url}/local/inbox/{urllib.parse.quote(subject, safe='')}")
        assert status == 200, body
        return list(body)

    return read
