"""Helpers shared by the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")

#: The repository's root (clients/python/tests/ is three levels below it).
REPO_ROOT = Path(__file__).resolve().parents[3]


def eventually(check: Callable[[], T], *, timeout: float = 15.0, interval: float = 0.1, what: str = "the condition") -> T:
    """Calls ``check`` until it returns a truthy value (assertion errors count as not yet), and
    returns that value; fails the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            value = check()
            if value:
                return value
            last = value
        except AssertionError as error:
            last = error
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}; last: {last!r}")
        time.sleep(interval)
