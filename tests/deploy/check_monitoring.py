"""The template's monitoring checks (docs/operations.md), run by check-template.sh:

- alarms: one on every dead-letter queue (some queue's RedrivePolicy.deadLetterTargetArn), an
  Errors and a Throttles one on every function, the 5xx rate of every HTTP API; each any
  message / any error / above the threshold parameter, missing data not breaching, and each
  notifying the AlarmTopicArn parameter's topic (alarm and recovery) when it is set, no one
  otherwise;
- X-Ray: every function traced (Globals.Function.Tracing: Active, overridden by none; in the
  translation, each function's TracingConfig);
- the dashboard: valid JSON once its `${...}` are substituted, a place on the grid for each
  widget, every function, queue, HTTP API and alarm of the template on it, and each application
  metric it charts (agora_*) one of shared/telemetry/src/names.rs, charted over exactly the
  labels names.rs gives it (its EMF dimensions) with a statistic of its kind, and recorded by
  the Rust code (its constant used outside names.rs and outside tests); every metric of
  names.rs is charted.

    check_monitoring.py [TEMPLATE [TRANSLATION]]   (default template.yaml; TRANSLATION: the
                                                    SAM translation, for the tracing config)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import translate  # noqa: E402  (the template's YAML loader, which takes the short tags)

REPO = Path(__file__).resolve().parents[2]
NAMES = Path("shared/telemetry/src/names.rs")
# Where the code that records metrics lives (names.rs itself, tests and benches excluded).
CODE = ("services", "shared", "infra", "functions")
TOPIC = "AlarmTopicArn"
ACTIONS = {"Fn::If": ["HasAlarmTopic", [{"Ref": TOPIC}], {"Ref": "AWS::NoValue"}]}
PSEUDO = {"AWS::AccountId", "AWS::NotificationARNs", "AWS::Partition", "AWS::Region", "AWS::StackId", "AWS::StackName", "AWS::URLSuffix"}
# A Sub variable: ${Name} or ${Name.Attribute}, not the literal ${!...}.
SUB_VARIABLE = re.compile(r"\$\{([A-Za-z0-9:]+)(?:\.([A-Za-z0-9.]+))?\}")
SEARCH = re.compile(r"SEARCH\(\s*'\{([^}]*)\}([^']*)'\s*,\s*'([^']+)'")


class Checks:
    def __init__(self):
        self.failures: list[str] = []
        self.passed: list[str] = []

    def fail(self, message: str):
        self.failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr)

    def ok(self, message: str, since: int):
        """`message`, when no check failed since `since` (a count of failures)."""
        if len(self.failures) == since:
            self.passed.append(message)


def of_type(template: dict, kind: str) -> dict[str, dict]:
    return {lid: r for lid, r in template.get("Resources", {}).items() if isinstance(r, dict) and r.get("Type") == kind}


def getatt_target(value) -> str | None:
    """`X` of `!GetAtt X.Arn` (either form); None otherwise."""
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        arg = value["Fn::GetAtt"]
        return (arg.split(".", 1) if isinstance(arg, str) else arg)[0]
    return None


def any_above_zero(props: dict) -> bool:
    """The alarm fires on the first period with anything: > 0 (or >= 1), one period."""
    comparison, threshold = props.get("ComparisonOperator"), props.get("Threshold")
    try:
        threshold = float(threshold)
    except (TypeError, ValueError):
        return False
    above = (comparison == "GreaterThanThreshold" and threshold == 0) or (comparison == "GreaterThanOrEqualToThreshold" and threshold == 1)
    return above and int(props.get("EvaluationPeriods", 0)) == 1 and int(props.get("DatapointsToAlarm", 1)) == 1


def single_metric(props: dict) -> tuple[str, str, list] | None:
    if "MetricName" not in props:
        return None
    return props.get("Namespace"), props.get("MetricName"), props.get("Dimensions", [])


def check_alarms(template: dict, c: Checks):
    since = len(c.failures)
    params, conditions = template.get("Parameters", {}), template.get("Conditions", {})
    alarms = of_type(template, "AWS::CloudWatch::Alarm")
    if not alarms:
        c.fail("the template has no AWS::CloudWatch::Alarm")
    topic = params.get(TOPIC)
    if not topic or topic.get("Type") != "String" or topic.get("Default") != "":
        c.fail(f"parameter {TOPIC}: {topic!r}, not a String parameter with the default \"\" (no topic)")
    wanted_condition = {"Fn::Not": [{"Fn::Equals": [{"Ref": TOPIC}, ""]}]}
    if conditions.get("HasAlarmTopic") != wanted_condition:
        c.fail(f"condition HasAlarmTopic is {conditions.get('HasAlarmTopic')!r}, not {wanted_condition!r}")

    # Every alarm notifies the topic when it is set, on alarm and on recovery, and treats a
    # period without data (a quiet queue, function or API) as fine.
    for lid, alarm in alarms.items():
        props = alarm.get("Properties", {})
        for key in ("AlarmActions", "OKActions"):
            if props.get(key) != ACTIONS:
                c.fail(f"alarm {lid}: {key} is {props.get(key)!r}, not !If [HasAlarmTopic, [!Ref {TOPIC}], !Ref AWS::NoValue]")
        if "InsufficientDataActions" in props and props["InsufficientDataActions"] != ACTIONS:
            c.fail(f"alarm {lid}: InsufficientDataActions {props['InsufficientDataActions']!r} does not follow {TOPIC}")
        if props.get("TreatMissingData") != "notBreaching":
            c.fail(f"alarm {lid}: TreatMissingData is {props.get('TreatMissingData')!r}, not notBreaching")
        if props.get("ActionsEnabled") is False:
            c.fail(f"alarm {lid}: ActionsEnabled is false")

    def alarms_on(namespace: str, metric: str, dimension: str, value) -> list[str]:
        return [
            lid for lid, a in alarms.items()
            if single_metric(a.get("Properties", {})) == (namespace, metric, [{"Name": dimension, "Value": value}])
        ]

    # Every dead-letter queue: any message visible.
    queues = of_type(template, "AWS::SQS::Queue")
    dead_letter = {}
    for lid, q in queues.items():
        redrive = q.get("Properties", {}).get("RedrivePolicy")
        if isinstance(redrive, str):
            redrive = json.loads(redrive)
        if redrive:
            target = getatt_target(redrive.get("deadLetterTargetArn"))
            if target not in queues:
                c.fail(f"queue {lid}: deadLetterTargetArn {redrive.get('deadLetterTargetArn')!r} is not !GetAtt <a queue of the template>.Arn")
            else:
                dead_letter[target] = lid
    if not dead_letter:
        c.fail("no queue of the template has a dead-letter queue (RedrivePolicy)")
    for dlq, source in sorted(dead_letter.items()):
        found = alarms_on("AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", {"Fn::GetAtt": [dlq, "QueueName"]})
        if not found:
            c.fail(f"dead-letter queue {dlq} (of {source}): no alarm on AWS/SQS ApproximateNumberOfMessagesVisible with QueueName !GetAtt {dlq}.QueueName")
        for lid in found:
            if not any_above_zero(alarms[lid]["Properties"]):
                c.fail(f"alarm {lid} on {dlq}: not 'any message' (GreaterThanThreshold 0 over one period)")
    c.ok(f"{len(dead_letter)} dead-letter queues, each with an alarm on any message", since)

    # Every function: any Errors, any Throttles.
    functions = {**of_type(template, "AWS::Serverless::Function"), **of_type(template, "AWS::Lambda::Function")}
    for fn in functions:
        for metric in ("Errors", "Throttles"):
            found = alarms_on("AWS/Lambda", metric, "FunctionName", {"Ref": fn})
            if not found:
                c.fail(f"function {fn}: no alarm on AWS/Lambda {metric} with FunctionName !Ref {fn}")
            for lid in found:
                if not any_above_zero(alarms[lid]["Properties"]):
                    c.fail(f"alarm {lid} on {fn} {metric}: not 'any' (GreaterThanThreshold 0 over one period)")
    c.ok(f"{len(functions)} functions, each with an Errors and a Throttles alarm", since)

    # Every HTTP API: 5xx / Count above a Number parameter.
    apis = {**of_type(template, "AWS::Serverless::HttpApi")}
    apis.update({lid: r for lid, r in of_type(template, "AWS::ApiGatewayV2::Api").items() if r.get("Properties", {}).get("ProtocolType") == "HTTP"})
    if not apis:
        c.fail("the template has no HTTP API")
    for api in apis:
        ok = False
        for lid, alarm in alarms.items():
            props = alarm.get("Properties", {})
            metrics = props.get("Metrics") or []
            stats = {}
            for m in metrics:
                metric = (m.get("MetricStat") or {}).get("Metric") or {}
                if metric.get("Namespace") == "AWS/ApiGateway" and metric.get("Dimensions") == [{"Name": "ApiId", "Value": {"Ref": api}}]:
                    stats[str(metric.get("MetricName"))] = m
            if not {"5xx", "Count"} <= stats.keys():
                continue
            returned = [m for m in metrics if m.get("ReturnData", True) and "Expression" in m]
            errors, requests = stats["5xx"]["Id"], stats["Count"]["Id"]
            ratio = re.compile(rf"\b{re.escape(errors)}\b.*/\s*\(?\s*\b{re.escape(requests)}\b")
            threshold = props.get("Threshold")
            parameter = template.get("Parameters", {}).get(threshold.get("Ref")) if isinstance(threshold, dict) else None
            problems = []
            if len(returned) != 1 or not ratio.search(returned[0]["Expression"]):
                problems.append(f"its one returned expression is not {errors} / {requests}: {[m.get('Expression') for m in returned]}")
            if any(m.get("ReturnData", True) for m in stats.values()):
                problems.append("a metric of the ratio is returned too (ReturnData)")
            if any(m["MetricStat"].get("Stat") != "Sum" for m in stats.values()):
                problems.append("5xx and Count are not both summed")
            if not parameter or parameter.get("Type") != "Number":
                problems.append(f"its Threshold {threshold!r} is not a Number parameter")
            if props.get("ComparisonOperator") not in ("GreaterThanThreshold", "GreaterThanOrEqualToThreshold"):
                problems.append(f"ComparisonOperator {props.get('ComparisonOperator')}")
            for p in problems:
                c.fail(f"alarm {lid} (5xx rate of {api}): {p}")
            ok = ok or not problems
        if not ok:
            c.fail(f"HTTP API {api}: no alarm on its 5xx rate (AWS/ApiGateway 5xx / Count with ApiId !Ref {api}, above a Number parameter)")
    c.ok(f"{len(apis)} HTTP API(s) with a 5xx rate alarm; {len(alarms)} alarms, each notifying {TOPIC} when set, missing data not breaching", since)


def check_tracing(template: dict, translation: dict | None, c: Checks):
    since = len(c.failures)
    globals_ = (template.get("Globals") or {}).get("Function") or {}
    if globals_.get("Tracing") != "Active":
        c.fail(f"Globals.Function.Tracing is {globals_.get('Tracing')!r}, not Active")
    for lid, fn in of_type(template, "AWS::Serverless::Function").items():
        tracing = fn.get("Properties", {}).get("Tracing", "Active")
        if tracing != "Active":
            c.fail(f"function {lid}: Tracing {tracing!r} overrides the global Active")
    if translation is not None:
        for lid, fn in of_type(translation, "AWS::Lambda::Function").items():
            mode = (fn.get("Properties", {}).get("TracingConfig") or {}).get("Mode")
            if mode != "Active":
                c.fail(f"translation: function {lid}: TracingConfig.Mode is {mode!r}, not Active")
    c.ok("every function traced by X-Ray (Tracing: Active)" + (", in the translation too" if translation is not None else ""), since)


def parse_names(repo: Path) -> tuple[str, dict[str, str], dict[str, tuple[str, set[str]]]]:
    """(namespace, {metric name: constant}, {constant: (kind, labels)}) of names.rs."""
    text = (repo / NAMES).read_text(encoding="utf-8")
    namespace = re.search(r'pub const NAMESPACE: &str = "([^"]+)";', text)
    consts = {value: ident for ident, value in re.findall(r'pub const (\w+): &str = "(agora_[a-z0-9_]+)";', text)}
    entries = {
        ident: (kind, set(re.findall(r'"([^"]*)"', labels)))
        for ident, kind, labels in re.findall(r"Metric\s*\{\s*name:\s*(\w+),\s*kind:\s*Kind::(\w+),\s*labels:\s*&\[([^\]]*)\]", text, re.S)
    }
    return (namespace.group(1) if namespace else ""), consts, entries


def recorded_idents(repo: Path, idents: set[str]) -> dict[str, list[str]]:
    """{constant: [files using it]}: `names::X` (or X imported from names) in the Rust code
    outside names.rs, test directories, benches and the `#[cfg(test)]` module at a file's end."""
    found: dict[str, list[str]] = {i: [] for i in idents}
    for top in CODE:
        for path in sorted((repo / top).rglob("*.rs")):
            rel = path.relative_to(repo)
            if rel == NAMES or {"tests", "benches", "target"} & set(rel.parts[:-1]):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            text = re.split(r"\n#\[cfg\(test\)\]\s*\nmod ", text, maxsplit=1)[0]
            imports = " ".join(re.findall(r"names::\{([^}]*)\}", text))
            glob = re.search(r"names::\*", text) is not None
            for ident in idents:
                qualified = re.search(rf"names::{ident}\b", text)
                imported = (glob or re.search(rf"\b{ident}\b", imports) or re.search(rf"use [\w:]*names::{ident}\b", text)) and len(re.findall(rf"\b{ident}\b", text)) > 1
                if qualified or imported:
                    found[ident].append(str(rel))
    return found


