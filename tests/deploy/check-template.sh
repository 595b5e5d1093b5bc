#!/usr/bin/env bash
# The SAM template's checks: `sam validate --lint`, then cfn-lint on the template translated
# to plain CloudFormation offline (cfn-lint alone no longer expands SAM resources), the HTTP
# API's access checks on that translation, and the monitoring checks (check_monitoring.py: the
# alarms, X-Ray, the dashboard against the metrics the code records).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p target
SAM_CLI_TELEMETRY=0 .venv/bin/sam validate --lint --region us-east-1 -t template.yaml

# The template needs AWS::LanguageExtensions for one thing only: the `!If [AuthOn, ...]` around
# HttpApi's Auth (and the `!If` on its scopes), which CloudFormation resolves from the
# parameters before the SAM transform runs. translate.py runs the SAM transform alone, so this
# resolves that Auth block the same way, once per case below, and leaves every other intrinsic
# as it is (cfn-lint keeps checking both sides of each other condition). (SAM CLI's own
# expansion is no substitute: offline it turns `!Sub "${AWS::StackName}-..."` into plain text.)
# Each case's translation is then checked: with auth on, every route of the HTTP API has the
# JWT authorizer (and the route scopes); with auth off, none; the stage throttles; the cap on
# every queue consumer's concurrency.
.venv/bin/python - <<'PY'
import copy
import json
import re
import subprocess
import sys

sys.path.insert(0, "tests/deploy")
import translate  # noqa: E402  (its YAML loader, which takes the short tags)

NO_VALUE = object()
# A deploy's values for the parameters without a usable default (the rule AuthNeedsIssuer
# refuses the defaults while auth is on).
ISSUER = {
    "AuthIssuer": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example",
    "AuthAudience": "example-client-id",
    "AuthJwksUrl": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example/.well-known/jwks.json",
}
# The console's origin when it is served from elsewhere (ConsoleOrigin).
CONSOLE = "https://console.example.com"
# (name, parameter values, translation)
CASES = [
    ("auth on", ISSUER, "target/template.cfn.json"),
    ("auth on, route scopes", {**ISSUER, "AuthRouteScopes": "agora/api,agora:admin"}, "target/template.scopes.cfn.json"),
    ("auth off", {"AuthEnabled": "false"}, "target/template.auth-off.cfn.json"),
    ("auth on, console elsewhere", {**ISSUER, "ConsoleOrigin": CONSOLE}, "target/template.console.cfn.json"),
]

with open("template.yaml", encoding="utf-8") as f:
    source = translate.yaml_parse(f.read())
failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}", file=sys.stderr)


