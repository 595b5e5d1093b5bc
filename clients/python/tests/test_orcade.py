"""Orcade through the client: README "Bidding with curl (Orcade)" (a closed job with a PQT
refusal, the winner, the task results, by-tags, an open job), the edit and query routes, and
Orcade's errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from _support import REPO_ROOT, eventually

from agora_client import Agora, BadRequest, BidJobInput, Conflict, Forbidden, NotFound


def closed_job(uid: str) -> BidJobInput:
    """examples/closed-bid-job.json with this test's translators and a tag of its own."""
    job: BidJobInput = json.loads((REPO_ROOT / "examples" / "closed-bid-job.json").read_text())
    job["bid_job_subject_ids"] = [f"agent-translator-{uid}-{n}" for n in ("01", "02", "03")]
    job["bid_job_tags"] = ["translation", "fr", f"test-{uid}"]
    return job


def test_closed_job_pqt_refusal_winner_and_task_results(agora: Agora, uid: str, inbox: Callable[[str], list[dict[str, Any]]]) -> None:
    orcade = agora.orcade
    t1, t2, t3 = (f"agent-translator-{uid}-{n}" for n in ("01", "02", "03"))
    job = orcade.create_job(closed_job(uid))
    assert (job.bid_job_mode, job.bid_job_status, job.bid_job_subject_ids) == ("closed", "open", [t1, t2, t3])
    assert job.bid_job_pqt_id == "builtin:min-confidence"
    assert job.raw["bid_job_metadata"] == {"parameters": {"min": 0.8}}

    # Each roster member gets a bid_request.
    requests = eventually(lambda: inbox(t1), what="the bid_request")
    assert requests[0]["event_type"] == "bid_request" and requests[0]["task_data"]["bid_job_id"] == job.bid_job_id

    # The first bid is refused by the PQT: 409, the PQT's reason in the message, kept on file.
    with pytest.raises(Conflict) as refused:
        orcade.submit_bid(job.bid_job_id, t1, {"price_usd": 90, "confidence": 0.5})
    assert refused.value.status == 409
    assert refused.value.message.startswith("Bid refused by the PQT: ")
    assert "confidence" in refused.value.message and "0.8" in refused.value.message
    assert refused.value.body == {"ok": False, "error": refused.value.message}

    second = orcade.submit_bid(job.bid_job_id, t2, {"price_usd": 120, "confidence": 0.9})
    assert (second.bid_job_id, second.bid_subject_id, second.is_winner) == (job.bid_job_id, t2, False)
    orcade.submit_bid(job.bid_job_id, t3, {"price_usd": 150, "confidence": 0.95})

    # The roster is complete: evaluated once, the cheaper accepted bid wins.
    evaluation = orcade.wait_for_evaluation(job.bid_job_id, timeout=20, interval=0.1)
    assert (evaluation.kind, evaluation.winner_subject_id, evaluation.bid_id) == ("winner", t2, second.bid_id)
    assert evaluation.applied and evaluation.evaluator_output is not None
    assert orcade.get_job(job.bid_job_id).bid_job_status == "closed"

    bids = {b.bid_subject_id: b for b in orcade.list_bids(job.bid_job_id)}
    assert bids[t2].is_winner and not bids[t3].is_winner and not bids[t1].is_winner
    assert bids[t1].rejected and bids[t1].bid_data["pqt_reason"]
    assert orcade.get_bid(second.bid_id).is_winner

    # Three bid_request and one bid_winner round trips.
    def results_done() -> list[Any]:
        results = orcade.task_results(job.bid_job_id)
        return results if sorted(r.task_type for r in results) == ["bid_request"] * 3 + ["bid_winner"] else []

    results = eventually(results_done, what="the bid_winner task result")
    winner = next(r for r in results if r.task_type == "bid_winner")
    assert winner.bid_subject_id == t2 and winner.task_result["success"] is True
    assert winner.evaluator_output and winner.evaluator_output["winner_subject_id"] == t2
    assert [m["event_type"] for m in eventually(lambda: inbox(t2) if len(inbox(t2)) == 2 else [])] == ["bid_request", "bid_winner"]
    queried = orcade.query_task_results({"bid_job_id": job.bid_job_id, "task_type": "bid_winner"})
    assert [r.bid_task_result_id for r in queried] == [winner.bid_task_result_id]

    # By tags: all of them, or any.
    assert [j.bid_job_id for j in orcade.jobs_by_tags(["translation", "fr", f"test-{uid}"])] == [job.bid_job_id]
    assert job.bid_job_id in [j.bid_job_id for j in orcade.jobs_by_tags(["translation", "fr"])]
    assert orcade.jobs_by_tags([f"test-{uid}", "no-such-tag"]) == []
    assert [j.bid_job_id for j in orcade.jobs_by_tags([f"test-{uid}", "no-such-tag"], match="any")] == [job.bid_job_id]

    # Closing again is a conflict.
    with pytest.raises(Conflict, match="already closed"):
        orcade.close_job(job.bid_job_id)


