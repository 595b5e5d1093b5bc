"""Every AWS call each function made during the suite's flows (through the harness's AWS
proxy and @connections endpoint) is allowed by that function's role in the translated
template. Runs last: it reads the calls of every flow before it on the suite's stack."""

from collections import Counter


def test_every_call_of_every_function_is_allowed_by_its_template_policies(stack):
    calls = stack.stack.proxy.calls
    assert calls, "the flows made no AWS call"
    callers = Counter(c.function for c in calls)
    # The flows reached the store (DynamoDB) or the queues, the bus, the schedules and the live stream.
    assert {"VotingSubmitVoteFunction", "VotingStartTasksFunction", "VotingEvaluateTaskFunction", "OrcadeJobsFunction"} <= set(callers), callers
    denied = stack.stack.denied_calls()
    assert not denied, "\n".join(str(c) for c in denied)


def test_the_harness_refuses_a_call_the_role_does_not_allow(stack):
    # A call outside a role: VotingQueriesFunction may only read the table (and has no queue).
    import boto3
    s = stack.stack
    sqs = boto3.client("sqs", endpoint_url=s.proxy.url, region_name=s.region, aws_access_key_id="VotingQueriesFunction", aws_secret_access_key="x")
    url = s.physical("EvaluationQueue")
    try:
        sqs.send_message(QueueUrl=url, MessageBody="{}")
        raise AssertionError("the proxy let VotingQueriesFunction send to the evaluation queue")
    except sqs.exceptions.ClientError as e:
        assert "AccessDenied" in str(e), e
    assert any(c.function == "VotingQueriesFunction" and not c.allowed for c in s.proxy.calls)
    # Not a function's call of the flows: forget it for the test above (it ran first, by name).
    s.proxy.calls[:] = [c for c in s.proxy.calls if c.function != "VotingQueriesFunction" or c.allowed]
