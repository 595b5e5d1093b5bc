"""A typed client for Agora's HTTP APIs: voting, Orcade (bidding) and Xchange (task exchange).

>>> from agora_client import Agora
>>> agora = Agora("http://127.0.0.1:8080")                     # doctest: +SKIP
>>> agora.voting.get_status("task_3f9c6d2e")                    # doctest: +SKIP
'started'

Only the standard library is used (``urllib.request``). Errors are
:class:`~agora_client.errors.AgoraError` s; reads are retried on connection errors and
502/503/504, writes never (see :mod:`agora_client._http`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ._http import RETRY_STATUSES, Transport
from .errors import (
    AgoraError,
    BadRequest,
    Conflict,
    Forbidden,
    InvalidResponse,
    NotFound,
    PayloadTooLarge,
    ServerError,
    TransportError,
    Unauthorized,
    WaitTimeout,
)
from .models import (
    TERMINAL_TASK_STATUSES,
    VOTING_COLLECTIONS,
    Bid,
    BidJob,
    BidJobInput,
    BidTaskResult,
    Evaluation,
    EvaluationSpecInput,
    ExchangeTask,
    FunctionSpec,
    ParsedTask,
    Report,
    SocialTaskInput,
    Subject,
    SubjectInput,
    SubjectSpecInput,
    TaskBundle,
    TaskInput,
    TaskOutput,
    TaskSubmission,
    Vote,
    VoteReceipt,
)
from .orcade import OrcadeClient
from .voting import VotingClient
from .xchange import XchangeClient

__version__ = "0.1.0"

__all__ = [
    "Agora",
    "AgoraError",
    "BadRequest",
    "Bid",
    "BidJob",
    "BidJobInput",
    "BidTaskResult",
    "Conflict",
    "Evaluation",
    "EvaluationSpecInput",
    "ExchangeTask",
    "Forbidden",
    "FunctionSpec",
    "InvalidResponse",
    "NotFound",
    "OrcadeClient",
    "ParsedTask",
    "PayloadTooLarge",
    "RETRY_STATUSES",
    "Report",
    "ServerError",
    "SocialTaskInput",
    "Subject",
    "SubjectInput",
    "SubjectSpecInput",
    "TERMINAL_TASK_STATUSES",
    "TaskBundle",
    "TaskInput",
    "TaskOutput",
    "TaskSubmission",
    "Transport",
    "TransportError",
    "Unauthorized",
    "VOTING_COLLECTIONS",
    "Vote",
    "VoteReceipt",
    "VotingClient",
    "WaitTimeout",
    "XchangeClient",
    "__version__",
]


class Agora:
    """The three services of one Agora server (or one deployed stack): ``.voting``,
    ``.orcade`` and ``.xchange``, sharing one :class:`Transport`.

    ``base_url`` is the server's root URL; ``token`` a bearer token sent on every request
    (where authentication is on); ``timeout`` the time limit of one attempt in seconds;
    ``retries`` how many times a safe request (a read) is tried again on a connection error or
    502/503/504 (writes never are); ``headers`` extra headers for every request.
    """

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        timeout: float = 30.0,
        *,
        retries: int = 3,
        backoff: float = 0.25,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.transport: Transport = Transport(
            base_url, token=token, timeout=timeout, retries=retries, backoff=backoff, headers=headers
        )
        self.voting: VotingClient = VotingClient(self.transport)
        self.orcade: OrcadeClient = OrcadeClient(self.transport)
        self.xchange: XchangeClient = XchangeClient(self.transport)

    def __repr__(self) -> str:
        return f"Agora({self.transport.base_url!r})"
