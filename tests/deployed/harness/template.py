"""template.yaml as CloudFormation would deploy it: parameters, rules, conditions, the SAM
transform (tests/deploy/translate.py's YAML loader and the SAM translator, so every function's
role carries the IAM statements its policy templates expand to), and the intrinsic functions
resolved against the stack's physical ids (moto's resources, the harness's own APIs)."""

from __future__ import annotations

import copy
import os
import re
import secrets
import string
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "deploy"))
import translate  # noqa: E402  (the YAML loader that takes CloudFormation's short tags)

NO_VALUE = object()
ACCOUNT = "123456789012"


class TemplateError(Exception):
    """The template cannot deploy with these parameters (what CloudFormation would refuse)."""


class RuleViolation(TemplateError):
    """A rule of the template's Rules section refuses the parameters."""

    def __init__(self, rule: str, description: str):
        super().__init__(f"rule {rule}: {description}")
        self.rule, self.description = rule, description


def load_source(path: Path = REPO / "template.yaml") -> dict:
    with open(path, encoding="utf-8") as f:
        return translate.yaml_parse(f.read())


def _rand(n: int, alphabet: str = string.ascii_uppercase + string.digits) -> str:
    return "".join(secrets.choice(alphabet) for _ in range(n))


@dataclass
class Pseudo:
    stack_name: str
    region: str = "us-east-1"
    account: str = ACCOUNT
    partition: str = "aws"
    url_suffix: str = "amazonaws.com"

    def get(self, name: str):
        return {
            "AWS::StackName": self.stack_name,
            "AWS::Region": self.region,
            "AWS::AccountId": self.account,
            "AWS::Partition": self.partition,
            "AWS::URLSuffix": self.url_suffix,
            "AWS::StackId": f"arn:{self.partition}:cloudformation:{self.region}:{self.account}:stack/{self.stack_name}/00000000-0000-0000-0000-000000000000",
            "AWS::NotificationARNs": [],
            "AWS::NoValue": NO_VALUE,
        }.get(name, KeyError)


@dataclass
class Resolver:
    """Resolves intrinsics. `physical(logical_id)` gives a resource's Ref value and
    `attribute(logical_id, name)` its GetAtt; `dynamic(text)` resolves `{{resolve:...}}`."""

    template: dict
    parameters: dict[str, Any]
    pseudo: Pseudo
    physical: Callable[[str], Any] = lambda name: (_ for _ in ()).throw(TemplateError(f"no physical id for {name}"))
    attribute: Callable[[str, str], Any] = lambda name, attr: (_ for _ in ()).throw(TemplateError(f"no attribute {name}.{attr}"))
    dynamic: Callable[[str], str] = lambda text: text
    _conditions: dict[str, bool] = field(default_factory=dict)

    # -- parameters and conditions
    def ref(self, name: str):
        pseudo = self.pseudo.get(name)
        if pseudo is not KeyError:
            return pseudo
        if name in self.parameters:
            return self.parameters[name]
        if name in self.template.get("Resources", {}):
            return self.physical(name)
        raise TemplateError(f"Ref to unknown {name}")

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            if name not in self.template.get("Conditions", {}):
                raise TemplateError(f"unknown condition {name}")
            self._conditions[name] = bool(self(self.template["Conditions"][name]))
        return self._conditions[name]

    def resource_enabled(self, logical_id: str) -> bool:
        cond = self.template["Resources"][logical_id].get("Condition")
        return cond is None or self.condition(cond)

    # -- intrinsics
    def __call__(self, value):
        if isinstance(value, list):
            return [v for v in (self(x) for x in value) if v is not NO_VALUE]
        if isinstance(value, str):
            return self.dynamic(value) if "{{resolve:" in value else value
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, arg), = value.items()
            fn = self._functions().get(key)
            if fn is not None:
                return fn(arg)
        out = {}
        for k, v in value.items():
            r = self(v)
            if r is not NO_VALUE:
                out[k] = r
        return out

    def _functions(self):
        return {
            "Ref": lambda a: self.ref(a),
            "Condition": lambda a: self.condition(a),
            "Fn::If": lambda a: self(a[1] if self.condition(a[0]) else a[2]),
            "Fn::Equals": lambda a: _scalar(self(a[0])) == _scalar(self(a[1])),
            "Fn::Not": lambda a: not self(a[0]),
            "Fn::And": lambda a: all(self(x) for x in a),
            "Fn::Or": lambda a: any(self(x) for x in a),
            "Fn::Join": lambda a: str(self(a[0])).join(_str(x) for x in self(a[1])),
            "Fn::Select": lambda a: self(a[1])[int(self(a[0]))],
            "Fn::Split": lambda a: str(self(a[1])).split(self(a[0])),
            "Fn::Sub": self._sub,
            "Fn::GetAtt": self._getatt,
            "Fn::Base64": lambda a: __import__("base64").b64encode(str(self(a)).encode()).decode(),
            "Fn::FindInMap": lambda a: self.template["Mappings"][self(a[0])][self(a[1])][self(a[2])],
            "Fn::GetAZs": lambda a: [f"{self.pseudo.region}{z}" for z in "abc"],
            "Fn::EachMemberEquals": lambda a: all(v == self(a[1]) for v in self(a[0])),
            "Fn::Contains": lambda a: self(a[1]) in self(a[0]),
            "Fn::ToJsonString": lambda a: __import__("json").dumps(self(a), separators=(",", ":")),
            "Fn::Length": lambda a: len(self(a)),
        }

    def _getatt(self, arg):
        name, attr = arg.split(".", 1) if isinstance(arg, str) else (arg[0], self(arg[1]))
        return self.attribute(name, attr)

    def _sub(self, arg):
        if isinstance(arg, str):
            text, variables = arg, {}
        else:
            text, variables = arg[0], {k: self(v) for k, v in arg[1].items()}

        def one(m: re.Match) -> str:
            inner = m.group(1)
            if inner.startswith("!"):
                return "${" + inner[1:] + "}"
            if inner in variables:
                return _str(variables[inner])
            if "." in inner and inner.split(".", 1)[0] in self.template.get("Resources", {}):
                return _str(self._getatt(inner))
            return _str(self.ref(inner))

        out = re.sub(r"\$\{([^}]*)\}", one, text)
        return self.dynamic(out) if "{{resolve:" in out else out


