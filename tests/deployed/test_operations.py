"""What an operator sees of the deployed shape: one vote's trace id from API Gateway's request id
through the submit-vote function, the evaluation queue's message attribute and the evaluator,
on JSON log lines that carry their spans and the Lambda request id; and the CloudWatch EMF lines
each invocation prints, with the votes, evaluations and queue work counted."""

from __future__ import annotations

import json

from flows import SOON, create_task, public_task, vote, wait_status


def log_lines(d, logical_id: str) -> list[dict]:
    """The JSON lines a function printed (stdout and stderr), in order."""
    path = d.stack.log_dir / f"{logical_id}.log"
    lines = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            doc = json.loads(raw)
        except ValueError:
            continue
        if isinstance(doc, dict):
            lines.append(doc)
    return lines


def span_field(line: dict, field: str):
    """`field` of the innermost span of a log line that has it."""
    for span in reversed(line.get("spans") or []):
        if field in span:
            return span[field]
    return None


def emf_values(lines: list[dict], metric: str, **dimensions) -> list:
    """The values of `metric` in the EMF documents among `lines` whose dimensions are `dimensions`."""
    found = []
    for doc in lines:
        directives = (doc.get("_aws") or {}).get("CloudWatchMetrics") or []
        for directive in directives:
            names = [m["Name"] for m in directive["Metrics"]]
            if metric in names and directive["Namespace"] == "Agora" and all(doc.get(k) == v for k, v in dimensions.items()):
                assert sorted(directive["Dimensions"][0]) == sorted(dimensions), directive
                found.append(doc[metric])
    return found


def test_a_vote_is_one_trace_across_the_queue_and_each_invocation_prints_its_metrics(stack, admin):
    d = stack
    task = create_task(d, public_task(1), admin)
    wait_status(d, task, "started", admin)
    status, answer, headers = d.request("POST", "/submit-vote", vote(task, "voter-ops-1", "agent-translator-01"), token=admin)
    assert (status, answer) == (200, {"status": "accepted", "qualified": True})
    trace = next((v for k, v in headers.items() if k.lower() == "x-agora-trace-id"), None)
    assert trace, f"the answer names its trace: {headers}"
    wait_status(d, task, "complete", admin)

    # The vote's lines in submit-vote: its request span carries the trace id (API Gateway's
    # request id), inside the runtime's invocation span with the Lambda request id.
    def vote_lines():
        return [l for l in log_lines(d, "VotingSubmitVoteFunction") if span_field(l, "trace_id") == trace]

    d.wait_until("the vote's log lines", SOON, vote_lines)
    for line in vote_lines():
        assert span_field(line, "requestId"), f"a line without the Lambda request id: {line}"
    assert any(span_field(l, "social_task_id") == task for l in vote_lines()), vote_lines()

    # Across the queue: the evaluator's work span is in the vote's trace.
    def evaluation_lines():
        return [l for l in log_lines(d, "VotingEvaluateTaskFunction") if span_field(l, "social_task_id") == task]

    d.wait_until("the evaluation's log lines", SOON, evaluation_lines)
    assert {span_field(l, "trace_id") for l in evaluation_lines()} == {trace}, evaluation_lines()

    # The metrics, as each invocation printed them (counters are the invocation's own counts).
    def metrics():
        vote_docs = log_lines(d, "VotingSubmitVoteFunction")
        evaluation_docs = log_lines(d, "VotingEvaluateTaskFunction")
        accepted = emf_values(vote_docs, "agora_votes_accepted", qualified="true")
        evaluations = emf_values(evaluation_docs, "agora_evaluations", service="voting", outcome="completed")
        seconds = emf_values(evaluation_docs, "agora_evaluation_seconds", service="voting")
        work = [v for q in ("done",) for v in emf_values(evaluation_docs, "agora_work_items", outcome=q, queue=d.stack.physical("EvaluationQueue").rsplit(":", 1)[-1].rsplit("/", 1)[-1])]
        return (accepted, evaluations, seconds, work) if accepted and evaluations and seconds and work else None

    accepted, evaluations, seconds, work = d.wait_until("the EMF lines", SOON, metrics)
    assert all(isinstance(v, int) and v >= 1 for v in accepted + evaluations + work), (accepted, evaluations, work)
    assert all(isinstance(s, list) and all(isinstance(x, float) and x >= 0 for x in s) for s in seconds), seconds