def check_dashboard(template: dict, c: Checks, repo: Path):
    since = len(c.failures)
    resources, params = template.get("Resources", {}), template.get("Parameters", {})
    dashboards = of_type(template, "AWS::CloudWatch::Dashboard")
    if not dashboards:
        c.fail("the template has no AWS::CloudWatch::Dashboard")
        return
    namespace, consts, entries = parse_names(repo)
    if not consts:
        c.fail(f"{NAMES}: no `pub const X: &str = \"agora_...\";`")
    for value, ident in consts.items():
        if ident not in entries:
            c.fail(f"{NAMES}: {ident} ({value}) has no entry in ALL (its kind and labels)")
    charted: dict[str, set[str]] = {}  # metric name -> widget titles
    aws: set[tuple] = set()  # (namespace, metric, dimension, value) of the AWS metrics charted
    on_alarm_widgets: set[str] = set()
    unread = False  # a body that is not JSON: what it would chart is unknown
    for lid, dashboard in dashboards.items():
        body = dashboard.get("Properties", {}).get("DashboardBody")
        sub = body.get("Fn::Sub") if isinstance(body, dict) else None
        text, variables = (sub, {}) if isinstance(sub, str) else (sub[0], sub[1]) if isinstance(sub, list) else (None, {})
        if text is None:
            c.fail(f"dashboard {lid}: DashboardBody is not a !Sub string (the names of the stack's resources must resolve)")
            continue

        def variable(m: re.Match) -> str:
            # `${X}` -> "@X", `${X.Attr}` -> "@X.Attr": what each chart names, checked below.
            name = m.group(1)
            if name in variables or name in PSEUDO or name in params or name in resources:
                return "@" + m.group(0)[2:-1]
            c.fail(f"dashboard {lid}: {m.group(0)} names no parameter, resource or pseudo parameter")
            return "@unresolved"

        try:
            doc = json.loads(SUB_VARIABLE.sub(variable, text))
        except json.JSONDecodeError as e:
            c.fail(f"dashboard {lid}: the body is not JSON once substituted: {e}")
            unread = True
            continue
        widgets = doc.get("widgets")
        if not isinstance(widgets, list) or not widgets:
            c.fail(f"dashboard {lid}: no widgets")
            continue
        for i, w in enumerate(widgets):
            props = w.get("properties") or {}
            name = f"dashboard {lid} widget {i} ({props.get('title') or w.get('type')})"
            if w.get("type") not in ("metric", "text", "alarm", "log", "explorer"):
                c.fail(f"{name}: type {w.get('type')!r}")
            if not all(isinstance(w.get(k), int) for k in ("x", "y", "width", "height")) or w["x"] + w["width"] > 24:
                c.fail(f"{name}: x, y, width, height {[w.get(k) for k in ('x', 'y', 'width', 'height')]} are not a place on the 24-column grid")
            if w.get("type") == "alarm":
                on_alarm_widgets.update(props.get("alarms", []))
            if w.get("type") != "metric":
                continue
            if not props.get("region") or not props.get("metrics"):
                c.fail(f"{name}: a metric widget needs region and metrics")
            for metric in props.get("metrics", []):
                check_chart(metric, props, name, namespace, consts, entries, charted, c)
                fields = [f for f in metric if not isinstance(f, dict)] if isinstance(metric, list) else []
                for dimension, value in zip(fields[2::2], fields[3::2]):
                    aws.add((fields[0], fields[1], dimension, value))
    if unread:
        return
    # Everything of the template is on the dashboard: each function's errors, throttles and
    # duration, each queue's depth, the HTTP API's requests, errors and latency, every alarm.
    def missing(what: str, wanted: list[tuple]) -> None:
        gone = [w for w in wanted if w not in aws]
        if gone:
            c.fail(f"the dashboard charts no {what}: " + ", ".join(f"{w[1]} of {w[3][1:]}" for w in gone))

    functions = sorted(set(of_type(template, "AWS::Serverless::Function")) | set(of_type(template, "AWS::Lambda::Function")))
    missing("Lambda metric", [("AWS/Lambda", m, "FunctionName", f"@{f}") for f in functions for m in ("Errors", "Throttles", "Duration")])
    missing("queue depth", [("AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", f"@{q}.QueueName") for q in sorted(of_type(template, "AWS::SQS::Queue"))])
    missing("HTTP API metric", [("AWS/ApiGateway", m, "ApiId", f"@{a}") for a in sorted(of_type(template, "AWS::Serverless::HttpApi")) for m in ("Count", "4xx", "5xx", "Latency")])
    gone = sorted(a for a in of_type(template, "AWS::CloudWatch::Alarm") if f"@{a}.Arn" not in on_alarm_widgets)
    if gone:
        c.fail(f"alarms on no alarm widget of the dashboard (${{X.Arn}}): {', '.join(gone)}")
    unknown = sorted(set(charted) - set(consts))
    if unknown:
        c.fail(f"the dashboard charts metrics {NAMES} does not define: {', '.join(unknown)}")
    uncharted = sorted(set(consts) - set(charted))
    if uncharted:
        c.fail(f"metrics of {NAMES} on no dashboard widget: {', '.join(f'{m} (names::{consts[m]})' for m in uncharted)}")
    idents = {consts[m] for m in charted if m in consts}
    recorded = recorded_idents(repo, idents)
    never = sorted(m for m in charted if m in consts and not recorded[consts[m]])
    if never:
        c.fail(
            f"the dashboard charts metrics the Rust code never records (no names::X outside {NAMES} and tests, under "
            f"{', '.join(d + '/' for d in CODE)}): " + ", ".join(f"{m} (names::{consts[m]})" for m in never)
        )
    c.ok(
        f"{len(dashboards)} dashboard(s) charting every function, queue and HTTP API, every alarm on it, and the "
        f"{len(charted)} metrics of {NAMES}, each over its labels and recorded by the code",
        since,
    )


