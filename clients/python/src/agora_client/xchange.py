"""Xchange, the task exchange: every route of xchange-1-3-5.md §3.

Xchange answers everything in an envelope, ``{"ok": true, "data": ...}`` or
``{"ok": false, "error": "..."}``; the methods return ``data``, read into the models.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ._http import Transport, path
from ._wait import poll
from .models import TERMINAL_TASK_STATUSES, ExchangeTask, Subject, SubjectInput, TaskOutput

__all__ = ["XchangeClient"]


class XchangeClient:
    """The routes of Xchange. Reads (GET and the two ``POST …/query``) are retried on connection
    errors and 502/503/504; writes (submit a task, create, patch or delete a subject) are sent
    once."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def __repr__(self) -> str:
        return f"XchangeClient({self._http.base_url!r})"

    def _read(self, route: str) -> dict[str, Any]:
        return self._http.call_object("GET", route, safe=True, envelope=True)

    def _write(self, method: str, route: str, body: Any = None) -> dict[str, Any]:
        return self._http.call_object(method, route, body=body, safe=False, envelope=True)

    def _query(self, route: str, filter: Mapping[str, Any] | None, limit: int | None, skip: int | None) -> list[dict[str, Any]]:
        query = {"limit": limit, "skip": skip}
        return self._http.call_list("POST", route, body=dict(filter or {}), query=query, safe=True, envelope=True)

    # Tasks.

    def submit_task(
        self,
        task_assignment_type: str,
        task_data: Any,
        *,
        task_id: str | None = None,
        assignment: Mapping[str, Any] | None = None,
        task_metadata: Mapping[str, Any] | None = None,
        task_assignment_status: str | None = None,
    ) -> ExchangeTask:
        """``POST /tasks``: submits a task (``task_assignment_type`` ``"direct"``,
        ``"function"``, ``"open"`` or ``"bidding"``) and returns it as stored before assignment.

        ``assignment`` is the mode's parameters, sent as ``task_metadata.task_assignment``
        (``{"subject_id": ...}`` for direct, ``{"function_id": ...}`` for function,
        ``{"bid_job_evaluator_id": ..., "topics": [...]}`` for bidding); ``task_metadata`` any
        other metadata. Optional fields left ``None`` are not sent. Not retried."""
        body: dict[str, Any] = {"task_assignment_type": task_assignment_type, "task_data": task_data}
        if task_id is not None:
            body["task_id"] = task_id
        if task_assignment_status is not None:
            body["task_assignment_status"] = task_assignment_status
        if task_metadata is not None or assignment is not None:
            metadata = dict(task_metadata or {})
            if assignment is not None:
                metadata["task_assignment"] = dict(assignment)
            body["task_metadata"] = metadata
        return ExchangeTask.from_dict(self._write("POST", "/tasks", body))

    def get_task(self, task_id: str) -> ExchangeTask:
        """``GET /tasks/{id}``."""
        return ExchangeTask.from_dict(self._read(path("tasks", task_id)))

    def task_output(self, task_id: str) -> TaskOutput:
        """``GET /tasks/{id}/output``: the task's status and output."""
        return TaskOutput.from_dict(self._read(path("tasks", task_id, "output")))

    def query_tasks(
        self, filter: Mapping[str, Any] | None = None, *, limit: int | None = None, skip: int | None = None
    ) -> list[ExchangeTask]:
        """``POST /tasks/query?limit=&skip=``: the tasks matching a MongoDB-style filter."""
        return [ExchangeTask.from_dict(d) for d in self._query("/tasks/query", filter, limit, skip)]

    def wait_for_task(
        self,
        task_id: str,
        statuses: Collection[str] = TERMINAL_TASK_STATUSES,
        *,
        timeout: float = 60.0,
        interval: float = 0.5,
    ) -> TaskOutput:
        """Polls ``GET /tasks/{id}/output`` every ``interval`` seconds until the task's
        ``task_assignment_status`` is one of ``statuses`` (by default the final ones:
        ``completed``, ``failed``, ``rejected``) and returns that output. A 404 ends the wait
        at once (:class:`~agora_client.errors.NotFound`); after ``timeout`` seconds raises
        :class:`~agora_client.errors.WaitTimeout` with the last output in ``last``."""
        wanted = frozenset([statuses] if isinstance(statuses, str) else statuses)
        return poll(
            lambda: self.task_output(task_id),
            lambda out: out.task_assignment_status in wanted,
            timeout=timeout,
            interval=interval,
            what=f"task {task_id!r} to be {' or '.join(sorted(wanted))}",
        )

    # Subjects.

    def create_subject(self, subject: SubjectInput | Mapping[str, Any] | None = None, **fields: Any) -> Subject:
        """``POST /subjects``: registers a subject from ``subject`` and/or keyword fields
        (``subject_id``, ``subject_metadata``, ``task_evaluation_function``,
        ``subject_capabilities``, ``topics``); 409 if the id exists. Not retried."""
        body = {**dict(subject or {}), **fields}
        return Subject.from_dict(self._write("POST", "/subjects", body))

    def get_subject(self, subject_id: str) -> Subject:
        """``GET /subjects/{id}``."""
        return Subject.from_dict(self._read(path("subjects", subject_id)))

    def update_subject(self, subject_id: str, changes: Mapping[str, Any]) -> Subject:
        """``PATCH /subjects/{id}``: sets the fields of ``changes`` (dotted paths allowed) and
        returns the updated subject. Not retried."""
        return Subject.from_dict(self._write("PATCH", path("subjects", subject_id), dict(changes)))

    def delete_subject(self, subject_id: str) -> bool:
        """``DELETE /subjects/{id}``: ``True`` once deleted. Not retried."""
        return bool(self._write("DELETE", path("subjects", subject_id))["deleted"])

    def query_subjects(
        self, filter: Mapping[str, Any] | None = None, *, limit: int | None = None, skip: int | None = None
    ) -> list[Subject]:
        """``POST /subjects/query?limit=&skip=``: e.g. ``{"topics": {"$in": ["fr"]}}``."""
        return [Subject.from_dict(d) for d in self._query("/subjects/query", filter, limit, skip)]
