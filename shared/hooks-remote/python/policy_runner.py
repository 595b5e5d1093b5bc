"""Agora policy runner: runs `AIOSv1PolicyRule` classes (voting-4-hooks.md, "Authoring format").

One instance per key: built once as `AIOSv1PolicyRule(rule_id, settings, parameters)` and then
called as `instance.eval(parameters, input_data, context)` for every call, so that a stateful
rule keeps its state between calls.

Two front doors share the `Runtime` below:

* local runs: `python3 policy_runner.py` speaks newline-delimited JSON on stdin/stdout with the
  Rust side (shared/hooks/src/policy_runner.rs). Requests carry an `id` that the response
  repeats. The protocol uses a private copy of the original stdout; `print()` and `logging`
  from rule code go to stderr, which the Rust side forwards to its log.
* AWS: functions/policy-runner/handler.py calls `Runtime.call` from a Lambda handler.

Request (one JSON object per line):

    {"id": 7, "op": "eval", "key": "dsl:wf:pqt:1a2b",
     "load": {"code_path": "...", "rule_id": "pqt", "settings": {}, "parameters": {}} | null,
     "parameters": {}, "input": {...}, "context": {}}
    {"id": 8, "op": "unload", "key": "..."}
    {"id": 9, "op": "ping"}

`load` is applied only when the key has no instance yet. Response:

    {"id": 7, "ok": true, "output": {...}}
    {"id": 7, "ok": false, "kind": "load" | "eval" | "output" | "request", "error": "...", "traceback": "..."}

Code (`code_path`): a folder holding `function.py`, a `function.py` file, a `.zip`, a `.tar.gz`
or `.tgz` archive (with `function.py` at its root or inside a single top folder), as a local
path, a `file://` URL or an `http(s)://` URL. Archives and downloads are unpacked once into the
cache folder (`AGORA_POLICY_CACHE_DIR`); a `requirements.txt` beside `function.py` is installed
once with `pip install --target <cache>/deps/<hash>`.
"""

import hashlib
import importlib.util
import io
import json
import logging
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import traceback
import urllib.parse
import urllib.request
import zipfile

CLASS_NAME = "AIOSv1PolicyRule"
ENTRY_FILE = "function.py"


class RuleError(Exception):
    """A failure with a kind the Rust side maps to a hook error."""

    def __init__(self, kind, message, tb=""):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.tb = tb


def _digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


class CodeCache:
    """Resolves a `code_path` to a folder holding `function.py`, fetching and unpacking once."""

    def __init__(self, root):
        self.root = root
        self.lock = threading.Lock()
        self.resolved = {}

    def folder(self, code_path):
        with self.lock:
            hit = self.resolved.get(code_path)
            if hit is not None:
                return hit
            folder = self._resolve(code_path)
            self._install_requirements(folder)
            self.resolved[code_path] = folder
            return folder

    def _resolve(self, code_path):
        parsed = urllib.parse.urlparse(code_path)
        if parsed.scheme in ("http", "https"):
            return self._unpack_download(code_path, parsed.path)
        path = urllib.request.url2pathname(parsed.path) if parsed.scheme == "file" else code_path
        path = os.path.abspath(os.path.expanduser(path))
        if os.path.isdir(path):
            return self._entry_folder(path, code_path)
        if not os.path.exists(path):
            raise RuleError("load", "code path {!r} does not exist".format(code_path))
        if path.endswith(".py"):
            return self._single_file(path, code_path)
        stamp = "{}:{}:{}".format(path, os.path.getmtime(path), os.path.getsize(path))
        target = os.path.join(self.root, "code", _digest(stamp))
        if not os.path.isdir(target):
            with open(path, "rb") as f:
                self._unpack(f.read(), path, target, code_path)
        return self._entry_folder(target, code_path)

    def _unpack_download(self, url, url_path):
        target = os.path.join(self.root, "code", _digest(url))
        if not os.path.isdir(target):
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    data = response.read()
            except Exception as e:  # noqa: BLE001 - any fetch failure is a load failure
                raise RuleError("load", "cannot fetch {}: {}".format(url, e))
            if url_path.endswith(".py"):
                os.makedirs(target, exist_ok=True)
                with open(os.path.join(target, ENTRY_FILE), "wb") as f:
                    f.write(data)
            else:
                self._unpack(data, url_path, target, url)
        return self._entry_folder(target, url)

    def _single_file(self, path, code_path):
        if os.path.basename(path) == ENTRY_FILE:
            return os.path.dirname(path)
        target = os.path.join(self.root, "code", _digest(path))
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(path, os.path.join(target, ENTRY_FILE))
        return target

    def _unpack(self, data, name, target, code_path):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = tempfile.mkdtemp(dir=os.path.dirname(target))
        try:
            lower = name.lower()
            if lower.endswith(".zip") or zipfile.is_zipfile(io.BytesIO(data)):
                with zipfile.ZipFile(io.BytesIO(data)) as z:
                    z.extractall(tmp)
            elif lower.endswith((".tar.gz", ".tgz", ".tar")):
                with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as t:
                    if hasattr(tarfile, "data_filter"):
                        t.extractall(tmp, filter="data")
                    else:
                        t.extractall(tmp)
            else:
                raise RuleError("load", "code path {!r} is not a folder, .py, .zip or .tar.gz".format(code_path))
            try:
                os.rename(tmp, target)
            except OSError:
                # Another process unpacked it first.
                shutil.rmtree(tmp, ignore_errors=True)
        except RuleError:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        except Exception as e:  # noqa: BLE001
            shutil.rmtree(tmp, ignore_errors=True)
            raise RuleError("load", "cannot unpack {!r}: {}".format(code_path, e))

    def _entry_folder(self, folder, code_path):
        if os.path.isfile(os.path.join(folder, ENTRY_FILE)):
            return folder
        entries = [e for e in os.listdir(folder) if not e.startswith((".", "__MACOSX"))]
        if len(entries) == 1 and os.path.isfile(os.path.join(folder, entries[0], ENTRY_FILE)):
            return os.path.join(folder, entries[0])
        raise RuleError("load", "no {} in {!r}".format(ENTRY_FILE, code_path))

    def _install_requirements(self, folder):
        req = os.path.join(folder, "requirements.txt")
        if not os.path.isfile(req):
            return
        with open(req, "rb") as f:
            deps = os.path.join(self.root, "deps", hashlib.sha256(f.read()).hexdigest()[:20])
        if not os.path.isdir(deps):
            tmp = deps + ".tmp{}".format(os.getpid())
            cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", tmp, "-r", req]
            done = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr)
            if done.returncode != 0:
                shutil.rmtree(tmp, ignore_errors=True)
                raise RuleError("load", "pip install -r {} failed (exit {})".format(req, done.returncode))
            try:
                os.rename(tmp, deps)
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
        if deps not in sys.path:
            sys.path.insert(0, deps)


