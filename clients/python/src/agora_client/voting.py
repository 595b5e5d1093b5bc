"""The voting (social choice) service: every route of voting-1-3-5.md §3.

Voting answers errors as ``{"error": "<message>"}`` and successes as bare JSON (no envelope).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ._http import Transport, path
from ._wait import poll
from .models import ParsedTask, Report, TaskBundle, TaskSubmission, VoteReceipt

__all__ = ["VotingClient"]


class VotingClient:
    """The routes of the voting service. Reads and ``generic_query`` are retried on connection
    errors and 502/503/504; ``submit_task`` and ``submit_vote`` are sent once."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def __repr__(self) -> str:
        return f"VotingClient({self._http.base_url!r})"

    def _read(self, route: str) -> dict[str, Any]:
        return self._http.call_object("GET", route, safe=True, envelope=False)

    # Writes.

    def submit_task(self, task: TaskSubmission | Mapping[str, Any]) -> str:
        """``POST /submit-social-choice-task``: stores a task (the three objects
        ``social_task``, ``subject_spec``, ``evaluation_spec`` in request keys) and returns its
        ``social_task_id``. Not retried."""
        answer = self._http.call_object("POST", "/submit-social-choice-task", body=dict(task), safe=False, envelope=False)
        return str(answer["social_task_id"])

    def parse_task(self, task: TaskSubmission | Mapping[str, Any]) -> ParsedTask:
        """``POST /parse-social-choice-task``: validates a task as :meth:`submit_task` would and
        returns the documents it would store, storing nothing. Stores nothing, so it is retried
        like a read."""
        answer = self._http.call_object("POST", "/parse-social-choice-task", body=dict(task), safe=True, envelope=False)
        return ParsedTask.from_dict(answer)

    def submit_vote(
        self,
        social_task_id: str,
        submitter_subject_id: str,
        vote_data: Mapping[str, Any],
        *,
        vote_id: str | None = None,
        submission_time: str | None = None,
    ) -> VoteReceipt:
        """``POST /submit-vote``: votes ``vote_data`` on a started task as
        ``submitter_subject_id``, and returns whether the PQT qualified the vote.

        ``vote_id`` defaults to a fresh UUID4; ``submission_time`` (overwritten by the server)
        to now. Not retried: to retry a vote yourself, send it again with the same ``vote_id``,
        which the server answers with the stored verdict and stores nothing new."""
        body = {
            "vote_id": vote_id or str(uuid.uuid4()),
            "social_task_id": social_task_id,
            "submitter_subject_id": submitter_subject_id,
            "vote_data": dict(vote_data),
            "submission_time": submission_time or datetime.now(UTC).replace(tzinfo=None).isoformat(),
            "qualified": True,
        }
        answer = self._http.call_object("POST", "/submit-vote", body=body, safe=False, envelope=False)
        return VoteReceipt.from_dict(answer)

    # Reads.

    def get_status(self, social_task_id: str) -> str:
        """``GET /get-status/{id}``: ``"scheduled"``, ``"started"`` or ``"complete"``."""
        return str(self._read(path("get-status", social_task_id))["status"])

    def get_report(self, social_task_id: str) -> Report:
        """``GET /get-report/{id}``: the task's report (empty before completion)."""
        return Report.from_dict(self._read(path("get-report", social_task_id)))

    def get_full_task_bundle(self, social_task_id: str) -> TaskBundle:
        """``GET /get-full-task-bundle/{id}``: the task's three documents and all its votes."""
        return TaskBundle.from_dict(self._read(path("get-full-task-bundle", social_task_id)))

    def is_live_streaming_enabled(self, social_task_id: str) -> bool:
        """``GET /is-live-streaming-enabled/{id}``."""
        return bool(self._read(path("is-live-streaming-enabled", social_task_id))["enabled"])

    def generic_query(
        self,
        collection: str,
        filter: Mapping[str, Any] | None = None,
        *,
        limit: int | None = None,
        skip: int | None = None,
    ) -> list[dict[str, Any]]:
        """``POST /generic-query/{collection}?limit=&skip=``: the stored documents of one of
        :data:`~agora_client.models.VOTING_COLLECTIONS` matching a MongoDB-style ``filter``
        (``None``: all), ``skip`` of them skipped and at most ``limit`` returned."""
        route = path("generic-query", collection)
        query = {"limit": limit, "skip": skip}
        return self._http.call_list("POST", route, body=dict(filter or {}), query=query, safe=True, envelope=False)

    # Helpers.

    def wait_for_report(self, social_task_id: str, *, timeout: float = 60.0, interval: float = 0.5) -> Report:
        """Polls ``GET /get-status/{id}`` every ``interval`` seconds until the task is
        ``complete``, then returns its report. Raises
        :class:`~agora_client.errors.WaitTimeout` after ``timeout`` seconds (with the last
        status in ``last``), and :class:`~agora_client.errors.NotFound` for an unknown task."""
        poll(
            lambda: self.get_status(social_task_id),
            lambda status: status == "complete",
            timeout=timeout,
            interval=interval,
            what=f"voting task {social_task_id!r} to complete",
        )
        return self.get_report(social_task_id)
