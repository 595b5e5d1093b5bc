"""The rate rules at the template's real rate (`rate(1 minute)`, the first tick a minute after
the stack starts, as a new rule's): short flows that expose a sweep-bound delay. Marked
`real_rate` (deselected by default: `pytest -m real_rate`, or tests/deployed/run.sh, which runs
it after the fast suite); a few seconds, since the services' timers do the work on time and the
sweeps stay the backstop (a minute or more, were a flow to wait for them)."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from flows import bid, create_task, data, open_job, private_task, status_of, vote, wait_status, winner_of

pytestmark = pytest.mark.real_rate


@pytest.fixture(scope="module")
def real(deploy, main_parameters):
    return deploy({**main_parameters}, sweep_seconds=None)


def test_item1_real_rate_a_task_created_to_start_now_starts_within_2s(real, admin):
    task = create_task(real, private_task(), admin)
    real.wait_until("started within 2 s", 2.0, lambda: status_of(real, task, admin) == "started")


def test_at_the_real_rate_a_task_due_now_and_an_open_job_finish_with_no_sweep(real, admin):
    started, created = time.monotonic(), time.time()
    task = create_task(real, private_task(), admin)
    status, body = real.post("/bid-jobs", open_job(max_time=1), token=admin)
    assert status == 201, body
    job = body["data"]["bid_job_id"]
    assert real.post(f"/bid-jobs/{job}/bids", bid("applicant-rr", 5, 1.0), token=admin)[0] == 201
    wait_status(real, task, "started", admin, timeout=75)
    for voter, option in [("agent-reviewer-01", "agent-translator-01"), ("agent-reviewer-02", "agent-translator-01"), ("agent-reviewer-03", "agent-translator-02")]:
        assert real.post("/submit-vote", vote(task, voter, option), token=admin)[0] == 200
    wait_status(real, task, "complete", admin, timeout=30)
    assert winner_of(real, job, admin, timeout=75) == "applicant-rr"
    done = time.time()
    # The start and the close came from their timers: no sweep fired while the flow ran.
    fired = {r.logical_id: [t for t in r.fired if created <= t <= done] for r in real.stack.rules}
    assert not any(fired.values()), fired
    assert time.monotonic() - started < 30
