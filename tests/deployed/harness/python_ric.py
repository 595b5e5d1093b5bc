"""A minimal runtime interface client for the template's Python functions (what the python3.x
runtimes run): imports `_HANDLER` (module.function) from LAMBDA_TASK_ROOT and serves the
Runtime API at AWS_LAMBDA_RUNTIME_API with it."""

import importlib
import json
import os
import sys
import traceback
import urllib.request

API = f"http://{os.environ['AWS_LAMBDA_RUNTIME_API']}/2018-06-01/runtime"


def post(path, doc, headers=None):
    req = urllib.request.Request(API + path, data=json.dumps(doc).encode(), method="POST", headers={"Content-Type": "application/json", **(headers or {})})
    urllib.request.urlopen(req).read()


class Context:
    def __init__(self, headers):
        self.aws_request_id = headers.get("Lambda-Runtime-Aws-Request-Id")
        self.invoked_function_arn = headers.get("Lambda-Runtime-Invoked-Function-Arn")
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.deadline_ms = int(headers.get("Lambda-Runtime-Deadline-Ms", "0"))

    def get_remaining_time_in_millis(self):
        import time
        return max(0, self.deadline_ms - int(time.time() * 1000))


def error_doc(e):
    return {"errorMessage": str(e), "errorType": type(e).__name__, "stackTrace": traceback.format_tb(e.__traceback__)}


def main():
    sys.path.insert(0, os.environ.get("LAMBDA_TASK_ROOT", "."))
    try:
        module, fn = os.environ["_HANDLER"].rsplit(".", 1)
        handler = getattr(importlib.import_module(module), fn)
    except Exception as e:  # noqa: BLE001
        post("/init/error", error_doc(e), {"Lambda-Runtime-Function-Error-Type": "Runtime.ImportModuleError"})
        sys.exit(1)
    while True:
        with urllib.request.urlopen(API + "/invocation/next") as r:
            headers = dict(r.headers)
            event = json.loads(r.read() or b"null")
        rid = headers.get("Lambda-Runtime-Aws-Request-Id")
        try:
            out = handler(event, Context(headers))
            post(f"/invocation/{rid}/response", out)
        except Exception as e:  # noqa: BLE001
            post(f"/invocation/{rid}/error", error_doc(e), {"Lambda-Runtime-Function-Error-Type": "Unhandled"})


if __name__ == "__main__":
    main()
