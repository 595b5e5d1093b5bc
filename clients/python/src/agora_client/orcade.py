"""Orcade, the bidding service: every route of orcade-1-3-5.md §3, plus Agora's
``GET /bid-jobs/{id}/evaluation``.

Orcade answers everything in an envelope, ``{"ok": true, "data": ...}`` or
``{"ok": false, "error": "..."}``; the methods return ``data``, read into the models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ._http import Transport, path
from ._wait import poll
from .errors import InvalidResponse
from .models import Bid, BidJob, BidJobInput, BidTaskResult, Evaluation

__all__ = ["OrcadeClient"]


class OrcadeClient:
    """The routes of Orcade. Reads (GET and the three ``POST …/query``) are retried on connection
    errors and 502/503/504; writes (create, close, bid, patch, delete) are sent once."""

    def __init__(self, transport: Transport) -> None:
        self._http = transport

    def __repr__(self) -> str:
        return f"OrcadeClient({self._http.base_url!r})"

    def _read(self, route: str, query: Mapping[str, str | int | None] | None = None) -> dict[str, Any]:
        return self._http.call_object("GET", route, query=query, safe=True, envelope=True)

    def _read_list(self, route: str, query: Mapping[str, str | int | None] | None = None) -> list[dict[str, Any]]:
        return self._http.call_list("GET", route, query=query, safe=True, envelope=True)

    def _write(self, method: str, route: str, body: Any = None) -> dict[str, Any]:
        return self._http.call_object(method, route, body=body, safe=False, envelope=True)

    def _query(self, route: str, filter: Mapping[str, Any] | None, limit: int | None, skip: int | None) -> list[dict[str, Any]]:
        query = {"limit": limit, "skip": skip}
        return self._http.call_list("POST", route, body=dict(filter or {}), query=query, safe=True, envelope=True)

    # Jobs.

    def create_job(self, job: BidJobInput | Mapping[str, Any]) -> BidJob:
        """``POST /bid-jobs``: opens a bid job and returns it as stored. Not retried."""
        return BidJob.from_dict(self._write("POST", "/bid-jobs", dict(job)))

    def get_job(self, bid_job_id: str) -> BidJob:
        """``GET /bid-jobs/{id}``."""
        return BidJob.from_dict(self._read(path("bid-jobs", bid_job_id)))

    def update_job(self, bid_job_id: str, changes: Mapping[str, Any]) -> BidJob:
        """``PATCH /bid-jobs/{id}``: sets the fields of ``changes`` (dotted paths allowed) and
        returns the updated job. Not retried."""
        return BidJob.from_dict(self._write("PATCH", path("bid-jobs", bid_job_id), dict(changes)))

    def delete_job(self, bid_job_id: str) -> bool:
        """``DELETE /bid-jobs/{id}``: ``True`` once deleted. Not retried."""
        return bool(self._write("DELETE", path("bid-jobs", bid_job_id))["deleted"])

    def close_job(self, bid_job_id: str) -> BidJob:
        """``POST /bid-jobs/{id}/close``: ends a job early (its creator), queueing the evaluation
        of the bids on file; 409 if already closed. Not retried."""
        return BidJob.from_dict(self._write("POST", path("bid-jobs", bid_job_id, "close")))

    def jobs_by_tags(self, tags: Iterable[str], match: Literal["all", "any"] = "all") -> list[BidJob]:
        """``GET /bid-jobs/by-tags?tags=a,b&match=all|any``: the jobs carrying all (or any) of
        ``tags``, matched exactly."""
        tag_list = [tags] if isinstance(tags, str) else list(tags)
        data = self._read_list("/bid-jobs/by-tags", {"tags": ",".join(tag_list), "match": match})
        return [BidJob.from_dict(d) for d in data]

    def query_jobs(self, filter: Mapping[str, Any] | None = None, *, limit: int | None = None, skip: int | None = None) -> list[BidJob]:
        """``POST /bid-jobs/query?limit=&skip=``: the jobs matching a MongoDB-style filter."""
        return [BidJob.from_dict(d) for d in self._query("/bid-jobs/query", filter, limit, skip)]

    # Bids.

    def submit_bid(self, bid_job_id: str, bid_subject_id: str, bid_data: Mapping[str, Any]) -> Bid:
        """``POST /bid-jobs/{id}/bids``: bids ``bid_data`` as ``bid_subject_id`` and returns the
        stored bid. A PQT refusal, a second bid, a closed or full job raise
        :class:`~agora_client.errors.Conflict`; a subject not on the roster
        :class:`~agora_client.errors.Forbidden`. Not retried (a resent bid that was stored the
        first time is a 409)."""
        body = {"bid_subject_id": bid_subject_id, "bid_data": dict(bid_data)}
        return Bid.from_dict(self._write("POST", path("bid-jobs", bid_job_id, "bids"), body))

    def list_bids(self, bid_job_id: str) -> list[Bid]:
        """``GET /bid-jobs/{id}/bids``: every bid of the job, refused ones included."""
        return [Bid.from_dict(d) for d in self._read_list(path("bid-jobs", bid_job_id, "bids"))]

    def get_bid(self, bid_id: str) -> Bid:
        """``GET /bids/{id}``."""
        return Bid.from_dict(self._read(path("bids", bid_id)))

    def update_bid(self, bid_id: str, changes: Mapping[str, Any]) -> Bid:
        """``PATCH /bids/{id}``: sets the fields of ``changes``. Not retried."""
        return Bid.from_dict(self._write("PATCH", path("bids", bid_id), dict(changes)))

    def delete_bid(self, bid_id: str) -> bool:
        """``DELETE /bids/{id}``: ``True`` once deleted. Not retried."""
        return bool(self._write("DELETE", path("bids", bid_id))["deleted"])

    def query_bids(self, filter: Mapping[str, Any] | None = None, *, limit: int | None = None, skip: int | None = None) -> list[Bid]:
        """``POST /bids/query?limit=&skip=``."""
        return [Bid.from_dict(d) for d in self._query("/bids/query", filter, limit, skip)]

    # Task results and evaluations.

    def task_results(self, bid_job_id: str) -> list[BidTaskResult]:
        """``GET /bid-jobs/{id}/task-results``: the job's delegate round trips."""
        return [BidTaskResult.from_dict(d) for d in self._read_list(path("bid-jobs", bid_job_id, "task-results"))]

    def query_task_results(
        self, filter: Mapping[str, Any] | None = None, *, limit: int | None = None, skip: int | None = None
    ) -> list[BidTaskResult]:
        """``POST /bid-task-results/query?limit=&skip=``."""
        return [BidTaskResult.from_dict(d) for d in self._query("/bid-task-results/query", filter, limit, skip)]

    def evaluation(self, bid_job_id: str) -> Evaluation | None:
        """``GET /bid-jobs/{id}/evaluation`` (Agora's, beyond §3; absent from a server run with
        ``--orcade-spec-routes-only``): the job's recorded decision, ``None`` before."""
        data = self._http.call("GET", path("bid-jobs", bid_job_id, "evaluation"), safe=True, envelope=True)
        if data is not None and not isinstance(data, Mapping):
            raise InvalidResponse(None, "the evaluation is neither null nor a JSON object", data)
        return None if data is None else Evaluation.from_dict(data)

    def wait_for_evaluation(self, bid_job_id: str, *, timeout: float = 60.0, interval: float = 0.5) -> Evaluation:
        """Polls :meth:`evaluation` every ``interval`` seconds until the job's decision is
        applied (its winning bid marked, the job closed) and returns it: ``kind`` says whether
        there was a winner. Raises :class:`~agora_client.errors.WaitTimeout` after ``timeout``
        seconds, :class:`~agora_client.errors.NotFound` for an unknown job."""
        evaluation = poll(
            lambda: self.evaluation(bid_job_id),
            lambda e: e is not None and e.applied,
            timeout=timeout,
            interval=interval,
            what=f"the evaluation of bid job {bid_job_id!r}",
        )
        assert evaluation is not None
        return evaluation
