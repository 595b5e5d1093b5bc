"""Xchange through the deployed shape: a direct task to completed (the assignment queue, a
delegate round trip), and a bidding task to completed through this stack's Orcade (its job,
bids over the HTTP API, the resolution event on the bidding-outcome queue)."""

from __future__ import annotations

import json
import uuid

from flows import SOON, bid, data


def final(d, task: str, token: str, timeout: float = SOON) -> dict:
    def check():
        out = data(d, f"/tasks/{task}/output", token)
        return out if out["task_assignment_status"] in ("completed", "failed", "rejected") else None
    return d.wait_until(f"task {task} final", timeout, check)


def test_a_direct_task_completes_with_the_delegates_reply(stack, outside, admin):
    d = stack
    request = {"task_assignment_type": "direct", "task_data": {"doc": "q3.pdf"}, "task_metadata": {"task_assignment": {"subject_id": "agent-summarizer-01"}}}
    status, body = d.post("/tasks", request, token=admin)
    assert status == 201 and body["ok"] is True, body
    task = body["data"]["task_id"]
    out = final(d, task, admin)
    assert out["task_assignment_status"] == "completed", out
    calls = outside.calls_for(lambda c: c.get("task_id") == task)
    assert len(calls) == 1 and calls[0]["subject_id"] == "agent-summarizer-01" and calls[0]["task_data"] == {"doc": "q3.pdf"}
    assert out["task_output"]["success"] is True


def test_a_bidding_task_completes_through_this_stacks_orcade(stack, outside, admin):
    d = stack
    tag = uuid.uuid4().hex[:8]
    prices = {f"bid-a-{tag}": (120, 0.9), f"bid-b-{tag}": (90, 0.85), f"bid-c-{tag}": (150, 0.99)}
    for subject in prices:
        status, body = d.post("/subjects", {"subject_id": subject, "topics": [f"translation-{tag}"]}, token=admin)
        assert status == 201, body
    request = {
        "task_assignment_type": "bidding",
        "task_data": {"document": "secret"},
        "task_metadata": {"task_assignment": {
            "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_pqt_id": "builtin:min-confidence",
            "bid_job_metadata": {"parameters": {"min": 0.8}}, "bid_job_description": {"task_type": "translate"},
            "bid_job_name": {"en": "Translate"}, "topics": [f"translation-{tag}"],
        }},
    }
    status, body = d.post("/tasks", request, token=admin)
    assert status == 201, body
    task = body["data"]["task_id"]
    # Each agent is asked to bid through the delegate system, and bids over the HTTP API.
    def asked():
        calls = outside.calls_for(lambda c: c.get("subject_id") in prices and c.get("task_data", {}).get("event_type") == "bid_request")
        return calls if len(calls) == len(prices) else None
    calls = d.wait_until("three bid_requests", SOON, asked)
    job = calls[0]["task_data"]["bid_job_id"]
    for subject, (price, confidence) in prices.items():
        status, body = d.post(f"/bid-jobs/{job}/bids", bid(subject, price, confidence), token=admin)
        assert status == 201, body
    out = final(d, task, admin)
    assert out["task_assignment_status"] == "completed", out
    assert out["task_output"]["bid_subject_id"] == f"bid-b-{tag}", out
    stored = data(d, f"/tasks/{task}", admin)
    assert stored["task_metadata"]["bid_job_id"] == job
    # The job carries the exchange's mark, so Orcade announced its resolution on the
    # bidding-outcome queue (issue 24 item 8: only such jobs are announced).
    mark = data(d, f"/bid-jobs/{job}", admin)["bid_job_metadata"]["xchange"]
    assert mark == {"exchange_id": d.stack.values["ExchangeId"], "task_id": task}, mark
    d.wait_until("the resolution event heard", SOON, lambda: [r for r in d.stack.invocations("XchangeBiddingOutcomeFunction") if job in json.dumps(r.event)])
