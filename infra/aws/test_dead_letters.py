"""infra/aws/dead-letters against moto (the server at AGORA_AWS_ENDPOINT, which tests/run.sh
starts; its launcher, shared/store-dynamodb/moto/agora_moto_server.py, adds SQS's message move
tasks): dead letters set aside with their reasons, as the queue consumers do
(shared/runtime/src/dead_letters.rs), are listed with those reasons and left where they are;
a redrive of all moves each back to its source queue once; a redrive by id moves just those.

    AGORA_AWS_ENDPOINT=http://127.0.0.1:5055 AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing \\
      AWS_REGION=us-east-1 .venv/bin/python -m pytest -q -p no:cacheprovider infra/aws
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import boto3
import pytest

SCRIPT = Path(__file__).with_name("dead-letters")


@pytest.fixture(scope="module")
def sqs():
    for var in ("AGORA_AWS_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        assert os.environ.get(var), (
            f"{var} is not set: these tests need the moto server; run ./tests/run.sh, which starts it and exports "
            "AGORA_AWS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION")
    return client("sqs")


def client(service: str):
    return boto3.client(service, endpoint_url=os.environ["AGORA_AWS_ENDPOINT"], region_name=os.environ.get("AWS_REGION", "us-east-1"))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "AWS_REGION": os.environ.get("AWS_REGION", "us-east-1")}
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)
    if ok:
        assert done.returncode == 0, f"dead-letters {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def arn_of(sqs, url: str) -> str:
    return sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]


def queue_pair(sqs, fifo: bool = False) -> tuple[str, str]:
    """(source queue URL, its dead-letter queue's URL), the source dead-lettering after 3 receives."""
    suffix, extra = (".fifo", {"FifoQueue": "true"}) if fifo else ("", {})
    dlq = sqs.create_queue(QueueName=unique("agora-dlq") + suffix, Attributes=extra)["QueueUrl"]
    policy = json.dumps({"deadLetterTargetArn": arn_of(sqs, dlq), "maxReceiveCount": 3})
    source = sqs.create_queue(QueueName=unique("agora-src") + suffix, Attributes={**extra, "RedrivePolicy": policy})["QueueUrl"]
    return source, dlq


def set_aside(sqs, source: str, dlq: str, body: str, reason: str, trace_id: str, group: str | None = None) -> str:
    """A dead letter as the consumer sends it (shared/runtime/src/dead_letters.rs): its id."""
    attributes = {
        "agora_last_error": reason, "agora_first_try": "2026-10-22T10:00:00.492Z", "agora_last_try": "2026-10-22T10:03:01.131Z",
        "agora_source_queue": arn_of(sqs, source), "agora_trace_id": trace_id,
    }
    message = {k: {"DataType": "String", "StringValue": v} for k, v in attributes.items()}
    message["agora_attempts"] = {"DataType": "Number", "StringValue": "3"}
    extra = {"MessageGroupId": group, "MessageDeduplicationId": uuid.uuid4().hex} if group else {}
    return sqs.send_message(QueueUrl=dlq, MessageBody=body, MessageAttributes=message, **extra)["MessageId"]


def drain(sqs, url: str) -> list[dict]:
    """Every message on `url`, taken (deleted)."""
    got = []
    while True:
        out = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0, VisibilityTimeout=30,
                                  MessageAttributeNames=["All"], AttributeNames=["All"]).get("Messages", [])
        if not out:
            return got
        for m in out:
            got.append(m)
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])


def visible(sqs, url: str) -> int:
    """Messages on `url` that a receive gets now (none hidden by a listing)."""
    counts = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])["Attributes"]
    assert counts["ApproximateNumberOfMessagesNotVisible"] == "0", counts
    return int(counts["ApproximateNumberOfMessages"])


def listed(queue: str) -> list[dict]:
    return [json.loads(line) for line in run("list", "--queue", queue, "--json").stdout.splitlines()]


def test_list_shows_each_dead_letter_with_its_reason_and_leaves_it(sqs):
    source, dlq = queue_pair(sqs)
    with_reason = set_aside(sqs, source, dlq, '{"social_task_id":"task_1"}', "evaluation hook: 502 Bad Gateway", "trace-list-1")
    # One SQS moved itself (its consumer crashed): no reason recorded.
    without = sqs.send_message(QueueUrl=dlq, MessageBody='{"social_task_id":"task_2"}')["MessageId"]

    text = run("list", "--queue", dlq).stdout
    assert "2 message(s)" in text, text
    assert f"dead letters of {source.rsplit('/', 1)[-1]}" in text, text
    for shown in (with_reason, without, '{"social_task_id":"task_1"}', "reason: evaluation hook: 502 Bad Gateway", "attempts: 3",
                  "first try: 2026-10-22T10:00:00.492Z", "last try: 2026-10-22T10:03:01.131Z", "trace id: trace-list-1",
                  f"source queue: {arn_of(sqs, source)}", "(none recorded"):
        assert shown in text, f"{shown!r} not in\n{text}"

    views = {v["message_id"]: v for v in listed(dlq)}
    assert set(views) == {with_reason, without}
    assert views[with_reason]["agora_last_error"] == "evaluation hook: 502 Bad Gateway"
    assert views[with_reason]["agora_attempts"] == "3"
    assert "agora_last_error" not in views[without]
    # Listed twice, taken never: both still there, visible at once.
    assert visible(sqs, dlq) == 2
    assert len(drain(sqs, dlq)) == 2


