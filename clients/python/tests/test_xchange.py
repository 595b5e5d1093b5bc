"""Xchange through the client: README "A task exchange with curl (Xchange)" (subjects, a direct
task completed, a bidding task completed through Orcade bids), the other routes, and Xchange's
errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from _support import eventually

from agora_client import TERMINAL_TASK_STATUSES, Agora, BadRequest, Conflict, NotFound, WaitTimeout


def test_subjects_direct_task_and_bidding_task(agora: Agora, uid: str, inbox: Callable[[str], list[dict[str, Any]]]) -> None:
    xchange, orcade = agora.xchange, agora.orcade
    summarizer, t1, t2 = f"agent-summarizer-{uid}", f"agent-translator-{uid}-01", f"agent-translator-{uid}-02"
    translation = f"translation-{uid}"

    # 1. Three agents; two of them translate.
    created = xchange.create_subject(subject_id=summarizer, topics=[f"summarization-{uid}"])
    assert (created.subject_id, created.topics, created.subject_metadata, created.task_evaluation_function) == (
        summarizer,
        [f"summarization-{uid}"],
        {},
        "",
    )
    xchange.create_subject({"subject_id": t1, "topics": [translation]})
    xchange.create_subject({"subject_id": t2, "topics": [translation, "fr"]}, subject_capabilities={"languages": ["en", "fr"]})
    assert xchange.get_subject(t2).subject_capabilities == {"languages": ["en", "fr"]}
    translators = xchange.query_subjects({"topics": {"$in": [translation]}})
    assert sorted(s.subject_id for s in translators) == [t1, t2]

    # 2. A direct task: the local delegate hands it over and acknowledges it.
    task = xchange.submit_task("direct", {"doc": "minutes.txt"}, task_id=f"summary-{uid}", assignment={"subject_id": summarizer})
    assert (task.task_id, task.task_assignment_type, task.task_metadata["task_assignment"]) == (
        f"summary-{uid}",
        "direct",
        {"subject_id": summarizer},
    )
    assert task.taski_creation_time
    done = xchange.wait_for_task(task.task_id, timeout=20, interval=0.1)
    assert done.task_assignment_status == "completed" and done.terminal
    assert done.task_output["success"] is True
    handed = inbox(summarizer)
    assert handed[-1]["task_id"] == task.task_id and handed[-1]["task_data"] == {"doc": "minutes.txt"}

    # 3. A bidding task whose roster comes from topics: an Orcade bid job for the two translators.
    bidding = xchange.submit_task(
        "bidding",
        {"doc": "q3.pdf"},
        task_id=f"translate-{uid}",
        assignment={
            "bid_job_evaluator_id": "builtin:lowest-price",
            "bid_job_description": {"task_type": "translate_document", "word_count": 4200},
            "topics": [translation],
        },
    )
    assert xchange.wait_for_task(bidding.task_id, {"bidding"}, timeout=20, interval=0.1).task_assignment_status == "bidding"
    job_id = xchange.get_task(bidding.task_id).bid_job_id
    assert job_id is not None
    assert sorted(orcade.get_job(job_id).bid_job_subject_ids) == [t1, t2]
    eventually(lambda: any(m.get("event_type") == "bid_request" for m in inbox(t1)), what="the bid_request")

    # 4. The agents bid through Orcade; the cheaper wins and the task completes.
    orcade.submit_bid(job_id, t1, {"price_usd": 120})
    orcade.submit_bid(job_id, t2, {"price_usd": 95})
    out = xchange.wait_for_task(bidding.task_id, timeout=20, interval=0.1)
    assert out.task_assignment_status == "completed"
    assert out.task_output["task_type"] == "bid_winner" and out.task_output["bid_subject_id"] == t2
    assert out.task_output["evaluator_output"]["winner_subject_id"] == t2

    completed = xchange.query_tasks({"task_id": {"$in": [task.task_id, bidding.task_id]}, "task_assignment_status": "completed"})
    assert sorted(t.task_id for t in completed) == sorted([task.task_id, bidding.task_id])


def test_subject_edits_and_percent_encoded_ids(agora: Agora, uid: str) -> None:
    xchange = agora.xchange
    odd = f"agent {uid}?x=1#frag%20"
    assert xchange.create_subject(subject_id=odd, subject_metadata={"owner": "team-nlp"}).subject_id == odd
    assert xchange.get_subject(odd).subject_metadata == {"owner": "team-nlp"}
    patched = xchange.update_subject(odd, {"subject_metadata.region": "us-east", "topics": ["a"]})
    assert patched.subject_metadata == {"owner": "team-nlp", "region": "us-east"} and patched.topics == ["a"]
    assert patched.raw["subject_id"] == odd

    with pytest.raises(Conflict, match="already exists"):
        xchange.create_subject(subject_id=odd)
    assert xchange.delete_subject(odd) is True
    with pytest.raises(NotFound, match="Subject not found"):
        xchange.get_subject(odd)
    with pytest.raises(NotFound):
        xchange.delete_subject(odd)


def test_query_subjects_pages_with_limit_and_skip(agora: Agora, uid: str) -> None:
    xchange = agora.xchange
    topic = f"paging-{uid}"
    for n in range(5):
        xchange.create_subject(subject_id=f"pager-{uid}-{n}", topics=[topic])
    everything = [s.subject_id for s in xchange.query_subjects({"topics": topic})]
    assert sorted(everything) == [f"pager-{uid}-{n}" for n in range(5)]
    pages = [[s.subject_id for s in xchange.query_subjects({"topics": topic}, limit=2, skip=skip)] for skip in (0, 2, 4)]
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [i for p in pages for i in p] == everything
    assert xchange.query_subjects({"topics": topic}, limit=0) == []


def test_errors_name_the_problem(agora: Agora, uid: str) -> None:
    xchange = agora.xchange
    with pytest.raises(NotFound) as missing:
        xchange.get_task(f"no-such-task-{uid}")
    assert (missing.value.status, missing.value.message) == (404, "Task not found")
    assert missing.value.body == {"ok": False, "error": "Task not found"}

    # A 404 ends a wait at once.
    with pytest.raises(NotFound, match="Task not found"):
        xchange.wait_for_task(f"no-such-task-{uid}", timeout=30)

    with pytest.raises(BadRequest) as invalid:
        xchange.submit_task("direct", {}, task_id=f"nobody-{uid}", assignment={})
    assert invalid.value.status == 400 and "subject_id" in invalid.value.message

    with pytest.raises(BadRequest) as unknown_mode:
        xchange.submit_task("teleport", {})
    assert "task_assignment_type" in unknown_mode.value.message

    xchange.submit_task("direct", {}, task_id=f"twice-{uid}", assignment={"subject_id": f"anyone-{uid}"})
    with pytest.raises(Conflict, match=f"twice-{uid}"):
        xchange.submit_task("direct", {}, task_id=f"twice-{uid}", assignment={"subject_id": f"anyone-{uid}"})

    # Waiting for a status the task never reaches times out, with the last output seen.
    silent = {"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": [f"silent-{uid}"]}
    pending = xchange.submit_task("bidding", {}, assignment=silent)
    with pytest.raises(WaitTimeout) as waited:
        xchange.wait_for_task(pending.task_id, {"completed"}, timeout=0.3, interval=0.1)
    assert waited.value.last is not None and waited.value.last.task_assignment_status not in TERMINAL_TASK_STATUSES
