"""The harness's own pieces where the flows do not reach them: route priority, the intrinsic
functions and rules, claims as API Gateway passes them, and an SQS event source's partial batch
failures and redrive to the dead-letter queue (on moto, with a fast queue)."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid
from types import SimpleNamespace

import boto3
import pytest

from harness import template as tpl
from harness.httpapi import HttpApi, Route, claim_strings
from harness.runtime import InvokeResult
from harness.sources import SchedulerDriver, SqsEventSource


def test_literal_routes_win_over_parameters_and_an_unrouted_method_is_not_matched():
    api = HttpApi(None, "api", [Route("GET", "/bid-jobs/{bid_job_id}", "Q", None, None), Route("GET", "/bid-jobs/by-tags", "T", None, None), Route("ANY", "/x/{proxy+}", "P", None, None)], None)
    assert api.route_for("GET", "/bid-jobs/by-tags")[0].function == "T"
    assert api.route_for("GET", "/bid-jobs/j1") == (api.routes[0], {"bid_job_id": "j1"})
    assert api.route_for("POST", "/bid-jobs/j1") is None
    assert api.route_for("DELETE", "/x/a/b")[1] == {"proxy": "a/b"}


def test_claims_are_strings_as_api_gateway_passes_them():
    assert claim_strings({"sub": "a", "exp": 12, "scp": ["x", "y"], "admin": True}) == {"sub": "a", "exp": "12", "scp": "[x y]", "admin": "true"}


def test_intrinsics_conditions_and_rules():
    source = {
        "Parameters": {"A": {"Type": "String", "Default": "x"}, "L": {"Type": "CommaDelimitedList", "Default": "p,q"}},
        "Conditions": {"IsX": {"Fn::Equals": [{"Ref": "A"}, "x"]}},
        "Rules": {"R": {"RuleCondition": {"Condition": "IsX"}, "Assertions": [{"Assert": {"Fn::Not": [{"Fn::Equals": [{"Ref": "A"}, "x"]}]}, "AssertDescription": "A must not be x"}]}},
        "Resources": {},
    }
    values = tpl.parameter_values(source, {})
    r = tpl.Resolver(source, values, tpl.Pseudo("st"))
    assert r({"Fn::Sub": "${AWS::StackName}-${A}-${!Literal}"}) == "st-x-${Literal}"
    assert r({"Fn::Sub": ["${v}.${AWS::URLSuffix}", {"v": {"Fn::Select": [1, {"Ref": "L"}]}}]}) == "q.amazonaws.com"
    assert r({"Fn::Join": ["/", {"Fn::Split": [",", "a,b"]}]}) == "a/b"
    assert r({"k": {"Fn::If": ["IsX", {"Ref": "AWS::NoValue"}, 1]}, "j": [1, {"Ref": "AWS::NoValue"}]}) == {"j": [1]}
    with pytest.raises(tpl.RuleViolation, match="A must not be x"):
        tpl.check_rules(source, r)
    tpl.check_rules(source, tpl.Resolver(source, tpl.parameter_values(source, {"A": "y"}), tpl.Pseudo("st")))
    with pytest.raises(tpl.TemplateError):
        tpl.parameter_values({"Parameters": {"N": {"Type": "Number", "MaxValue": 3}}}, {"N": "4"})


def test_a_one_shot_expression_is_due_at_the_time_it_says_in_its_zone():
    assert SchedulerDriver.due_time({"ScheduleExpression": "at(2026-10-22T10:00:05)", "ScheduleExpressionTimezone": "UTC"}) == 1792663205.0
    assert SchedulerDriver.due_time({"ScheduleExpression": "at(2026-10-22T12:00:05)", "ScheduleExpressionTimezone": "Europe/Paris"}) == 1792663205.0
    assert SchedulerDriver.due_time({"ScheduleExpression": "rate(1 minute)"}) is None


def test_an_sqs_event_source_deletes_what_succeeded_and_redrives_what_keeps_failing():
    endpoint = os.environ.get("AGORA_AWS_ENDPOINT", "http://127.0.0.1:5055")
    sqs = boto3.client("sqs", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="harness", aws_secret_access_key="harness")
    name = f"harness-test-{uuid.uuid4().hex[:8]}"
    dlq = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    src = sqs.create_queue(QueueName=name, Attributes={"VisibilityTimeout": "1", "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2})})["QueueUrl"]
    events = []

    async def invoke(event, source=""):
        events.append(event)
        return InvokeResult(True, {"batchItemFailures": [{"itemIdentifier": r["messageId"]} for r in event["Records"] if r["body"] == "bad"]})

    try:
        for body in ("good-1", "bad", "good-2"):
            sqs.send_message(QueueUrl=src, MessageBody=body)
        stack = SimpleNamespace(sqs=sqs, pseudo=tpl.Pseudo("st"), functions={"F": SimpleNamespace(runtime=SimpleNamespace(invoke=invoke))}, notes=[])
        stack.note = stack.notes.append
        source = SqsEventSource(stack, "M", "F", f"arn:aws:sqs:us-east-1:123456789012:{name}", src, 10, 0.5, True, concurrency=1)

        async def run():
            source.start()
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                got = await asyncio.to_thread(sqs.receive_message, QueueUrl=dlq, WaitTimeSeconds=0, AttributeNames=["All"])
                if got.get("Messages"):
                    await source.stop()
                    return got["Messages"]
                await asyncio.sleep(0.3)
            await source.stop()
            return []

        dead = asyncio.run(run())
        assert [m["Body"] for m in dead] == ["bad"], (dead, source.batches, stack.notes)
        bodies = [[r["body"] for r in e["Records"]] for e in events]
        assert sorted(bodies[0]) == ["bad", "good-1", "good-2"], bodies
        assert all(b == ["bad"] for b in bodies[1:]) and len(bodies) == 2, bodies
        counts = [r["attributes"]["ApproximateReceiveCount"] for e in events for r in e["Records"] if r["body"] == "bad"]
        assert counts == ["1", "2"], counts
        record = events[0]["Records"][0]
        assert record["eventSource"] == "aws:sqs" and record["eventSourceARN"].endswith(name) and record["md5OfBody"] and "SentTimestamp" in record["attributes"]
    finally:
        sqs.delete_queue(QueueUrl=src)
        sqs.delete_queue(QueueUrl=dlq)