def test_long_bodies_and_many_messages_are_listed_whole_and_cut(sqs):
    source, dlq = queue_pair(sqs)
    for i in range(23):
        set_aside(sqs, source, dlq, f"{i:02}" + "x" * 500, f"reason {i}", f"trace-{i}")
    views = listed(dlq)
    assert len(views) == 23, "every message, past a page of ten"
    assert all(len(v["body"]) <= 201 and v["body"].endswith("…") for v in views)
    assert "(the first 5; --max for more)" in run("list", "--queue", dlq, "--max", "5").stdout
    assert visible(sqs, dlq) == 23


def test_redrive_moves_every_dead_letter_back_to_its_source_once(sqs):
    source, dlq = queue_pair(sqs)
    bodies = {'{"social_task_id":"task_3"}', '{"social_task_id":"task_4"}'}
    for n, body in enumerate(sorted(bodies)):
        set_aside(sqs, source, dlq, body, "hook down", f"trace-redrive-{n}")

    out = run("redrive", "--queue", dlq).stdout
    assert "2 message(s) moved back" in out, out
    back = drain(sqs, source)
    assert sorted(m["Body"] for m in back) == sorted(bodies), "each once"
    assert {m["MessageAttributes"]["agora_trace_id"]["StringValue"] for m in back} == {"trace-redrive-0", "trace-redrive-1"}
    assert visible(sqs, dlq) == 0

    # Again: nothing left to move, nothing sent twice.
    assert "nothing to redrive" in run("redrive", "--queue", dlq).stdout
    assert drain(sqs, source) == []
    task = sqs.list_message_move_tasks(SourceArn=arn_of(sqs, dlq))["Results"][0]
    assert task["Status"] == "COMPLETED" and task["ApproximateNumberOfMessagesMoved"] == 2
    assert task["DestinationArn"] == arn_of(sqs, source)


def test_redrive_by_id_moves_just_those(sqs):
    source, dlq = queue_pair(sqs)
    ids = [set_aside(sqs, source, dlq, f'{{"job":{n}}}', f"delegate down {n}", f"trace-id-{n}") for n in range(3)]

    out = run("redrive", "--queue", dlq, "--message-id", ids[1]).stdout
    assert ids[1] in out, out
    back = drain(sqs, source)
    assert [m["Body"] for m in back] == ['{"job":1}']
    assert back[0]["MessageAttributes"]["agora_trace_id"]["StringValue"] == "trace-id-1"
    # The others stay, visible at once.
    assert visible(sqs, dlq) == 2
    assert {v["message_id"] for v in listed(dlq)} == {ids[0], ids[2]}

    # An id not there: an error naming it, and nothing moved (not even the one that is).
    missing = str(uuid.uuid4())
    refused = run("redrive", "--queue", dlq, "--message-id", ids[0], "--message-id", missing, ok=False)
    assert refused.returncode == 1 and missing in refused.stderr, refused
    assert drain(sqs, source) == []
    assert visible(sqs, dlq) == 2


def test_a_fifo_dead_letter_goes_back_in_its_group(sqs):
    source, dlq = queue_pair(sqs, fifo=True)
    first = set_aside(sqs, source, dlq, "fifo one", "hook down", "trace-fifo-1", group="task_9")
    set_aside(sqs, source, dlq, "fifo two", "hook down", "trace-fifo-2", group="task_8")
    run("redrive", "--queue", dlq, "--message-id", first)
    back = drain(sqs, source)
    assert [(m["Body"], m["Attributes"]["MessageGroupId"]) for m in back] == [("fifo one", "task_9")]
    run("redrive", "--queue", dlq)
    back = drain(sqs, source)
    assert [(m["Body"], m["Attributes"]["MessageGroupId"]) for m in back] == [("fifo two", "task_8")]


def test_a_stack_s_dead_letter_queues_are_found_by_its_redrive_policies(sqs):
    stack = unique("agora-dl")
    template = {
        "Resources": {
            "WorkDeadLetterQueue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"{stack}-work-dlq"}},
            "WorkQueue": {"Type": "AWS::SQS::Queue", "Properties": {
                "QueueName": f"{stack}-work",
                "RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["WorkDeadLetterQueue", "Arn"]}, "maxReceiveCount": 3}}},
            "PlainQueue": {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": f"{stack}-plain"}},
        }
    }
    client("cloudformation").create_stack(StackName=stack, TemplateBody=json.dumps(template))
    source = sqs.get_queue_url(QueueName=f"{stack}-work")["QueueUrl"]
    dlq = sqs.get_queue_url(QueueName=f"{stack}-work-dlq")["QueueUrl"]
    set_aside(sqs, source, dlq, "stack work", "hook down", "trace-stack")

    text = run("list", "--stack", stack).stdout
    assert text.startswith(f"WorkDeadLetterQueue ({stack}-work-dlq): 1 message(s), dead letters of WorkQueue ({stack}-work)"), text
    assert "PlainQueue" not in text and "reason: hook down" in text, text
    assert "1 message(s) moved back" in run("redrive", "--stack", stack).stdout
    assert [m["Body"] for m in drain(sqs, source)] == ["stack work"]
    missing = run("list", "--stack", unique("agora-no-such-stack"), ok=False)
    assert missing.returncode == 1 and "does not exist" in missing.stderr, missing
    plain = unique("agora-plain")
    client("cloudformation").create_stack(StackName=plain, TemplateBody=json.dumps({"Resources": {"Q": {"Type": "AWS::SQS::Queue"}}}))
    assert "no dead-letter queue in stack(s) " + plain in run("list", "--stack", plain, ok=False).stderr


def test_it_says_how_to_use_it():
    out = run("--help").stdout
    assert "list" in out and "redrive" in out and "agora_last_error" in out
    refused = run("list", ok=False)
    assert refused.returncode == 2 and "--stack NAME or --queue URL" in refused.stderr
