"""What the routes send and return.

Request bodies are :class:`~typing.TypedDict` s: the server stores most documents as the caller
sent them, so a body is an open JSON object and a plain ``dict`` does as well as the typed one.
Answers are frozen dataclasses with the documented fields read leniently (a missing field takes
its schema default) and ``raw``, the whole document as the server sent it, unknown fields
included. Field names are the wire's, so ``job.raw["bid_job_tags"]`` and ``job.bid_job_tags``
agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NotRequired, Required, TypedDict

__all__ = [
    # Voting.
    "EvaluationSpecInput",
    "FunctionSpec",
    "ParsedTask",
    "Report",
    "SocialTaskInput",
    "SubjectSpecInput",
    "TaskBundle",
    "TaskSubmission",
    "Vote",
    "VoteReceipt",
    "VOTING_COLLECTIONS",
    # Orcade.
    "Bid",
    "BidJob",
    "BidJobInput",
    "BidTaskResult",
    "Evaluation",
    # Xchange.
    "ExchangeTask",
    "SubjectInput",
    "Subject",
    "TaskInput",
    "TaskOutput",
    "TERMINAL_TASK_STATUSES",
    "TASK_STATUSES",
]

def _dict(doc: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = doc.get(key)
    return dict(value) if isinstance(value, Mapping) else {}


def _list(doc: Mapping[str, Any], key: str) -> list[Any]:
    value = doc.get(key)
    return list(value) if isinstance(value, list) else []


def _str(doc: Mapping[str, Any], key: str, default: str = "") -> str:
    value = doc.get(key)
    return value if isinstance(value, str) else default


def _opt_str(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    return value if isinstance(value, str) else None


def _opt_int(doc: Mapping[str, Any], key: str) -> int | None:
    value = doc.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _doc(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


# ---------------------------------------------------------------------------------------------
# Voting (voting-1-3-5.md §3, voting-2-schema.md §2)
# ---------------------------------------------------------------------------------------------

#: The collections of ``POST /generic-query/{collection}``.
VOTING_COLLECTIONS: Final = (
    "social_task_core_data",
    "social_choice_subject_spec",
    "social_choice_evaluation_input",
    "votes",
)


class FunctionSpec(TypedDict, total=False):
    """Where a hook's logic lives (§2.5 and the builtin, http and lambda modes): ``mode`` and the
    fields that mode needs. ``{}`` disables the invitation creator and the tie-breaker."""

    mode: Literal["function", "dsl", "builtin", "http", "lambda"] | str
    function_id: str
    workflow_id: str
    name: str
    url: str
    function_name: str
    parameters: dict[str, Any]


class SocialTaskInput(TypedDict, total=False):
    """``social_task`` of a create request, in request keys (§2.1)."""

    created_by_subject_id: Required[str]
    created_by_subject_data: Required[dict[str, Any]]
    org_ids: Required[list[str]]
    access_type: Required[str]
    goal: Required[dict[str, Any]]
    topics: Required[list[str]]
    properties: Required[dict[str, Any]]
    creation_time: Required[str]
    scheduled_time: str
    duration: int
    status: str
    report: dict[str, Any]
    enable_live_streaming: bool


class SubjectSpecInput(TypedDict, total=False):
    """``subject_spec`` of a create request, in request keys (§2.2)."""

    title: Required[str]
    description: Required[str]
    voting_options: Required[dict[str, Any]]
    voting_metadata: Required[dict[str, Any]]
    supported_protocols: Required[list[str]]
    voting_request: Required[FunctionSpec]


class EvaluationSpecInput(TypedDict, total=False):
    """``evaluation_spec`` of a create request, in request keys (§2.3)."""

    constraints_primary: Required[str]
    constraints_secondary: Required[str]
    voting_pqt: Required[FunctionSpec]
    evaluation: Required[FunctionSpec]
    tie_breaker: Required[FunctionSpec]
    post_award: Required[FunctionSpec]


class TaskSubmission(TypedDict):
    """The body of ``POST /submit-social-choice-task`` and ``/parse-social-choice-task``."""

    social_task: SocialTaskInput
    subject_spec: SubjectSpecInput
    evaluation_spec: EvaluationSpecInput


@dataclass(frozen=True)
class VoteReceipt:
    """The answer of ``POST /submit-vote``: ``status`` (``"accepted"``) and the PQT's verdict."""

    status: str
    qualified: bool
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> VoteReceipt:
        """Reads the answer."""
        return cls(status=_str(doc, "status"), qualified=bool(doc.get("qualified")), raw=_doc(doc))


