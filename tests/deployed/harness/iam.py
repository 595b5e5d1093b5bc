"""Each function's permissions from its role in the translated template (the SAM policy
templates expanded to IAM statements), and the check of one call against them: an explicit
Deny wins, else an Allow whose Action and Resource match (IAM's `*` and `?` wildcards)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field

# The AWS managed policies SAM attaches (their statements as AWS publishes them).
MANAGED = {
    "AWSLambdaBasicExecutionRole": [
        {"Effect": "Allow", "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"], "Resource": "*"}
    ],
    "AWSLambdaSQSQueueExecutionRole": [
        {"Effect": "Allow", "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"], "Resource": "*"}
    ],
    # Every function's, with `Tracing: Active` (Lambda itself sends the traces: the functions
    # make no X-Ray call of their own).
    "AWSXrayWriteOnlyAccess": [
        {"Effect": "Allow", "Action": ["xray:PutTraceSegments", "xray:PutTelemetryRecords", "xray:GetSamplingRules", "xray:GetSamplingTargets", "xray:GetSamplingStatisticSummaries"], "Resource": "*"}
    ],
}


def _list(v):
    return v if isinstance(v, list) else [v]


def _match(pattern: str, value: str, case: bool) -> bool:
    if not case:
        pattern, value = pattern.lower(), value.lower()
    regex = "^" + re.escape(pattern).replace(r"\*", ".*").replace(r"\?", ".") + "$"
    return re.match(regex, value, re.S) is not None


@dataclass
class Policy:
    statements: list[dict] = field(default_factory=list)

    @classmethod
    def from_role(cls, role_props: dict) -> "Policy":
        st = []
        for p in role_props.get("Policies", []) or []:
            doc = p.get("PolicyDocument", {})
            st.extend(_list(doc.get("Statement", [])))
        for arn in role_props.get("ManagedPolicyArns", []) or []:
            st.extend(MANAGED.get(str(arn).rsplit("/", 1)[-1], []))
        return cls(st)

    def _applies(self, s: dict, action: str, resource: str) -> bool:
        if "Action" in s:
            if not any(_match(a, action, False) for a in _list(s["Action"])):
                return False
        elif "NotAction" in s:
            if any(_match(a, action, False) for a in _list(s["NotAction"])):
                return False
        if "Resource" in s:
            if not any(_match(r, resource, True) for r in _list(s["Resource"])):
                return False
        elif "NotResource" in s:
            if any(_match(r, resource, True) for r in _list(s["NotResource"])):
                return False
        return True

    def allows(self, action: str, resource: str) -> bool:
        allowed = False
        for s in self.statements:
            if self._applies(s, action, resource):
                if s.get("Effect") == "Deny":
                    return False
                if s.get("Effect") == "Allow":
                    allowed = True
        return allowed


@dataclass
class Call:
    function: str  # the caller's logical id (from its access key)
    service: str
    operation: str
    checks: list[tuple[str, str, bool]]  # (IAM action, resource ARN, allowed)
    status: int = 0

    @property
    def allowed(self) -> bool:
        return all(ok for _, _, ok in self.checks)

    def __str__(self):
        bad = [f"{a} on {r}" for a, r, ok in self.checks if not ok]
        return f"{self.function}: {self.service}.{self.operation}" + (f" DENIED ({'; '.join(bad)})" if bad else "")
