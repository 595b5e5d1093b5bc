"""Fixtures of the deployed-shape suite: the issuer and delegate system outside the stack, and
the stack itself (template.yaml deployed by the harness on moto and the MongoDB-protocol
server, the functions' built binaries as processes).

Options (or environment): --store mongodb|dynamodb (AGORA_DEPLOYED_STORE), --bin-dir DIR
(AGORA_DEPLOYED_BIN_DIR; default ${CARGO_TARGET_DIR:-target}/lambda, the layout of
`cargo lambda build`), --sweep-seconds S (the rate rules' period in the fast suite, default 1).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness.client import Deployed  # noqa: E402
from harness.outside import Outside  # noqa: E402
from harness.stack import Stack, default_bin_dir  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--store", default=os.environ.get("AGORA_DEPLOYED_STORE", "mongodb"), choices=["mongodb", "dynamodb"])
    parser.addoption("--bin-dir", default=os.environ.get("AGORA_DEPLOYED_BIN_DIR", str(default_bin_dir())))
    parser.addoption("--sweep-seconds", type=float, default=float(os.environ.get("AGORA_DEPLOYED_SWEEP_SECONDS", "1")))


def pytest_configure(config):
    config.addinivalue_line("markers", "real_rate: runs the rate rules at the template's real rate (a minute); run with -m real_rate")


@pytest.fixture(scope="session")
def store(request) -> str:
    return request.config.getoption("--store")


@pytest.fixture(scope="session")
def bin_dir(request) -> Path:
    return Path(request.config.getoption("--bin-dir")).resolve()


@pytest.fixture(scope="session")
def outside():
    o = Outside().start()
    yield o
    o.stop()


@pytest.fixture(scope="session")
def deploy(store, bin_dir, request):
    """`deploy(parameters, **stack options)`: a started stack (a Deployed), stopped at the end
    of the test that made it (every process killed, every moto resource deleted)."""
    made: list[Deployed] = []

    def make(parameters: dict | None = None, **options) -> Deployed:
        options.setdefault("store", store)
        options.setdefault("bin_dir", bin_dir)
        options.setdefault("sweep_seconds", request.config.getoption("--sweep-seconds"))
        d = Deployed(Stack(parameters=dict(parameters or {}), **options)).start()
        made.append(d)
        return d

    yield make
    for d in made:
        if d.thread.is_alive():
            d.stop()


@pytest.fixture(scope="session")
def main_parameters(outside):
    return {**outside.auth_parameters(), "DelegateApiUrl": outside.delegate_url, "DelegateTimeoutMs": "10000"}


@pytest.fixture(scope="session")
def stack(store, bin_dir, outside, main_parameters, request) -> Deployed:
    """The suite's stack: authentication on (the template's default) with the test issuer, the
    delegate system at the test server, the rate rules every --sweep-seconds."""
    d = Deployed(Stack(parameters={**main_parameters, "ExchangeId": f"dt{os.getpid()}"}, store=store, bin_dir=bin_dir, sweep_seconds=request.config.getoption("--sweep-seconds")))
    d.start()
    yield d
    d.stop()


@pytest.fixture(scope="session")
def admin(outside) -> str:
    """An operator's token (RS256, the agora:admin scope): may act as any subject."""
    return outside.token("operator", scope="agora:admin", ttl=3600)


def pytest_runtest_makereport(item, call):
    # On a failure, point at the functions' logs of the stacks alive.
    if call.when == "call" and call.excinfo is not None:
        for name in ("stack",):
            d = item.funcargs.get(name)
            if isinstance(d, Deployed):
                item.add_report_section("call", "stack", f"logs: {d.stack.log_dir}\nnotes: {d.stack.notes[-10:]}")