def check_chart(metric, props: dict, name: str, namespace: str, consts: dict, entries: dict, charted: dict, c: Checks):
    """One entry of a metric widget's `metrics`: a SEARCH expression or a metric array."""
    def kind_and_labels(metric_name: str) -> tuple[str, set[str]] | None:
        charted.setdefault(metric_name, set()).add(props.get("title", ""))
        ident = consts.get(metric_name)
        return entries.get(ident) if ident else None

    def statistic_fits(metric_name: str, kind: str, stat: str):
        # A counter is summed (each EMF value is a delta); a histogram of seconds is read by its
        # percentiles, average or extremes (their sum means nothing).
        if kind == "Counter" and stat not in ("Sum", "SampleCount"):
            c.fail(f"{name}: counter {metric_name} with statistic {stat} (counters are summed)")
        if kind == "Histogram" and stat in ("Sum", "SampleCount"):
            c.fail(f"{name}: histogram {metric_name} with statistic {stat} (read its percentiles)")

    if isinstance(metric, list) and len(metric) == 1 and isinstance(metric[0], dict):
        metric = metric[0]
    if isinstance(metric, dict):
        expression = metric.get("expression", "")
        names_in = set(re.findall(r"agora_[a-z0-9_]+", expression))
        searches = SEARCH.findall(expression)
        if names_in and not searches:
            c.fail(f"{name}: expression {expression!r} charts {sorted(names_in)} without SEARCH")
        for schema, terms, stat in searches:
            parts = [p.strip() for p in schema.split(",")]
            found = re.findall(r'MetricName\s*=\s*"?(agora_[a-z0-9_]+)"?', terms)
            if parts[0] != namespace:
                c.fail(f"{name}: SEARCH over namespace {parts[0]!r}, not names.rs's {namespace!r}: {expression}")
            for metric_name in found:
                spec = kind_and_labels(metric_name)
                if spec and set(parts[1:]) != spec[1]:
                    c.fail(f"{name}: SEARCH schema {{{schema}}} for {metric_name}: dimensions {sorted(parts[1:])}, but its labels in names.rs are {sorted(spec[1])}")
                if spec:
                    statistic_fits(metric_name, spec[0], stat)
            if not found:
                c.fail(f"{name}: SEARCH without MetricName=\"agora_...\": {expression}")
        return
    if not isinstance(metric, list) or len(metric) < 2:
        c.fail(f"{name}: metric entry {metric!r}")
        return
    options = metric[-1] if isinstance(metric[-1], dict) else {}
    fields = [m for m in metric if not isinstance(m, dict)]
    if fields[0] != namespace or not str(fields[1]).startswith("agora_"):
        if any(str(f).startswith("agora_") for f in fields):
            c.fail(f"{name}: {metric!r} charts an agora_ metric outside namespace {namespace!r}")
        return
    metric_name, dims = fields[1], fields[2:]
    spec = kind_and_labels(metric_name)
    if spec:
        if set(dims[0::2]) != spec[1]:
            c.fail(f"{name}: {metric_name} charted with dimensions {sorted(dims[0::2])}, but its labels in names.rs are {sorted(spec[1])}")
        statistic_fits(metric_name, spec[0], options.get("stat") or props.get("stat", "Average"))


def main(argv: list[str]) -> int:
    template_path = Path(argv[1]) if len(argv) > 1 else REPO / "template.yaml"
    translation = json.loads(Path(argv[2]).read_text(encoding="utf-8")) if len(argv) > 2 else None
    template = translate.yaml_parse(template_path.read_text(encoding="utf-8"))
    c = Checks()
    check_alarms(template, c)
    check_tracing(template, translation, c)
    check_dashboard(template, c, REPO)
    for line in c.passed:
        print(f"monitoring: {line}")
    if c.failures:
        print(f"monitoring checks: {len(c.failures)} failure(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
