"""Polling until a condition holds, for the ``wait_for_*`` helpers."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from .errors import WaitTimeout

T = TypeVar("T")


def poll(fetch: Callable[[], T], done: Callable[[T], bool], *, timeout: float, interval: float, what: str) -> T:
    """Calls ``fetch`` every ``interval`` seconds until ``done`` holds for what it returned, and
    returns that. Any exception of ``fetch`` ends the wait (a 404, say). After ``timeout``
    seconds raises :class:`WaitTimeout` naming ``what``, with the last value seen."""
    if timeout < 0 or interval <= 0:
        raise ValueError("timeout must be >= 0 and interval > 0")
    deadline = time.monotonic() + timeout
    while True:
        value = fetch()
        if done(value):
            return value
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise WaitTimeout(f"timed out after {timeout:g} s waiting for {what}", last=value)
        time.sleep(min(interval, remaining))
