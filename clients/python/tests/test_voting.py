"""Voting through the client: README "Five minutes with curl" (the private example task, three
votes, the report), the other routes, and voting's errors."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from _support import REPO_ROOT, eventually

from agora_client import VOTING_COLLECTIONS, Agora, BadRequest, Conflict, Forbidden, NotFound, TaskSubmission, WaitTimeout


def private_task(uid: str) -> TaskSubmission:
    """examples/private-task.json, its reviewers and translators made this test's own."""
    text = (REPO_ROOT / "examples" / "private-task.json").read_text()
    text = text.replace("agent-reviewer-", f"agent-reviewer-{uid}-").replace("agent-translator-", f"agent-translator-{uid}-")
    task: TaskSubmission = json.loads(text)
    return task


def started_task(agora: Agora, uid: str) -> str:
    """Creates the private example task and waits until its start timer started it."""
    task_id = agora.voting.submit_task(private_task(uid))
    eventually(lambda: agora.voting.get_status(task_id) == "started", what=f"{task_id} to start")
    return task_id


def test_private_task_three_votes_then_the_report(agora: Agora, uid: str, inbox: Callable[[str], list[dict[str, Any]]]) -> None:
    voting = agora.voting
    task_id = voting.submit_task(private_task(uid))
    assert task_id.startswith("task_") and len(task_id) == len("task_") + 8

    # Its scheduled_time has passed: it starts at once and invites each option.
    eventually(lambda: voting.get_status(task_id) == "started", what="the task to start")
    invites = eventually(lambda: inbox(f"agent-translator-{uid}-02"), what="the invitation")
    assert invites[0]["event_type"] == "voting_invite"
    assert invites[0]["sender_subject_id"] == "planner-service"

    for reviewer, choice in [("01", "02"), ("02", "02"), ("03", "01")]:
        receipt = voting.submit_vote(task_id, f"agent-reviewer-{uid}-{reviewer}", {"selected_option": f"agent-translator-{uid}-{choice}"})
        assert (receipt.status, receipt.qualified) == ("accepted", True)

    report = voting.wait_for_report(task_id, timeout=20, interval=0.1)
    assert report.complete
    assert report.winners == [f"agent-translator-{uid}-02"]
    assert len(report.votes) == 3 and all(v.qualified for v in report.votes)
    assert report.task["social_task_id"] == task_id
    assert report.raw["winners"] == report.winners
    assert voting.get_status(task_id) == "complete"

    # The winner is told.
    results = eventually(
        lambda: [m for m in inbox(f"agent-translator-{uid}-02") if m["event_type"] == "voting_result"], what="the voting_result"
    )
    assert results[0]["event_data"]["winners"] == [f"agent-translator-{uid}-02"]

    # A vote after completion is refused.
    with pytest.raises(Conflict) as refused:
        voting.submit_vote(task_id, f"agent-reviewer-{uid}-01", {"selected_option": f"agent-translator-{uid}-01"})
    assert refused.value.status == 409
    assert refused.value.message == "Vote rejected: Voting task is complete."


