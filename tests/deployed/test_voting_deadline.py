"""A voting task's deadline through the deployed shape: `voting-start-tasks` makes the timer
`deadline-<social_task_id>` (body `{"social_task_id": ..., "at": "deadline"}`) on the start's
own timers when the task starts, and at the deadline the task is evaluated with the votes on
file. The timers plan the time as shared/aws/src/timers.rs does: a deadline at most 15 minutes
ahead rides the start timer queue (SQS `DelaySeconds`); a later one is a one-shot Scheduler
schedule `deadline-<id>` a minute early, whose firing sends the timer back to the queue for the
rest of the wait. The rate rules (the sweep, the backstop that would also close the task) are
paused throughout, so what closes the task is the deadline's timer."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

from flows import SOON, create_task, private_task, status_of, vote, wait_status
from harness.client import paused_rate_rules


def parse_time(text: str) -> float:
    """A timer's `due` (RFC 3339, nanoseconds and `Z`) as a POSIX time."""
    text = text.rstrip("Z")
    whole, _, frac = text.partition(".")
    t = datetime.fromisoformat(whole).replace(tzinfo=timezone.utc).timestamp()
    return t + (float(f"0.{frac}") if frac else 0.0)


def timers_delivered(d, name: str) -> list[tuple[float, dict, object]]:
    """(invocation time, timer, result payload) of each start-tasks invocation from the start
    timer queue that carried the timer `name`."""
    out = []
    for rec in d.stack.invocations("VotingStartTasksFunction"):
        event = rec.event if isinstance(rec.event, dict) else {}
        for r in event.get("Records", []) or []:
            try:
                timer = json.loads(r.get("body", ""))
            except ValueError:
                continue
            if isinstance(timer, dict) and isinstance(timer.get("timer"), dict) and timer["timer"].get("name") == name:
                out.append((rec.at, timer, rec.result.payload))
    return out


def task_times(d, task: str, token: str) -> dict[str, float]:
    """The task's stored `start_time` and `end_time` (those it has), from its full bundle."""
    status, bundle = d.get(f"/get-full-task-bundle/{task}", token=token)
    assert status == 200, (status, bundle)
    found: dict[str, float] = {}

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k in ("start_time", "end_time") and isinstance(v, str) and k not in found:
                    found[k] = parse_time(v)
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(bundle)
    return found


def deadline_schedules(d, task: str) -> list[dict]:
    return [s for s in d.stack.scheduler_driver.created if s.get("Name") == f"deadline-{task}"]


def options_task(**options) -> dict:
    r = private_task()  # examples/private-task.json, scheduled now: starts at once
    r["social_task"].update(options)
    return r


def test_a_private_task_is_evaluated_at_its_deadline_with_the_votes_on_file(stack, admin):
    d = stack
    seconds = 4
    with paused_rate_rules(d):
        created_at = time.time()
        task = create_task(d, options_task(deadline_seconds=seconds), admin)
        wait_status(d, task, "started", admin)
        for voter in ("agent-reviewer-01", "agent-reviewer-02"):
            assert d.post("/submit-vote", vote(task, voter, "agent-translator-02"), token=admin) == (200, {"status": "accepted", "qualified": True})
        assert status_of(d, task, admin) == "started", "two of three members: not complete before the deadline"

        wait_status(d, task, "complete", admin, timeout=seconds + SOON)
        seen_complete = time.time()

        # The deadline's timer: made when the task started, due deadline_seconds after its start,
        # delivered to start-tasks by the start timer queue, not before it was due.
        name = f"deadline-{task}"
        delivered = timers_delivered(d, name)
        assert delivered, f"no {name} timer delivered to voting-start-tasks"
        due = parse_time(delivered[0][1]["timer"]["due"])
        assert delivered[0][1]["body"] == {"social_task_id": task, "at": "deadline"}, delivered[0][1]
        assert created_at + seconds - 1 <= due <= seconds + seen_complete, (created_at, due, seen_complete)
        assert all(at >= due for at, _, _ in delivered), [(at, due) for at, _, _ in delivered]
        # At most 15 minutes ahead: the timer queue's delay, not a Scheduler schedule.
        assert deadline_schedules(d, task) == []
        # The evaluation came at or after the deadline: the deadline is the task's start_time +
        # deadline_seconds, and the task's end_time (written by the evaluation) is not before it.
        times = task_times(d, task, admin)
        assert abs(due - (times["start_time"] + seconds)) < 0.01, (times, due)
        assert times["end_time"] >= due, (times, due)
        evaluations = d.wait_until("the evaluation's invocation", SOON, lambda: [r for r in d.stack.invocations("VotingEvaluateTaskFunction") if task in json.dumps(r.event)])
        assert min(r.at for r in evaluations) >= due, [(r.at, due) for r in evaluations]

    status, report = d.get(f"/get-report/{task}", token=admin)
    assert status == 200 and report["winners"] == ["agent-translator-02"], report
    assert sorted(v["submitter_subject_id"] for v in report["votes"]) == ["agent-reviewer-01", "agent-reviewer-02"], report["votes"]
    # After the deadline (and complete): no more votes.
    assert d.post("/submit-vote", vote(task, "agent-reviewer-03", "agent-translator-01"), token=admin)[0] == 409