class Runtime:
    """The instances, by key, and the code cache."""

    def __init__(self, cache_dir):
        self.cache = CodeCache(cache_dir)
        self.instances = {}
        self.classes = {}

    def call(self, request):
        op = request.get("op")
        if op == "eval":
            return self.eval(request)
        if op == "unload":
            self.instances.pop(request.get("key"), None)
            return {}
        if op == "ping":
            return {"pong": True}
        raise RuleError("request", "unknown op {!r}".format(op))

    def eval(self, request):
        key = request.get("key")
        instance = self.instances.get(key)
        if instance is None:
            load = request.get("load")
            if not load:
                raise RuleError("request", "no instance for key {!r} and no load spec".format(key))
            instance = self.load(load)
            self.instances[key] = instance
        try:
            output = instance.eval(request.get("parameters") or {}, request.get("input"), request.get("context") or {})
        except Exception as e:  # noqa: BLE001 - the rule's own failure
            raise RuleError("eval", "{}: {}".format(type(e).__name__, e), traceback.format_exc())
        if not isinstance(output, dict):
            raise RuleError("output", "eval returned {}, not a dict".format(type(output).__name__))
        return output

    def load(self, spec):
        code_path = spec.get("code_path")
        if not isinstance(code_path, str) or not code_path:
            raise RuleError("load", "load spec lacks code_path")
        cls = self.classes.get(code_path)
        if cls is None:
            folder = self.cache.folder(code_path)
            path = os.path.join(folder, ENTRY_FILE)
            name = "agora_policy_{}".format(_digest(path))
            try:
                module_spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(module_spec)
                sys.modules[name] = module
                module_spec.loader.exec_module(module)
            except Exception as e:  # noqa: BLE001
                sys.modules.pop(name, None)
                raise RuleError("load", "cannot import {}: {}: {}".format(path, type(e).__name__, e), traceback.format_exc())
            cls = getattr(module, CLASS_NAME, None)
            if cls is None:
                raise RuleError("load", "{} defines no class {}".format(path, CLASS_NAME))
            self.classes[code_path] = cls
        try:
            return cls(spec.get("rule_id", ""), spec.get("settings") or {}, spec.get("parameters") or {})
        except Exception as e:  # noqa: BLE001
            raise RuleError("load", "{}(...) raised {}: {}".format(CLASS_NAME, type(e).__name__, e), traceback.format_exc())


def respond(request_id, runtime, request):
    """One response line (without the newline) for one request; never raises."""
    try:
        output = runtime.call(request)
    except RuleError as e:
        return json.dumps({"id": request_id, "ok": False, "kind": e.kind, "error": e.message, "traceback": e.tb})
    except Exception as e:  # noqa: BLE001 - never let one request stop the runner
        return json.dumps({"id": request_id, "ok": False, "kind": "eval", "error": str(e), "traceback": traceback.format_exc()})
    try:
        return json.dumps({"id": request_id, "ok": True, "output": output}, separators=(",", ":"), default=_not_json, allow_nan=False)
    except (_NotJson, ValueError, TypeError, RecursionError) as e:
        return json.dumps({"id": request_id, "ok": False, "kind": "output", "error": "output is not JSON: {}".format(e), "traceback": ""})


class _NotJson(Exception):
    pass


def _not_json(value):
    raise _NotJson("{} value {!r} is not JSON-serializable".format(type(value).__name__, value))


def default_cache_dir():
    return os.environ.get("AGORA_POLICY_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "agora-policy-cache")


def main():
    # The protocol owns the real stdout; everything else printed goes to stderr.
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    level = os.environ.get("AGORA_POLICY_LOG_LEVEL", "INFO").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.INFO), format="%(levelname)s %(name)s: %(message)s")

    runtime = Runtime(default_cache_dir())
    stdin = sys.stdin.buffer
    out = io.BufferedWriter(protocol, buffer_size=1 << 16)
    while True:
        line = stdin.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        try:
            request = json.loads(line)
            request_id = request.get("id")
        except Exception as e:  # noqa: BLE001
            out.write(json.dumps({"id": None, "ok": False, "kind": "request", "error": "bad request line: {}".format(e)}).encode() + b"\n")
            out.flush()
            continue
        out.write(respond(request_id, runtime, request).encode("utf-8") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