def test_bundle_live_streaming_and_vote_refusals(agora: Agora, uid: str) -> None:
    voting = agora.voting
    task_id = started_task(agora, uid)
    assert voting.is_live_streaming_enabled(task_id) is True

    vote_id = str(uuid.uuid4())
    first = voting.submit_vote(task_id, f"agent-reviewer-{uid}-01", {"selected_option": "no-such-option"}, vote_id=vote_id)
    assert (first.status, first.qualified) == ("accepted", False), "the PQT disqualifies a ballot off the options"
    # The same vote again (same vote_id): the stored verdict, nothing new stored.
    again = voting.submit_vote(task_id, f"agent-reviewer-{uid}-01", {"selected_option": "no-such-option"}, vote_id=vote_id)
    assert again.qualified is False

    with pytest.raises(Conflict, match="Vote already submitted for this task."):
        voting.submit_vote(task_id, f"agent-reviewer-{uid}-01", {"selected_option": f"agent-translator-{uid}-01"})
    with pytest.raises(Forbidden) as outsider:
        voting.submit_vote(task_id, "someone-else", {"selected_option": f"agent-translator-{uid}-01"})
    assert outsider.value.status == 403
    assert outsider.value.message == "Vote rejected: You are not authorized to vote in this private task."

    bundle = voting.get_full_task_bundle(task_id)
    assert bundle.status == "started"
    assert bundle.task["social_task_access_type"] == "private"
    assert bundle.subject_spec["topic_title"] == "Lead translator, Q4 handbook"
    assert bundle.evaluation_input["choice_evaluation"] == {"mode": "builtin", "name": "plurality"}
    assert [(v.vote_id, v.qualified) for v in bundle.votes] == [(vote_id, False)]

    # Not every reviewer has a qualified vote: no report yet, and waiting for one times out.
    assert voting.get_report(task_id).complete is False
    with pytest.raises(WaitTimeout) as waited:
        voting.wait_for_report(task_id, timeout=0.3, interval=0.1)
    assert waited.value.last == "started"


def test_parse_task_stores_nothing(agora: Agora, uid: str) -> None:
    parsed = agora.voting.parse_task(private_task(uid))
    assert parsed.social_task["social_task_access_type"] == "private"
    assert parsed.subject_spec["voting_options_map"][f"agent-translator-{uid}-01"] == "Translator 01"
    assert parsed.evaluation_spec["post_awarding"]["name"] == "assign-first-winner"
    with pytest.raises(NotFound):
        agora.voting.get_status(parsed.social_task["social_task_id"])


def test_generic_query_pages_with_limit_and_skip(agora: Agora, uid: str) -> None:
    voting = agora.voting
    task_id = started_task(agora, uid)
    for reviewer in ("01", "02"):
        voting.submit_vote(task_id, f"agent-reviewer-{uid}-{reviewer}", {"selected_option": f"agent-translator-{uid}-03"})

    every = voting.generic_query("votes", {"social_task_id": task_id})
    assert sorted(v["submitter_subject_id"] for v in every) == [f"agent-reviewer-{uid}-01", f"agent-reviewer-{uid}-02"]
    first = voting.generic_query("votes", {"social_task_id": task_id}, limit=1)
    rest = voting.generic_query("votes", {"social_task_id": task_id}, skip=1)
    assert len(first) == len(rest) == 1
    assert {first[0]["vote_id"], rest[0]["vote_id"]} == {v["vote_id"] for v in every}
    assert voting.generic_query("votes", {"social_task_id": task_id}, skip=2) == []

    tasks = voting.generic_query("social_task_core_data", {"social_task_id": task_id})
    assert [t["status"] for t in tasks] == ["started"]
    assert set(VOTING_COLLECTIONS) >= {"votes", "social_task_core_data"}


def test_errors_name_the_problem(agora: Agora, uid: str) -> None:
    voting = agora.voting
    with pytest.raises(NotFound) as missing:
        voting.get_status("task_00000000")
    assert (missing.value.status, missing.value.message) == (404, "Invalid social_task_id.")
    assert missing.value.body == {"error": "Invalid social_task_id."}

    with pytest.raises(NotFound, match=r"Vote rejected: Invalid social_task_id\.$"):
        voting.submit_vote("task_00000000", "someone", {"selected_option": "x"})

    task = private_task(uid)
    del task["social_task"]["created_by_subject_id"]  # type: ignore[misc]
    with pytest.raises(BadRequest) as invalid:
        voting.submit_task(task)
    assert invalid.value.status == 400
    assert "social_task.created_by_subject_id" in invalid.value.message

    with pytest.raises(BadRequest, match="Unknown collection") as unknown:
        voting.generic_query("nope")
    assert "votes" in unknown.value.message, "the message names the allowed collections"

    with pytest.raises(BadRequest, match="Invalid limit"):
        voting.generic_query("votes", limit=-1)
