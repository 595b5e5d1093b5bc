"""Voting through the deployed shape: a task created to start now and one a few seconds ahead
(its start timer or the sweep starts it), one further ahead than the timer queue's 15 minutes
(a one-shot schedule a minute early), votes over the HTTP API, the evaluation from
its queue, the report, the messages on the event bus, and the live stream's final update."""

from __future__ import annotations

import json
import time

from flows import SOON, create_task, private_task, public_task, status_of, vote, wait_status
from harness.client import paused_rate_rules

REVIEWERS = ["agent-reviewer-01", "agent-reviewer-02", "agent-reviewer-03"]


def final_update(ws, timeout: float):
    """Reads the live stream until an update shows the task complete; returns (updates, last)."""
    updates = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = ws.receive(max(0.1, deadline - time.monotonic()))
        except TimeoutError:
            break
        if msg is None:
            break
        updates.append(msg)
        if isinstance(msg, dict) and msg.get("type") == "update" and msg["data"]["task"]["status"] == "complete":
            return updates, msg
    return updates, None


def test_private_task_runs_from_creation_to_report_with_its_live_stream(stack, admin):
    d = stack
    task = create_task(d, private_task(), admin)
    ws = d.ws_connect({"access_token": admin})
    ws.send({"social_task_id": task, "refresh_interval": 5})
    wait_status(d, task, "started", admin)

    ballots = [("agent-reviewer-01", "agent-translator-02"), ("agent-reviewer-02", "agent-translator-02"), ("agent-reviewer-03", "agent-translator-01")]
    for voter, option in ballots:
        assert d.post("/submit-vote", vote(task, voter, option), token=admin) == (200, {"status": "accepted", "qualified": True})
    wait_status(d, task, "complete", admin)
    status, report = d.get(f"/get-report/{task}", token=admin)
    assert status == 200 and report["winners"] == ["agent-translator-02"], report
    assert len(report["votes"]) == 3

    # The messages of §5 on the stack's event bus: an invitation per option, the result to the winner.
    bus = d.stack.physical("EventBus")
    def mine(kind):
        return [e for e in d.stack.events if e["detail_type"] == kind and task in str(e["detail"])]
    d.wait_until("the result on the bus", SOON, lambda: mine("voting_result"))
    assert len(mine("voting_invite")) == 3, mine("voting_invite")
    assert {e["bus"] for e in mine("voting_invite") + mine("voting_result")} == {bus}

    updates, last = final_update(ws, SOON)
    assert last is not None, f"no final update on the live stream: {[u.get('data', {}).get('task', {}).get('status') if isinstance(u, dict) else u for u in updates]}"
    assert last["data"]["task"]["status"] == "complete"
    ws.close()
    # Complete is final.
    assert d.post("/submit-vote", vote(task, "agent-reviewer-01", "agent-translator-01"), token=admin)[0] == 409


def test_a_task_scheduled_ahead_starts_at_its_time_and_counts_only_qualified_votes(stack, admin):
    d = stack
    task = create_task(d, public_task(3, start_in=3), admin)
    assert status_of(d, task, admin) == "scheduled"
    assert d.post("/submit-vote", vote(task, "early", "agent-translator-01"), token=admin)[0] == 409
    wait_status(d, task, "started", admin)
    assert d.post("/submit-vote", vote(task, "stranger", "nobody"), token=admin) == (200, {"status": "accepted", "qualified": False})
    for i, pick in enumerate(["agent-translator-02", "agent-translator-02", "agent-translator-01"]):
        assert d.post("/submit-vote", vote(task, f"public-{i}", pick), token=admin) == (200, {"status": "accepted", "qualified": True})
    wait_status(d, task, "complete", admin)
    report = d.get(f"/get-report/{task}", token=admin)[1]
    assert report["winners"] == ["agent-translator-02"]
    assert len(report["votes"]) == 3


def test_a_start_beyond_the_timer_queues_15_minutes_gets_a_one_shot_schedule_a_minute_early(stack, admin):
    d = stack
    start_in = 20 * 60
    due = time.time() + start_in
    task = create_task(d, private_task(start_in=start_in), admin)
    def made():
        return [s for s in d.stack.scheduler_driver.created if task in str(s.get("Target", {}).get("Input"))]
    schedule = d.wait_until("the task's one-shot schedule", 10, made)[0]
    assert schedule["GroupName"] == d.stack.physical("StartScheduleGroup")
    assert schedule["Target"]["Arn"] == d.stack.functions["VotingStartTasksFunction"].arn
    assert schedule["ActionAfterCompletion"] == "DELETE"
    at = d.stack.scheduler_driver.due_time(schedule)
    # A whole minute a minute or more before the time: Scheduler fires within that minute.
    assert at is not None and due - 121 <= at <= due - 59 and at % 60 == 0, (at, due)
    timer = json.loads(schedule["Target"]["Input"])
    assert timer["body"] == {"social_task_id": task}, timer
    # Fired (early, as planned): start-tasks sends the timer back to its timer queue for the rest
    # of the wait, and the task stays scheduled.
    with paused_rate_rules(d):
        fired = d.run(d.stack.functions["VotingStartTasksFunction"].runtime.invoke(timer, source="scheduler (test)"), timeout=200)
    assert fired.ok and fired.payload.get("deferred") == timer["timer"]["name"], (fired.payload, fired.error)
    assert status_of(d, task, admin) == "scheduled"
    queue = d.stack.physical("StartTimerQueue")
    delayed = d.stack.sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["ApproximateNumberOfMessagesDelayed"])["Attributes"]
    assert int(delayed["ApproximateNumberOfMessagesDelayed"]) >= 1, delayed