@dataclass(frozen=True)
class Vote:
    """A stored vote (§2.4)."""

    vote_id: str
    social_task_id: str
    submitter_subject_id: str
    vote_data: dict[str, Any]
    submission_time: str | None
    qualified: bool
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Vote:
        """Reads a stored vote."""
        return cls(
            vote_id=_str(doc, "vote_id"),
            social_task_id=_str(doc, "social_task_id"),
            submitter_subject_id=_str(doc, "submitter_subject_id"),
            vote_data=_dict(doc, "vote_data"),
            submission_time=_opt_str(doc, "submission_time"),
            qualified=bool(doc.get("qualified")),
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class Report:
    """A task's ``report_json`` (§2.6); empty (``complete`` false) before the evaluation."""

    winners: list[str]
    post_award_payload: dict[str, Any]
    dsl_outputs: dict[str, Any]
    votes: list[Vote]
    task: dict[str, Any]
    subject_spec: dict[str, Any]
    evaluation_spec: dict[str, Any]
    evaluated_at: str | None
    raw: dict[str, Any] = field(repr=False)

    @property
    def complete(self) -> bool:
        """Whether the evaluation wrote this report (before it, the report is ``{}``)."""
        return bool(self.raw)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Report:
        """Reads a report."""
        return cls(
            winners=[w for w in _list(doc, "winners") if isinstance(w, str)],
            post_award_payload=_dict(doc, "post_award_payload"),
            dsl_outputs=_dict(doc, "dsl_outputs"),
            votes=[Vote.from_dict(v) for v in _list(doc, "votes") if isinstance(v, Mapping)],
            task=_dict(doc, "task"),
            subject_spec=_dict(doc, "subject_spec"),
            evaluation_spec=_dict(doc, "evaluation_spec"),
            evaluated_at=_opt_str(doc, "evaluated_at"),
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class TaskBundle:
    """The answer of ``GET /get-full-task-bundle/{id}``: the three stored documents of a task
    and all its votes, qualified or not."""

    task: dict[str, Any]
    subject_spec: dict[str, Any]
    evaluation_input: dict[str, Any]
    votes: list[Vote]
    raw: dict[str, Any] = field(repr=False)

    @property
    def status(self) -> str | None:
        """The task's ``status``."""
        return _opt_str(self.task, "status")

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> TaskBundle:
        """Reads a bundle."""
        return cls(
            task=_dict(doc, "task"),
            subject_spec=_dict(doc, "subject_spec"),
            evaluation_input=_dict(doc, "evaluation_input"),
            votes=[Vote.from_dict(v) for v in _list(doc, "votes") if isinstance(v, Mapping)],
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class ParsedTask:
    """The answer of ``POST /parse-social-choice-task``: the three documents as they would be
    stored (stored field names, a fresh ``social_task_id`` that is not kept)."""

    social_task: dict[str, Any]
    subject_spec: dict[str, Any]
    evaluation_spec: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ParsedTask:
        """Reads the answer (``{"parsed": {...}}``)."""
        parsed = _dict(doc, "parsed")
        return cls(
            social_task=_dict(parsed, "social_task"),
            subject_spec=_dict(parsed, "subject_spec"),
            evaluation_spec=_dict(parsed, "evaluation_spec"),
            raw=_doc(doc),
        )


# ---------------------------------------------------------------------------------------------
# Orcade (orcade-1-3-5.md §3, orcade-2-schema.md §2)
# ---------------------------------------------------------------------------------------------


class BidJobInput(TypedDict, total=False):
    """The body of ``POST /bid-jobs`` (§2.1). Only the evaluator and the creator are required;
    a closed or mixed job needs its roster, an open one ``bid_job_max_subjects`` or
    ``bid_job_max_time``. The server refuses any other key."""

    bid_job_evaluator_id: Required[str]
    bid_job_creator_id: Required[str]
    bid_job_id: str
    bid_job_name: dict[str, Any]
    bid_job_description: dict[str, Any]
    bid_job_metadata: dict[str, Any]
    bid_job_pqt_id: str
    bid_job_tie_id: str
    bid_job_subject_ids: list[str]
    bid_job_mode: Literal["closed", "open", "mixed"] | str
    bid_job_max_subjects: int
    bid_job_max_time: int
    bid_job_tags: list[str]


@dataclass(frozen=True)
class BidJob:
    """A stored bid job (§2.1)."""

    bid_job_id: str
    bid_job_name: dict[str, Any]
    bid_job_description: dict[str, Any]
    bid_job_metadata: dict[str, Any]
    bid_job_evaluator_id: str
    bid_job_pqt_id: str
    bid_job_tie_id: str
    bid_job_creator_id: str
    bid_job_subject_ids: list[str]
    bid_job_mode: str
    bid_job_max_subjects: int | None
    bid_job_max_time: int | None
    bid_job_status: str
    bid_job_created_time: str | None
    bid_job_closes_at: str | None
    bid_job_tags: list[str]
    raw: dict[str, Any] = field(repr=False)

    @property
    def is_open(self) -> bool:
        """Whether the job still takes bids (``bid_job_status == "open"``)."""
        return self.bid_job_status == "open"

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> BidJob:
        """Reads a stored job."""
        return cls(
            bid_job_id=_str(doc, "bid_job_id"),
            bid_job_name=_dict(doc, "bid_job_name"),
            bid_job_description=_dict(doc, "bid_job_description"),
            bid_job_metadata=_dict(doc, "bid_job_metadata"),
            bid_job_evaluator_id=_str(doc, "bid_job_evaluator_id"),
            bid_job_pqt_id=_str(doc, "bid_job_pqt_id"),
            bid_job_tie_id=_str(doc, "bid_job_tie_id"),
            bid_job_creator_id=_str(doc, "bid_job_creator_id"),
            bid_job_subject_ids=_list(doc, "bid_job_subject_ids"),
            bid_job_mode=_str(doc, "bid_job_mode", "closed"),
            bid_job_max_subjects=_opt_int(doc, "bid_job_max_subjects"),
            bid_job_max_time=_opt_int(doc, "bid_job_max_time"),
            bid_job_status=_str(doc, "bid_job_status", "open"),
            bid_job_created_time=_opt_str(doc, "bid_job_created_time"),
            bid_job_closes_at=_opt_str(doc, "bid_job_closes_at"),
            bid_job_tags=_list(doc, "bid_job_tags"),
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class Bid:
    """A stored bid (§2.2). A bid the PQT refused on a closed or mixed job is kept with
    ``bid_data.bid_rejected`` and ``bid_data.pqt_reason`` (see :attr:`rejected`)."""

    bid_id: str
    bid_job_id: str
    bid_subject_id: str
    bid_data: dict[str, Any]
    submission_time: str | None
    is_winner: bool
    raw: dict[str, Any] = field(repr=False)

    @property
    def rejected(self) -> bool:
        """Whether the PQT refused this bid."""
        return self.bid_data.get("bid_rejected") is True

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Bid:
        """Reads a stored bid."""
        return cls(
            bid_id=_str(doc, "bid_id"),
            bid_job_id=_str(doc, "bid_job_id"),
            bid_subject_id=_str(doc, "bid_subject_id"),
            bid_data=_dict(doc, "bid_data"),
            submission_time=_opt_str(doc, "submission_time"),
            is_winner=doc.get("is_winner") is True,
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class BidTaskResult:
    """One delegate round trip of a job (§2.3): a ``bid_request`` or ``bid_winner`` and the
    delegate's reply, verbatim, in ``task_result``; a ``bid_winner`` also carries the
    evaluator's output in ``evaluator_output``."""

    bid_task_result_id: str
    bid_job_id: str
    bid_subject_id: str
    task_type: str
    task_result: dict[str, Any]
    created_time: str | None
    evaluator_output: dict[str, Any] | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> BidTaskResult:
        """Reads a stored task result."""
        output = doc.get("evaluator_output")
        return cls(
            bid_task_result_id=_str(doc, "bid_task_result_id"),
            bid_job_id=_str(doc, "bid_job_id"),
            bid_subject_id=_str(doc, "bid_subject_id"),
            task_type=_str(doc, "task_type"),
            task_result=_dict(doc, "task_result"),
            created_time=_opt_str(doc, "created_time"),
            evaluator_output=dict(output) if isinstance(output, Mapping) else None,
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class Evaluation:
    """A job's recorded decision (``GET /bid-jobs/{id}/evaluation``, Agora's route beyond §3).

    ``kind`` is ``"winner"``, ``"no_valid_bids"`` or ``"failed"``; ``orcade_evaluation`` is
    ``"decided"`` once the decision is recorded and ``"applied"`` once the winner's bid is marked
    and the job closed (see :attr:`applied`)."""

    bid_job_id: str
    kind: str
    winner_subject_id: str | None
    bid_id: str | None
    evaluator_output: dict[str, Any] | None
    error: str | None
    orcade_evaluation: str
    decided_at: str | None
    raw: dict[str, Any] = field(repr=False)

    @property
    def applied(self) -> bool:
        """Whether the decision has been carried out (winner marked, job closed)."""
        return self.orcade_evaluation == "applied"

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Evaluation:
        """Reads an evaluation record."""
        decision = _dict(doc, "decision")
        output = decision.get("evaluator_output")
        return cls(
            bid_job_id=_str(doc, "bid_job_id"),
            kind=_str(decision, "kind"),
            winner_subject_id=_opt_str(decision, "winner_subject_id"),
            bid_id=_opt_str(decision, "bid_id"),
            evaluator_output=dict(output) if isinstance(output, Mapping) else None,
            error=_opt_str(decision, "error"),
            orcade_evaluation=_str(doc, "orcade_evaluation"),
            decided_at=_opt_str(doc, "decided_at"),
            raw=_doc(doc),
        )


# ---------------------------------------------------------------------------------------------
# Xchange (xchange-1-3-5.md §1, §3, xchange-2-schema.md §2)
# ---------------------------------------------------------------------------------------------

#: Every ``task_assignment_status``.
TASK_STATUSES: Final = frozenset({"pending", "assigned", "bidding", "completed", "failed", "rejected"})
#: The final statuses: no assignment work changes the task again.
TERMINAL_TASK_STATUSES: Final = frozenset({"completed", "failed", "rejected"})


class TaskInput(TypedDict):
    """The body of ``POST /tasks``. ``task_metadata.task_assignment`` carries the mode's
    parameters (``{"subject_id"}`` for direct, ``{"function_id", "parameters"?}`` for function,
    ``{}`` for open, ``{"bid_job_evaluator_id", ...}`` for bidding)."""

    task_assignment_type: Literal["direct", "function", "open", "bidding"] | str
    task_data: Any
    task_id: NotRequired[str]
    task_assignment_status: NotRequired[str]
    task_metadata: NotRequired[dict[str, Any]]


@dataclass(frozen=True)
class ExchangeTask:
    """A stored task (§2.1). ``taski_creation_time`` is spelt as the API spells it."""

    task_id: str
    task_assignment_type: str
    task_data: Any
    task_assignment_status: str
    task_metadata: dict[str, Any]
    taski_creation_time: str | None
    task_output: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)

    @property
    def bid_job_id(self) -> str | None:
        """Bidding mode: the id of the Orcade bid job opened for this task, once it is."""
        return _opt_str(self.task_metadata, "bid_job_id")

    @property
    def terminal(self) -> bool:
        """Whether the status is final (``completed``, ``failed`` or ``rejected``)."""
        return self.task_assignment_status in TERMINAL_TASK_STATUSES

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> ExchangeTask:
        """Reads a stored task."""
        return cls(
            task_id=_str(doc, "task_id"),
            task_assignment_type=_str(doc, "task_assignment_type"),
            task_data=doc.get("task_data"),
            task_assignment_status=_str(doc, "task_assignment_status", "pending"),
            task_metadata=_dict(doc, "task_metadata"),
            taski_creation_time=_opt_str(doc, "taski_creation_time"),
            task_output=_dict(doc, "task_output"),
            raw=_doc(doc),
        )


@dataclass(frozen=True)
class TaskOutput:
    """The answer of ``GET /tasks/{id}/output``: the status and ``task_output`` (the delegate's
    reply, Orcade's ``bid_winner`` result in bidding mode, or ``{"error": ...}``)."""

    task_assignment_status: str
    task_output: dict[str, Any]
    raw: dict[str, Any] = field(repr=False)

    @property
    def terminal(self) -> bool:
        """Whether the status is final (``completed``, ``failed`` or ``rejected``)."""
        return self.task_assignment_status in TERMINAL_TASK_STATUSES

    @property
    def error(self) -> str | None:
        """``task_output.error`` of a failed or rejected task."""
        return _opt_str(self.task_output, "error")

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> TaskOutput:
        """Reads the answer."""
        return cls(
            task_assignment_status=_str(doc, "task_assignment_status"),
            task_output=_dict(doc, "task_output"),
            raw=_doc(doc),
        )


class SubjectInput(TypedDict, total=False):
    """The body of ``POST /subjects``: any of the five fields (``{}`` is valid; a missing
    ``subject_id`` is generated)."""

    subject_id: str
    subject_metadata: dict[str, Any]
    task_evaluation_function: str
    subject_capabilities: dict[str, Any]
    topics: list[str]


@dataclass(frozen=True)
class Subject:
    """A subject (agent) registered with the exchange (§2.2)."""

    subject_id: str
    subject_metadata: dict[str, Any]
    task_evaluation_function: str
    subject_capabilities: dict[str, Any]
    topics: list[str]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Subject:
        """Reads a stored subject."""
        return cls(
            subject_id=_str(doc, "subject_id"),
            subject_metadata=_dict(doc, "subject_metadata"),
            task_evaluation_function=_str(doc, "task_evaluation_function"),
            subject_capabilities=_dict(doc, "subject_capabilities"),
            topics=_list(doc, "topics"),
            raw=_doc(doc),
        )
