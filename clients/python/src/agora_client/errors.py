"""The exceptions the client raises.

Every failure is an :class:`AgoraError`. An answer of the server with an error status becomes
the subclass for that status (:class:`NotFound` for 404, :class:`Conflict` for 409, ...), whose
``message`` is the server's own words: voting's ``{"error": "..."}``, or the ``error`` of Orcade's
and Xchange's envelope ``{"ok": false, "error": "..."}``. A request that got no answer at all
(refused connection, reset, time limit) is a :class:`TransportError`; an answer that is not what
the API promises is an :class:`InvalidResponse`; a wait helper that runs out of time raises
:class:`WaitTimeout`.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AgoraError",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "InvalidResponse",
    "NotFound",
    "PayloadTooLarge",
    "ServerError",
    "TransportError",
    "Unauthorized",
    "WaitTimeout",
    "error_for_status",
]


class AgoraError(Exception):
    """Any failure of a call to Agora.

    ``status`` is the HTTP status of the server's answer (``None`` when there was none),
    ``message`` what went wrong in the server's words (or the client's when the server said
    nothing usable), and ``body`` the answer's body as it came: the decoded JSON when it was
    JSON, else the text (``None`` when there was no answer).
    """

    status: int | None
    message: str
    body: Any

    def __init__(self, status: int | None, message: str, body: Any = None) -> None:
        super().__init__(status, message, body)
        self.status = status
        self.message = message
        self.body = body

    def __str__(self) -> str:
        return f"{self.status}: {self.message}" if self.status is not None else self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, message={self.message!r})"


class BadRequest(AgoraError):
    """400: the request was malformed; the message names the field or parameter."""


class Unauthorized(AgoraError):
    """401: authentication is on and the request had no valid bearer token."""


class Forbidden(AgoraError):
    """403: the caller may not do this (not on the roster, not the creator, ...)."""


class NotFound(AgoraError):
    """404: no such task, job, bid, subject or route."""


class Conflict(AgoraError):
    """409: the request conflicts with the current state (already voted, PQT refusal, job
    closed or full, id taken, ...)."""


class PayloadTooLarge(AgoraError):
    """413: the request body is over the server's limit."""


class ServerError(AgoraError):
    """5xx: the server failed (its message is usually just ``Internal server error``)."""


class TransportError(AgoraError):
    """No answer from the server: the connection was refused or broken, or the time limit passed.
    ``status`` is ``None``; ``__cause__`` holds the underlying exception."""

    def __init__(self, message: str) -> None:
        super().__init__(None, message, None)


class InvalidResponse(AgoraError):
    """The server answered, but not as the API promises (not JSON, or an envelope without
    ``ok``)."""


class WaitTimeout(AgoraError, TimeoutError):
    """A wait helper ran out of time. ``last`` is the last state it saw (``None`` if none)."""

    last: Any

    def __init__(self, message: str, last: Any = None) -> None:
        super().__init__(None, message, None)
        self.last = last


_BY_STATUS: dict[int, type[AgoraError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
}


def error_for_status(status: int, message: str, body: Any = None) -> AgoraError:
    """The exception for an error answer of ``status``: its subclass, or :class:`ServerError`
    for 5xx, or plain :class:`AgoraError` for any other status."""
    if status >= 500:
        return ServerError(status, message, body)
    return _BY_STATUS.get(status, AgoraError)(status, message, body)