def test_open_job_takes_two_then_closes(agora: Agora, uid: str, inbox: Callable[[str], list[dict[str, Any]]]) -> None:
    orcade = agora.orcade
    w1, w2, w3 = (f"agent-writer-{uid}-{n}" for n in ("01", "02", "03"))
    job = orcade.create_job(
        {
            "bid_job_name": {"en": "Summarise the minutes"},
            "bid_job_description": {},
            "bid_job_metadata": {},
            "bid_job_evaluator_id": "builtin:lowest-price",
            "bid_job_creator_id": "planner-service",
            "bid_job_mode": "open",
            "bid_job_max_subjects": 2,
        }
    )
    assert (job.bid_job_mode, job.bid_job_max_subjects, job.bid_job_subject_ids) == ("open", 2, [])
    orcade.submit_bid(job.bid_job_id, w1, {"price_usd": 40})
    orcade.submit_bid(job.bid_job_id, w2, {"price_usd": 30})
    with pytest.raises(Conflict) as full:
        orcade.submit_bid(job.bid_job_id, w3, {"price_usd": 10})
    assert full.value.status == 409 and job.bid_job_id in full.value.message and "full" in full.value.message

    evaluation = orcade.wait_for_evaluation(job.bid_job_id, timeout=20, interval=0.1)
    assert (evaluation.kind, evaluation.winner_subject_id) == ("winner", w2)
    closed = orcade.get_job(job.bid_job_id)
    assert closed.bid_job_status == "closed" and not closed.is_open
    assert sorted(closed.bid_job_subject_ids) == [w1, w2]
    messages = eventually(lambda: inbox(w2), what="the bid_winner")
    assert messages[0]["event_type"] == "bid_winner" and messages[0]["task_data"]["bid_job_id"] == job.bid_job_id


def test_close_edit_delete_and_query(agora: Agora, uid: str) -> None:
    orcade = agora.orcade
    job = orcade.create_job(closed_job(uid))
    assert orcade.evaluation(job.bid_job_id) is None

    updated = orcade.update_job(job.bid_job_id, {"bid_job_metadata.note": "rush", "bid_job_description.pages": 14})
    assert updated.bid_job_metadata == {"parameters": {"min": 0.8}, "note": "rush"}
    assert updated.bid_job_description["pages"] == 14

    bid = orcade.submit_bid(job.bid_job_id, f"agent-translator-{uid}-02", {"price_usd": 70, "confidence": 0.99})
    assert orcade.update_bid(bid.bid_id, {"bid_data.eta_hours": 5}).bid_data["eta_hours"] == 5
    assert [b.bid_id for b in orcade.query_bids({"bid_job_id": job.bid_job_id})] == [bid.bid_id]
    assert orcade.delete_bid(bid.bid_id) is True
    with pytest.raises(NotFound):
        orcade.get_bid(bid.bid_id)

    # The creator ends the job early: the bids on file (none) are evaluated.
    closing = orcade.close_job(job.bid_job_id)
    assert closing.bid_job_status == "closed"
    evaluation = orcade.wait_for_evaluation(job.bid_job_id, timeout=20, interval=0.1)
    assert evaluation.kind == "no_valid_bids" and evaluation.winner_subject_id is None

    assert [j.bid_job_id for j in orcade.query_jobs({"bid_job_tags": f"test-{uid}"})] == [job.bid_job_id]
    assert orcade.delete_job(job.bid_job_id) is True
    with pytest.raises(NotFound):
        orcade.get_job(job.bid_job_id)


def test_query_jobs_pages_with_limit_and_skip(agora: Agora, uid: str) -> None:
    orcade = agora.orcade
    created = {orcade.create_job({**closed_job(uid), "bid_job_subject_ids": [f"pager-{uid}-{n}"]}).bid_job_id for n in range(5)}
    everything = [j.bid_job_id for j in orcade.query_jobs({"bid_job_tags": f"test-{uid}"})]
    assert sorted(everything) == sorted(created)
    pages = [[j.bid_job_id for j in orcade.query_jobs({"bid_job_tags": f"test-{uid}"}, limit=2, skip=skip)] for skip in (0, 2, 4)]
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [i for p in pages for i in p] == everything
    assert orcade.query_jobs({"bid_job_tags": f"test-{uid}"}, skip=5) == []


def test_errors_name_the_problem(agora: Agora, uid: str) -> None:
    orcade = agora.orcade
    with pytest.raises(NotFound) as missing:
        orcade.get_job("no-such-job")
    assert (missing.value.status, missing.value.message) == (404, 'Bid job "no-such-job" not found')
    assert missing.value.body == {"ok": False, "error": 'Bid job "no-such-job" not found'}
    with pytest.raises(NotFound, match="not found"):
        orcade.submit_bid("no-such-job", "someone", {})

    job = closed_job(uid)
    del job["bid_job_evaluator_id"]  # type: ignore[misc]
    with pytest.raises(BadRequest) as invalid:
        orcade.create_job(job)
    assert invalid.value.status == 400 and "bid_job_evaluator_id" in invalid.value.message

    created = orcade.create_job(closed_job(uid))
    with pytest.raises(Forbidden) as outsider:
        orcade.submit_bid(created.bid_job_id, "not-on-the-roster", {"confidence": 1})
    assert outsider.value.status == 403 and "roster" in outsider.value.message
    with pytest.raises(BadRequest, match="tags"):
        orcade.jobs_by_tags([])
    with pytest.raises(BadRequest, match="Invalid filter"):
        orcade.query_bids({"bid_job_id": {"$regex": "x"}})
