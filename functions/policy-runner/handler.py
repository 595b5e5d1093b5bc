"""The policy-runner Lambda: runs one `AIOSv1PolicyRule` call for the DSL executor in AWS.

The event is the local runner's request without its id (see shared/hooks-remote/python/policy_runner.py):

    {"op": "eval", "key": "...", "load": {"code_path", "rule_id", "settings", "parameters"},
     "parameters": {...}, "input": {...}, "context": {...}}

and the result is `{"ok": true, "output": {...}}` or
`{"ok": false, "kind": "load" | "eval" | "output" | "request", "error": "...", "traceback": "..."}`.
Instances live per key in the warm container (stateful semantics while it stays warm); code is
fetched and unpacked into /tmp once per container. A rule's failure is an answer, not a Lambda
error, so the caller gets the traceback.
"""

import json
import os

os.environ.setdefault("AGORA_POLICY_CACHE_DIR", "/tmp/agora-policy-cache")

import policy_runner  # noqa: E402 - shipped beside this file (shared/hooks-remote/python/policy_runner.py)

RUNTIME = policy_runner.Runtime(policy_runner.default_cache_dir())


def handler(event, context):
    if isinstance(event, (str, bytes)):
        event = json.loads(event)
    return json.loads(policy_runner.respond(None, RUNTIME, event))