def test_under_the_quorum_at_the_deadline_the_task_has_no_winner(stack, admin):
    d = stack
    seconds = 3
    with paused_rate_rules(d):
        task = create_task(d, options_task(deadline_seconds=seconds, quorum=3), admin)
        wait_status(d, task, "started", admin)
        for voter in ("agent-reviewer-01", "agent-reviewer-02"):
            assert d.post("/submit-vote", vote(task, voter, "agent-translator-02"), token=admin)[0] == 200
        wait_status(d, task, "complete", admin, timeout=seconds + SOON)
        assert timers_delivered(d, f"deadline-{task}"), "closed by its deadline timer"
    status, report = d.get(f"/get-report/{task}", token=admin)
    assert status == 200, report
    assert report["winners"] == [] and report["outcome"] == "no_quorum", report
    assert len(report["votes"]) == 2


def test_a_deadline_beyond_15_minutes_is_a_one_shot_schedule_a_minute_early(stack, admin):
    d = stack
    seconds = 20 * 60
    with paused_rate_rules(d):
        created_at = time.time()
        task = create_task(d, options_task(deadline_seconds=seconds), admin)
        wait_status(d, task, "started", admin)
        schedule = d.wait_until(f"the schedule deadline-{task}", 10, lambda: deadline_schedules(d, task))[0]
        assert schedule["GroupName"] == d.stack.physical("StartScheduleGroup")
        assert schedule["Target"]["Arn"] == d.stack.functions["VotingStartTasksFunction"].arn
        assert schedule["ActionAfterCompletion"] == "DELETE"
        timer = json.loads(schedule["Target"]["Input"])
        assert timer["timer"]["name"] == f"deadline-{task}"
        assert timer["body"] == {"social_task_id": task, "at": "deadline"}, timer
        due = parse_time(timer["timer"]["due"])
        assert created_at + seconds - 1 <= due <= time.time() + seconds, (created_at, due)
        at = d.stack.scheduler_driver.due_time(schedule)
        assert at is not None and due - 121 <= at <= due - 59 and at % 60 == 0, (at, due)
        # Fired (early, as planned): the timer goes back to the start timer queue for the rest
        # of the wait, and the task stays started.
        fired = d.run(d.stack.functions["VotingStartTasksFunction"].runtime.invoke(timer, source="scheduler (test)"), timeout=200)
        assert fired.ok and fired.payload.get("deferred") == f"deadline-{task}", (fired.payload, fired.error)
        assert status_of(d, task, admin) == "started"
    # Done with it: cancelled, its schedule left to the stack's teardown.
    assert d.post(f"/cancel-social-task/{task}", token=admin)[0] == 200
