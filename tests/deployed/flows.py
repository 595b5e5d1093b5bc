"""Requests and waits the flow tests share (over the HTTP API only, as a client)."""

from __future__ import annotations

import copy
import json
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOON = 30.0  # how long background work (queues, schedules, sweeps) is given in the fast suite


def utc(seconds_from_now: float = 0.0) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=seconds_from_now)).strftime("%Y-%m-%dT%H:%M:%S.%f")


def private_task(start_in: float = 0.0) -> dict:
    with open(REPO / "examples" / "private-task.json", encoding="utf-8") as f:
        r = json.load(f)
    r["social_task"]["scheduled_time"] = utc(start_in)
    return r


def public_task(duration: int, start_in: float = 0.0) -> dict:
    r = private_task(start_in)
    r["social_task"]["access_type"] = "public"
    r["social_task"]["org_ids"] = []
    r["social_task"]["duration"] = duration
    return r


def vote(task: str, voter: str, option: str) -> dict:
    return {"vote_id": str(uuid.uuid4()), "social_task_id": task, "submitter_subject_id": voter, "vote_data": {"selected_option": option}, "submission_time": utc(), "qualified": True}


def create_task(d, request: dict, token: str) -> str:
    status, body = d.post("/submit-social-choice-task", request, token=token)
    assert status == 201, (status, body)
    return body["social_task_id"]


def status_of(d, task: str, token: str) -> str | None:
    status, body = d.get(f"/get-status/{task}", token=token)
    return body.get("status") if status == 200 and isinstance(body, dict) else None


def wait_status(d, task: str, want: str, token: str, timeout: float = SOON):
    d.wait_until(f"{task} {want}", timeout, lambda: status_of(d, task, token) == want)


def closed_job() -> dict:
    with open(REPO / "examples" / "closed-bid-job.json", encoding="utf-8") as f:
        return json.load(f)


def open_job(max_subjects=None, max_time=None) -> dict:
    return {
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Open call"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "planner-service",
        "bid_job_mode": "open", "bid_job_max_subjects": max_subjects, "bid_job_max_time": max_time,
    }


def bid(subject: str, price: float, confidence: float) -> dict:
    return {"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}}


def data(d, path: str, token: str):
    status, body = d.get(path, token=token)
    assert status == 200 and body.get("ok") is True, (path, status, body)
    return body["data"]


def results_of(d, job: str, task_type: str, n: int, token: str, timeout: float = SOON) -> list:
    def check():
        found = [r for r in data(d, f"/bid-jobs/{job}/task-results", token) if r["task_type"] == task_type]
        assert len(found) <= n, found
        return found if len(found) == n else None
    return d.wait_until(f"{n} {task_type} results of {job}", timeout, check)


def winner_of(d, job: str, token: str, timeout: float = SOON) -> str:
    def check():
        winners = [b["bid_subject_id"] for b in data(d, f"/bid-jobs/{job}/bids", token) if b.get("is_winner")]
        assert len(winners) <= 1, winners
        return winners[0] if winners else None
    return d.wait_until(f"a winner of {job}", timeout, check)


def copy_of(x):
    return copy.deepcopy(x)
