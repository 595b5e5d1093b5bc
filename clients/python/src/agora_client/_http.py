"""The transport: JSON over HTTP with ``urllib.request``, errors turned into exceptions, and
retries for the requests where a retry is safe.

A request is *safe* when sending it twice has the effect of sending it once: the reads (GET) and
the read-only query routes (``POST .../query``, ``POST /generic-query/...``). Only safe requests
are retried, on a connection error (refused, reset, time limit) and on 502, 503 and 504, with
exponential backoff. Writes (create, vote, bid, close, patch, delete) are sent once: a write that
failed on the way may still have been done, and only the caller can tell whether to send it again.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from .errors import AgoraError, InvalidResponse, TransportError, error_for_status

__all__ = ["RETRY_STATUSES", "Transport", "path"]

#: The statuses a safe request is retried on: the gateway and overload answers.
RETRY_STATUSES: Final = frozenset({502, 503, 504})

USER_AGENT: Final = "agora-client/0.1.0 (python)"


def path(*segments: str) -> str:
    """A URL path from its segments, each percent-encoded whole (a ``/`` or ``?`` in an id stays
    part of that id): ``path("bid-jobs", "a/b", "bids")`` is ``/bid-jobs/a%2Fb/bids``."""
    return "".join("/" + urllib.parse.quote(s, safe="") for s in segments)


@dataclass(frozen=True)
class _Answer:
    """One answer of the server: its status, ``Retry-After`` header and body bytes."""

    status: int
    retry_after: str | None
    body: bytes


class Transport:
    """Sends JSON requests to one Agora server and decodes its answers.

    ``base_url`` is the server's root (``http://127.0.0.1:8080``, or an API Gateway stage URL).
    ``token``, when given, is sent as ``Authorization: Bearer <token>`` on every request.
    ``timeout`` is the time limit of one attempt, in seconds. A safe request is tried up to
    ``1 + retries`` times; the n-th retry waits ``backoff * 2**(n-1)`` seconds (at most
    ``max_backoff``, with a little jitter; a ``Retry-After`` in seconds is honoured up to
    ``max_backoff``).
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff: float = 0.25,
        max_backoff: float = 4.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        self.base_url: str = base_url.rstrip("/")
        self.token: str | None = token
        self.timeout: float = timeout
        self.retries: int = max(0, retries)
        self.backoff: float = backoff
        self.max_backoff: float = max_backoff
        self.headers: dict[str, str] = dict(headers or {})
        self._opener = urllib.request.build_opener()

    def __repr__(self) -> str:
        return f"Transport({self.base_url!r})"

    def call(
        self,
        method: str,
        route: str,
        *,
        body: Any = None,
        query: Mapping[str, str | int | None] | None = None,
        safe: bool,
        envelope: bool,
    ) -> Any:
        """Sends ``method route`` (``route`` already percent-encoded, see :func:`path`) with
        ``body`` as JSON (``None``: no body) and the ``query`` parameters whose value is not
        ``None``, and returns the answer's decoded JSON; with ``envelope``, the ``data`` of
        Orcade's and Xchange's ``{"ok": true, "data": ...}``. An error answer raises the
        :class:`~agora_client.errors.AgoraError` of its status; ``safe`` allows retries."""
        return self._call(method, route, body, query, safe, envelope)[1]

    def call_object(
        self,
        method: str,
        route: str,
        *,
        body: Any = None,
        query: Mapping[str, str | int | None] | None = None,
        safe: bool,
        envelope: bool,
    ) -> dict[str, Any]:
        """:meth:`call` for a route that answers a JSON object
        (:class:`~agora_client.errors.InvalidResponse` otherwise)."""
        status, data = self._call(method, route, body, query, safe, envelope)
        if not isinstance(data, dict):
            raise InvalidResponse(status, f"{method} {route}: expected a JSON object, got {type(data).__name__}", data)
        return data

    def call_list(
        self,
        method: str,
        route: str,
        *,
        body: Any = None,
        query: Mapping[str, str | int | None] | None = None,
        safe: bool,
        envelope: bool,
    ) -> list[dict[str, Any]]:
        """:meth:`call` for a route that answers a JSON array of objects
        (:class:`~agora_client.errors.InvalidResponse` otherwise)."""
        status, data = self._call(method, route, body, query, safe, envelope)
        if not (isinstance(data, list) and all(isinstance(d, dict) for d in data)):
            raise InvalidResponse(status, f"{method} {route}: expected a JSON array of objects", data)
        return data

    def _call(
        self, method: str, route: str, body: Any, query: Mapping[str, str | int | None] | None, safe: bool, envelope: bool
    ) -> tuple[int, Any]:
        answer = self._send_with_retries(method, self._url(route, query), body, safe)
        return answer.status, self._decode(answer, envelope)

    # Sending.

    def _url(self, route: str, query: Mapping[str, str | int | None] | None) -> str:
        url = self.base_url + route
        params = {k: str(v) for k, v in (query or {}).items() if v is not None}
        return f"{url}?{urllib.parse.urlencode(params)}" if params else url

    def _send_with_retries(self, method: str, url: str, body: Any, safe: bool) -> _Answer:
        data = None if body is None else json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
        attempt = 0
        while True:
            try:
                answer = self._send(method, url, data)
            except TransportError:
                if not safe or attempt >= self.retries:
                    raise
                self._pause(attempt, None)
            else:
                if not (safe and answer.status in RETRY_STATUSES and attempt < self.retries):
                    return answer
                self._pause(attempt, answer.retry_after)
            attempt += 1

    def _send(self, method: str, url: str, data: bytes | None) -> _Answer:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT, **self.headers}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    return _Answer(response.status, response.headers.get("Retry-After"), response.read())
            except urllib.error.HTTPError as error:
                with error:
                    return _Answer(error.code, error.headers.get("Retry-After"), error.read())
        except (OSError, http.client.HTTPException) as error:
            reason = getattr(error, "reason", None) or error
            raise TransportError(f"{method} {url} failed: {reason}") from error

    def _pause(self, attempt: int, retry_after: str | None) -> None:
        delay = min(self.max_backoff, self.backoff * 2**attempt) * random.uniform(0.8, 1.2)
        if retry_after is not None and retry_after.strip().isdigit():
            delay = max(delay, min(self.max_backoff, float(retry_after.strip())))
        time.sleep(delay)

    # Decoding.

    @staticmethod
    def _decode(answer: _Answer, envelope: bool) -> Any:
        text = answer.body.decode("utf-8", errors="replace")
        try:
            doc: Any = json.loads(text) if text.strip() else None
            decoded = True
        except ValueError:
            doc, decoded = text, False
        if not 200 <= answer.status < 300:
            raise error_for_status(answer.status, _error_message(answer.status, doc), doc)
        if not decoded:
            raise InvalidResponse(answer.status, f"the answer is not JSON: {text[:200]!r}", text)
        if not envelope:
            return doc
        if not isinstance(doc, dict) or "ok" not in doc:
            raise InvalidResponse(answer.status, "the answer is not an {\"ok\": ...} envelope", doc)
        if doc["ok"] is not True:
            raise AgoraError(answer.status, _error_message(answer.status, doc), doc)
        return doc.get("data")


def _error_message(status: int, doc: Any) -> str:
    """The message of an error answer: its ``error`` (both shapes carry one), else the text,
    else the status."""
    if isinstance(doc, dict) and isinstance(doc.get("error"), str):
        return str(doc["error"])
    if isinstance(doc, str) and doc.strip():
        return doc.strip()[:500]
    if doc is not None and not isinstance(doc, str):
        return json.dumps(doc)[:500]
    return f"HTTP {status} {http.client.responses.get(status, '')}".strip()
