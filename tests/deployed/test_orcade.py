"""Orcade through the deployed shape: a closed job from creation to the winner's bid_winner
task result (round trips to the delegate system from the delivery queue, the evaluation from
its queue), and an open job with bid_job_max_time that closes by itself."""

from __future__ import annotations

from flows import bid, closed_job, data, open_job, results_of, winner_of


def test_a_closed_job_runs_to_the_winners_bid_winner_result(stack, outside, admin):
    d = stack
    status, body = d.post("/bid-jobs", closed_job(), token=admin)
    assert status == 201 and body["ok"] is True, body
    job = body["data"]["bid_job_id"]
    requests = results_of(d, job, "bid_request", 3, admin)
    assert all(r["task_result"]["success"] is True for r in requests), requests
    asked = {c["subject_id"] for c in outside.calls_for(lambda c: c.get("task_data", {}).get("bid_job_id") == job)}
    assert asked == {"agent-translator-01", "agent-translator-02", "agent-translator-03"}

    status, body = d.post(f"/bid-jobs/{job}/bids", bid("agent-translator-01", 90, 0.5), token=admin)
    assert status == 409 and body["ok"] is False, body  # the PQT's minimum confidence
    assert d.post(f"/bid-jobs/{job}/bids", bid("agent-translator-02", 120, 0.9), token=admin)[0] == 201
    assert d.post(f"/bid-jobs/{job}/bids", bid("agent-translator-03", 150, 0.95), token=admin)[0] == 201

    assert winner_of(d, job, admin) == "agent-translator-02"
    assert data(d, f"/bid-jobs/{job}", admin)["bid_job_status"] == "closed"
    winner = results_of(d, job, "bid_winner", 1, admin)[0]
    assert winner["bid_subject_id"] == "agent-translator-02"
    assert winner["task_result"]["success"] is True, winner
    told = outside.calls_for(lambda c: c.get("task_data") == {"event_type": "bid_winner", "bid_job_id": job})
    assert [c["subject_id"] for c in told] == ["agent-translator-02"]


def test_an_open_job_with_a_time_limit_closes_by_itself(stack, admin):
    d = stack
    status, body = d.post("/bid-jobs", open_job(max_time=2), token=admin)
    assert status == 201, body
    job = body["data"]["bid_job_id"]
    assert body["data"]["bid_job_closes_at"], body
    assert d.post(f"/bid-jobs/{job}/bids", bid("applicant-x", 5, 1.0), token=admin)[0] == 201
    assert winner_of(d, job, admin) == "applicant-x"
    assert data(d, f"/bid-jobs/{job}", admin)["bid_job_status"] == "closed"