def _scalar(v):
    return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _str(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(_str(x) for x in v)
    return str(v)


def parameter_values(source: dict, given: dict[str, Any]) -> dict[str, Any]:
    """Each parameter's value: given, else its default; checked against AllowedValues,
    AllowedPattern, MinValue/MaxValue; CommaDelimitedList split."""
    out = {}
    specs = source.get("Parameters", {})
    unknown = set(given) - set(specs)
    if unknown:
        raise TemplateError(f"parameters not in the template: {sorted(unknown)}")
    for name, spec in specs.items():
        if name in given:
            raw = given[name]
        elif "Default" in spec:
            raw = spec["Default"]
        else:
            raise TemplateError(f"parameter {name} has no value and no default")
        kind = spec.get("Type", "String")
        if kind == "CommaDelimitedList":
            value = raw if isinstance(raw, list) else [v.strip() for v in str(raw).split(",")]
            out[name] = value
            continue
        text = _str(raw)
        if "AllowedValues" in spec and text not in [_str(v) for v in spec["AllowedValues"]]:
            raise TemplateError(f"parameter {name}: {text!r} is not one of {spec['AllowedValues']}")
        if "AllowedPattern" in spec and not re.fullmatch(spec["AllowedPattern"], text):
            raise TemplateError(f"parameter {name}: {text!r} does not match {spec['AllowedPattern']}")
        if kind == "Number":
            try:
                number = float(text)
            except ValueError:
                raise TemplateError(f"parameter {name}: {text!r} is not a number") from None
            if "MinValue" in spec and number < float(spec["MinValue"]):
                raise TemplateError(f"parameter {name}: {text} is below MinValue {spec['MinValue']}")
            if "MaxValue" in spec and number > float(spec["MaxValue"]):
                raise TemplateError(f"parameter {name}: {text} is above MaxValue {spec['MaxValue']}")
        out[name] = text
    return out


def check_rules(source: dict, resolver: Resolver) -> None:
    """The Rules section: each rule whose RuleCondition holds must have every Assertion hold."""
    for rule, spec in (source.get("Rules") or {}).items():
        if "RuleCondition" in spec and not resolver(spec["RuleCondition"]):
            continue
        for assertion in spec.get("Assertions", []):
            if not resolver(assertion["Assert"]):
                raise RuleViolation(rule, assertion.get("AssertDescription", "assertion failed"))


def _language_extensions(source: dict, params: dict[str, Any], pseudo: Pseudo) -> dict:
    """What AWS::LanguageExtensions does before the SAM transform: intrinsics that depend on
    parameters only are resolved where SAM needs plain values (the HTTP API's Auth)."""
    t = copy.deepcopy(source)
    r = Resolver(t, params, pseudo)
    for name, res in t.get("Resources", {}).items():
        if res.get("Type") == "AWS::Serverless::HttpApi" and "Auth" in res.get("Properties", {}):
            auth = r(res["Properties"]["Auth"])
            if auth is NO_VALUE:
                del res["Properties"]["Auth"]
            else:
                res["Properties"]["Auth"] = auth
    if isinstance(t.get("Transform"), list):
        t["Transform"] = [x for x in t["Transform"] if x != "AWS::LanguageExtensions"]
        if len(t["Transform"]) == 1:
            t["Transform"] = t["Transform"][0]
    return t


def sam_transform(source: dict, params: dict[str, Any], pseudo: Pseudo) -> dict:
    """The SAM transform (the translator tests/deploy/translate.py runs), offline."""
    from samtranslator.translator.transform import transform

    os.environ.setdefault("AWS_DEFAULT_REGION", pseudo.region)
    t = _language_extensions(source, params, pseudo)
    for name, resource in t.get("Resources", {}).items():
        props = resource.get("Properties", {})
        if resource.get("Type") == "AWS::Serverless::Function" and not str(props.get("CodeUri", "")).startswith("s3://"):
            props["CodeUri"] = f"s3://offline/{name}.zip"
    values = {"AWS::Region": pseudo.region, "AWS::AccountId": pseudo.account, "AWS::Partition": pseudo.partition}
    values.update({k: (",".join(v) if isinstance(v, list) else v) for k, v in params.items()})
    return transform(t, values, translate.OfflinePolicies())


def new_stack_name(prefix: str = "agora-dt") -> str:
    return f"{prefix}-{_rand(6, string.ascii_lowercase + string.digits)}"


def random_id(n: int = 10) -> str:
    return _rand(n, string.ascii_lowercase + string.digits)


def random_suffix(n: int = 12) -> str:
    return _rand(n)