class Resolver:
    """What AWS::LanguageExtensions does with a value whose intrinsics depend on parameters only."""

    def __init__(self, template, values):
        self.template, self.values = template, values

    def param(self, name):
        spec = self.template["Parameters"][name]
        value = str(self.values.get(name, spec.get("Default", "")))
        return [v.strip() for v in value.split(",")] if spec["Type"] == "CommaDelimitedList" else value

    def condition(self, name):
        return bool(self(self.template["Conditions"][name]))

    def __call__(self, value):
        if isinstance(value, list):
            return [v for v in map(self, value) if v is not NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref":
                return NO_VALUE if arg == "AWS::NoValue" else self.param(arg)
            if key == "Condition":
                return self.condition(arg)
            if key == "Fn::If":
                return self(arg[1] if self.condition(arg[0]) else arg[2])
            if key == "Fn::Equals":
                return self(arg[0]) == self(arg[1])
            if key == "Fn::Not":
                return not self(arg[0])
            if key == "Fn::And":
                return all(map(self, arg))
            if key == "Fn::Or":
                return any(map(self, arg))
            if key == "Fn::Join":
                return arg[0].join(self(arg[1]))
            if key == "Fn::EachMemberEquals":
                return all(v == self(arg[1]) for v in self(arg[0]))
        return {k: r for k, r in ((k, self(v)) for k, v in value.items()) if r is not NO_VALUE}


def check_environment():
    """Each function serving HTTP routes reads the caller's claims; live-stream checks tokens itself."""
    http = {"AGORA_AUTH": {"Fn::If": ["AuthOn", "jwt-authorizer", "off"]}}
    claims = {"AGORA_AUTH_SUBJECT_CLAIM": {"Ref": "AuthSubjectClaim"}, "AGORA_AUTH_ADMIN_SCOPE": {"Ref": "AuthAdminScope"}}
    live = {
        "AGORA_AUTH_JWKS_URL": {"Fn::If": ["AuthOn", {"Ref": "AuthJwksUrl"}, {"Ref": "AWS::NoValue"}]},
        "AGORA_AUTH_ISSUER": {"Ref": "AuthIssuer"},
        "AGORA_AUTH_AUDIENCE": {"Fn::Select": [0, {"Ref": "AuthAudience"}]},
    }
    for name, resource in source["Resources"].items():
        props = resource.get("Properties", {})
        if resource.get("Type") != "AWS::Serverless::Function":
            continue
        # The $default route's function (no Path) reads no caller: it only says 404 or 405.
        serves_http = any(e.get("Type") == "HttpApi" and "Path" in e.get("Properties", {}) for e in props.get("Events", {}).values())
        wanted = {**http, **claims} if serves_http else {**live, **claims} if name == "VotingLiveStreamFunction" else {}
        variables = props.get("Environment", {}).get("Variables", {})
        for variable, value in wanted.items():
            if variables.get(variable) != value:
                fail(f"{name}: environment {variable} is {variables.get(variable)!r}, not {value!r}")


def target_of(operation):
    """The function a route's integration invokes, from its `${XFunction.Arn}`."""
    uri = json.dumps(operation.get("x-amazon-apigateway-integration", {}).get("uri"))
    return uri.split("functions/${", 1)[-1].split(".Arn}", 1)[0] if "functions/${" in uri else uri


def check_translation(case, cfn, resolve):
    failed_before = len(failures)
    auth_on = resolve.condition("AuthOn")
    scopes = resolve.param("AuthRouteScopes") if resolve.condition("HasRouteScopes") else []
    resources = cfn["Resources"]
    http_apis = {
        name: r for name, r in resources.items()
        if r["Type"] == "AWS::ApiGatewayV2::Api" and ("Body" in r["Properties"] or r["Properties"].get("ProtocolType") == "HTTP")
    }
    if not http_apis:
        fail(f"{case}: no HTTP API in the translation")
    routes = 0
    for api_name, api in http_apis.items():
        # SAM writes the HTTP API as an OpenAPI body: routes are its operations, the authorizer a
        # security scheme (x-amazon-apigateway-authorizer), a route's authorizer its `security`.
        body = api["Properties"].get("Body", {})
        schemes = body.get("components", {}).get("securitySchemes", {})
        jwt = {n for n, s in schemes.items() if s.get("x-amazon-apigateway-authorizer", {}).get("type") == "jwt"}
        if auth_on and not jwt:
            fail(f"{case}: {api_name} has no JWT authorizer (x-amazon-apigateway-authorizer of type jwt)")
        if not auth_on and jwt:
            fail(f"{case}: {api_name} has JWT authorizers {sorted(jwt)} with auth off")
        # CORS for the console's origin only when it has one (API Gateway answers the preflights).
        cors = body.get("x-amazon-apigateway-cors")
        origin = resolve.param("ConsoleOrigin")
        if origin and (not cors or cors.get("allowOrigins") != [origin] or "authorization" not in cors.get("allowHeaders", [])):
            fail(f"{case}: {api_name} answers CORS as {cors!r}, not for the console's origin {origin} with the authorization header")
        if not origin and cors:
            fail(f"{case}: {api_name} answers CORS ({cors!r}) with no ConsoleOrigin")
        for path, item in body.get("paths", {}).items():
            for method, operation in resolve(item).items():
                if not isinstance(operation, dict) or "x-amazon-apigateway-integration" not in operation:
                    continue
                routes += 1
                route = f"{method.upper()} {path} ({target_of(operation)})"
                security = resolve(operation.get("security", []))
                on_route = {n: s for entry in security for n, s in entry.items()}
                if not auth_on:
                    if on_route:
                        fail(f"{case}: route {route} has authorizers {on_route} with auth off")
                elif not jwt & on_route.keys():
                    fail(f"{case}: route {route} has no JWT authorizer (security {security})")
                elif any(on_route[n] != scopes for n in jwt & on_route.keys()):
                    fail(f"{case}: route {route} requires scopes {on_route}, not {scopes}")
        # Routes as resources (an HTTP API written without an OpenAPI body).
        authorizers = {
            n for n, r in resources.items()
            if r["Type"] == "AWS::ApiGatewayV2::Authorizer" and resolve(r["Properties"].get("AuthorizerType")) == "JWT"
        }
        for name, r in resources.items():
            props = r["Properties"]
            if r["Type"] != "AWS::ApiGatewayV2::Route" or props.get("ApiId") != {"Ref": api_name} or "Target" not in props:
                continue
            routes += 1
            kind, authorizer = resolve(props.get("AuthorizationType", "NONE")), resolve(props.get("AuthorizerId"))
            if auth_on and (kind != "JWT" or not authorizer or authorizer.get("Ref") not in authorizers):
                fail(f"{case}: route {props.get('RouteKey')} ({name}) has AuthorizationType {kind}, AuthorizerId {authorizer}")
            if not auth_on and kind != "NONE":
                fail(f"{case}: route {props.get('RouteKey')} ({name}) has AuthorizationType {kind} with auth off")
        stages = [r for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage" and r["Properties"].get("ApiId") == {"Ref": api_name}]
        for stage in stages or [{"Properties": {"StageName": "(none)"}}]:
            settings = stage["Properties"].get("DefaultRouteSettings", {})
            for setting, parameter in [("ThrottlingBurstLimit", "ThrottleBurstLimit"), ("ThrottlingRateLimit", "ThrottleRateLimit")]:
                if settings.get(setting) != {"Ref": parameter}:
                    fail(f"{case}: {api_name} stage {stage['Properties'].get('StageName')}: DefaultRouteSettings.{setting} is {settings.get(setting)!r}, not Ref {parameter}")
    if not routes:
        fail(f"{case}: no routes with a function integration on the HTTP API")
    # Every queue consumer's concurrency is capped by the one parameter (docs/scale.md).
    consumers = 0
    for name, r in resources.items():
        if r["Type"] != "AWS::Lambda::EventSourceMapping":
            continue
        consumers += 1
        cap = r["Properties"].get("ScalingConfig", {}).get("MaximumConcurrency")
        if cap != {"Ref": "QueueConsumerConcurrency"}:
            fail(f"{case}: event source {name}: ScalingConfig.MaximumConcurrency is {cap!r}, not Ref QueueConsumerConcurrency")
    if len(failures) == failed_before:
        print(f"{case}: {routes} HTTP routes, " + (f"each with the JWT authorizer, scopes {scopes}" if auth_on else "none with an authorizer") + f"; stage throttled; {consumers} queue consumers capped")


check_environment()
for case, values, out in CASES:
    resolve = Resolver(source, values)
    template = copy.deepcopy(source)
    props = template["Resources"]["HttpApi"]["Properties"]
    for key in ("Auth", "CorsConfiguration"):
        value = resolve(props.get(key, NO_VALUE))
        if value is NO_VALUE:
            props.pop(key, None)
        else:
            props[key] = value
    # A condition or parameter only those blocks used is gone with them, as after the real
    # transform (else cfn-lint: W8001 unused condition, W2001 unused parameter; `sam validate
    # --lint` above still finds the template's own unused ones).
    for section in ("Conditions", "Parameters"):
        for name in list(template[section]):
            rest = {k: v for k, v in template.items() if k != section}, {k: v for k, v in template[section].items() if k != name}
            if not re.search(rf"\b{re.escape(name)}\b", json.dumps(rest)):
                del template[section][name]
    sam = out.replace(".cfn.json", ".sam.json")
    with open(sam, "w", encoding="utf-8") as f:
        json.dump(template, f, indent=1)
    subprocess.run([sys.executable, "tests/deploy/translate.py", sam, out], check=True)
    with open(out, encoding="utf-8") as f:
        check_translation(case, json.load(f), resolve)

# The rules that stop a deploy with auth on and nothing to check tokens against, or on MongoDB
# without its connection string.
SECRET = {"MongoUriSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:agora/mongodb-uri-AbCdEf"}
for case, values, refused in [
    ("defaults", {}, True),
    ("auth on with an issuer, no MongoDB secret", ISSUER, True),
    ("auth on with an issuer", {**ISSUER, **SECRET}, False),
    ("auth off", {"AuthEnabled": "false", **SECRET}, False),
    ("auth off, DynamoDB", {"AuthEnabled": "false", "StoreKind": "dynamodb"}, False),
]:
    resolve = Resolver(source, values)
    failed = [
        a["AssertDescription"] for rule in source.get("Rules", {}).values()
        if resolve(rule.get("RuleCondition", True)) for a in rule["Assertions"] if not resolve(a["Assert"])
    ]
    if bool(failed) != refused:
        fail(f"Rules, {case}: " + (f"refused: {failed}" if failed else "accepted, should be refused"))
    else:
        print(f"Rules, {case}: " + (f"refused ({failed[0]})" if failed else "accepted"))

if failures:
    sys.exit(f"template access checks: {len(failures)} failure(s)")
PY
.venv/bin/cfn-lint target/template.cfn.json target/template.scopes.cfn.json target/template.auth-off.cfn.json target/template.console.cfn.json
.venv/bin/python tests/deploy/check_monitoring.py template.yaml target/template.cfn.json
echo "template checks: sam validate --lint, cfn-lint on the translated template (auth on, with scopes, off, the console elsewhere), the access checks and the monitoring checks passed"
