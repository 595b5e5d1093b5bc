"""The template's HTTP API as API Gateway serves it: routes from the OpenAPI body SAM writes
(method and path, `{param}` and `{proxy+}`), the JWT authorizer of the routes' `security`
(validated as AWS documents: the token from the identity source, optionally after `Bearer`;
RSA-signed, with a `kid` of the issuer's JWKS found through its OIDC discovery document; `iss`,
`aud` or else `client_id`, `exp`, `nbf`, `iat`; a route's scopes in `scope`/`scp`), payload
format 2.0 events, and the function's answer mapped back. API Gateway's own answers are kept
exactly: 404 `{"message":"Not Found"}`, 401 `{"message":"Unauthorized"}`, 403
`{"message":"Forbidden"}`, 500 `{"message":"Internal Server Error"}`, 503
`{"message":"Service Unavailable"}`, 429 `{"message":"Too Many Requests"}`."""

from __future__ import annotations

import base64
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import aiohttp
import jwt
from aiohttp import web

if TYPE_CHECKING:
    from .stack import Stack

RSA_ALGS = {"RS256", "RS384", "RS512"}
INTEGRATION_TIMEOUT = 30.0  # the HTTP API's maximum integration timeout
MAX_EVENT = 6 * 1024 * 1024  # Lambda's synchronous invocation payload limit
DEFAULT_ROUTE = "$default"  # the route of requests no other route matched


@dataclass
class Route:
    method: str  # upper case, or ANY
    path: str
    function: str  # logical id
    scopes: list[str] | None  # None: no authorizer on the route
    authorizer: dict | None
    segments: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.segments = [s for s in self.path.split("/") if s != ""]

    @property
    def key(self) -> str:
        return DEFAULT_ROUTE if self.path == DEFAULT_ROUTE else f"{self.method} {self.path}"

    def match(self, path: str) -> dict | None:
        parts = [s for s in path.split("/") if s != ""]
        params = {}
        for i, seg in enumerate(self.segments):
            if seg.startswith("{") and seg.endswith("+}"):
                if i >= len(parts):
                    return None
                params[seg[1:-2]] = "/".join(parts[i:])
                return params
            if i >= len(parts):
                return None
            if seg.startswith("{") and seg.endswith("}"):
                params[seg[1:-1]] = parts[i]
            elif seg != parts[i]:
                return None
        return params if len(parts) == len(self.segments) else None

    def specificity(self):
        # Literal segments before parameters before greedy ones, as API Gateway prioritises.
        return [0 if not s.startswith("{") else (2 if s.endswith("+}") else 1) for s in self.segments], self.method == "ANY"


def routes_from_openapi(body: dict, function_of_uri) -> list[Route]:
    schemes = body.get("components", {}).get("securitySchemes", {})
    routes = []
    for path, ops in body.get("paths", {}).items():
        for method, op in ops.items():
            integ = op.get("x-amazon-apigateway-integration")
            if not integ:
                continue
            fn = function_of_uri(integ["uri"])
            sec = op.get("security")
            scopes = authorizer = None
            for entry in sec or []:
                for name, sc in entry.items():
                    spec = schemes.get(name, {}).get("x-amazon-apigateway-authorizer")
                    if spec and spec.get("type") == "jwt":
                        authorizer, scopes = spec, list(sc or [])
            m = "ANY" if method == "x-amazon-apigateway-any-method" else method.upper()
            routes.append(Route(m, path, fn, scopes, authorizer))
    return routes


class Unauthorized(Exception):
    pass


class JwtAuthorizer:
    """One JWT authorizer's checks; the issuer's keys from its discovery document, cached."""

    def __init__(self, spec: dict, session: aiohttp.ClientSession):
        cfg = spec.get("jwtConfiguration", {})
        self.issuer = cfg.get("issuer", "")
        self.audience = cfg.get("audience", []) or []
        self.identity = spec.get("identitySource", "$request.header.Authorization")
        self.session = session
        self.keys: dict[str, Any] = {}
        self.fetched = 0.0

    async def _jwks(self, refresh=False):
        if self.keys and not refresh and time.time() - self.fetched < 7200:
            return self.keys
        async with self.session.get(self.issuer.rstrip("/") + "/.well-known/openid-configuration") as r:
            discovery = await r.json(content_type=None)
        async with self.session.get(discovery["jwks_uri"]) as r:
            jwks = await r.json(content_type=None)
        self.keys = {k.get("kid"): k for k in jwks.get("keys", [])}
        self.fetched = time.time()
        return self.keys

    def token_of(self, request: web.Request) -> str:
        m = re.fullmatch(r"\$request\.header\.(.+)", self.identity)
        raw = request.headers.get(m.group(1), "") if m else ""
        raw = raw.strip()
        if raw[:7].lower() == "bearer ":
            raw = raw[7:].strip()
        return raw

    async def claims(self, request: web.Request) -> dict:
        token = self.token_of(request)
        if not token:
            raise Unauthorized("no token")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as e:
            raise Unauthorized(f"undecodable: {e}") from None
        alg = header.get("alg")
        if alg not in RSA_ALGS:
            raise Unauthorized(f"algorithm {alg} is not RSA-based")
        kid = header.get("kid")
        try:
            keys = await self._jwks()
            if kid not in keys:
                keys = await self._jwks(refresh=True)
        except (aiohttp.ClientError, ValueError, KeyError) as e:
            raise Unauthorized(f"the issuer's keys cannot be read: {e}") from None
        if kid not in keys:
            raise Unauthorized(f"kid {kid!r} is not in the issuer's JWKS")
        try:
            key = jwt.PyJWK(keys[kid], algorithm=alg).key
            claims = jwt.decode(token, key, algorithms=[alg], options={"verify_aud": False, "verify_iss": False, "verify_exp": False, "verify_nbf": False, "verify_iat": False})
        except jwt.PyJWTError as e:
            raise Unauthorized(f"signature: {e}") from None
        now = time.time()
        if claims.get("iss") != self.issuer:
            raise Unauthorized("iss")
        if "aud" in claims:
            aud = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
            if not set(aud) & set(self.audience):
                raise Unauthorized("aud")
        elif claims.get("client_id") not in self.audience:
            raise Unauthorized("client_id")
        if "exp" not in claims or not isinstance(claims["exp"], (int, float)) or claims["exp"] <= now:
            raise Unauthorized("exp")
        if "nbf" in claims and claims["nbf"] > now:
            raise Unauthorized("nbf")
        if "iat" in claims and claims["iat"] > now:
            raise Unauthorized("iat")
        return claims


def token_scopes(claims: dict) -> list[str]:
    out = []
    for name in ("scope", "scp"):
        v = claims.get(name)
        if isinstance(v, str):
            out.extend(v.split())
        elif isinstance(v, list):
            out.extend(str(x) for x in v)
    return out


def claim_strings(claims: dict) -> dict[str, str]:
    """Claims as API Gateway passes them to a function: every value a string, a list as `[a b]`."""
    out = {}
    for k, v in claims.items():
        if isinstance(v, str):
            out[k] = v
        elif isinstance(v, bool):
            out[k] = "true" if v else "false"
        elif isinstance(v, list):
            out[k] = "[" + " ".join(x if isinstance(x, str) else json.dumps(x) for x in v) + "]"
        elif isinstance(v, dict):
            out[k] = json.dumps(v, separators=(",", ":"))
        else:
            out[k] = str(v)
    return out


def gw(status: int, message: str, headers=None) -> web.Response:
    return web.Response(text=json.dumps({"message": message}), status=status, content_type="application/json", headers=headers or {})


class HttpApi:
    def __init__(self, stack: "Stack", api_id: str, routes: list[Route], throttle: tuple[float, float] | None):
        self.stack, self.api_id, self.routes = stack, api_id, routes
        self.throttle = throttle  # (rate per second, burst)
        self.buckets: dict[str, list[float]] = {}
        self.authorizers: dict[int, JwtAuthorizer] = {}
        self.session: aiohttp.ClientSession | None = None
        self.runner: web.AppRunner | None = None
        self.url = ""
        self.log: list[dict] = []

    async def start(self):
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        app = web.Application(client_max_size=10 * 1024 * 1024)  # the HTTP API's payload quota
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"

    async def close(self):
        if self.runner:
            await self.runner.cleanup()
        if self.session:
            await self.session.close()

    def route_for(self, method: str, path: str) -> tuple[Route, dict] | None:
        found = []
        for r in self.routes:
            if r.path == DEFAULT_ROUTE:
                continue
            params = r.match(path)
            if params is not None and (r.method == method or r.method == "ANY"):
                found.append((r.specificity(), r, params))
        if not found:
            # API Gateway's `$default` route takes every request no other route matched.
            default = next((r for r in self.routes if r.path == DEFAULT_ROUTE), None)
            return (default, {}) if default else None
        found.sort(key=lambda x: x[0])
        return found[0][1], found[0][2]

    def _throttled(self, key: str) -> bool:
        if not self.throttle:
            return False
        rate, burst = self.throttle
        now = time.monotonic()
        tokens, last = self.buckets.get(key, [burst, now])
        tokens = min(burst, tokens + (now - last) * rate)
        if tokens < 1:
            self.buckets[key] = [tokens, now]
            return True
        self.buckets[key] = [tokens - 1, now]
        return False

    async def handle(self, request: web.Request):
        started = time.time()
        resp = await self._handle(request)
        self.log.append({"method": request.method, "path": request.path, "status": resp.status, "ms": int((time.time() - started) * 1000)})
        return resp

    async def _handle(self, request: web.Request):
        matched = self.route_for(request.method, request.path)
        if matched is None:
            return gw(404, "Not Found")
        route, params = matched
        if self._throttled(route.key):
            return gw(429, "Too Many Requests")
        authorizer_ctx = None
        if route.authorizer is not None:
            az = self.authorizers.setdefault(id(route.authorizer), JwtAuthorizer(route.authorizer, self.session))
            try:
                claims = await az.claims(request)
            except Unauthorized as e:
                return gw(401, "Unauthorized", {"www-authenticate": f'Bearer error="invalid_token" error_description="{e}"'})
            scopes = token_scopes(claims)
            if route.scopes and not set(route.scopes) & set(scopes):
                return gw(403, "Forbidden", {"www-authenticate": f'Bearer scope="{" ".join(route.scopes)}" error="insufficient_scope"'})
            authorizer_ctx = {"jwt": {"claims": claim_strings(claims), "scopes": scopes if route.scopes else None}}
        body = await request.read()
        event = self.event(request, route, params, body, authorizer_ctx)
        if len(json.dumps(event)) > MAX_EVENT:
            return gw(413, "Request Entity Too Large")
        fn = self.stack.functions[route.function].runtime
        try:
            result = await __import__("asyncio").wait_for(fn.invoke(event, source=f"http {route.key}"), INTEGRATION_TIMEOUT)
        except __import__("asyncio").TimeoutError:
            return gw(503, "Service Unavailable")
        if not result.ok:
            return gw(500, "Internal Server Error")
        return self.response(result.payload)

    def event(self, request: web.Request, route: Route, params: dict, body: bytes, authorizer) -> dict:
        now = time.time()
        domain = f"{self.api_id}.execute-api.{self.stack.pseudo.region}.amazonaws.com"
        headers: dict[str, str] = {}
        cookies = []
        for k, v in request.headers.items():
            lk = k.lower()
            if lk == "cookie":
                cookies.extend(c.strip() for c in v.split(";") if c.strip())
                continue
            headers[lk] = f"{headers[lk]},{v}" if lk in headers else v
        peer = request.remote or "127.0.0.1"
        headers["host"] = domain
        headers["x-forwarded-for"] = peer
        headers["x-forwarded-port"] = "443"
        headers["x-forwarded-proto"] = "https"
        headers["x-amzn-trace-id"] = f"Root=1-{int(now):08x}-{uuid.uuid4().hex[:24]}"
        headers["content-length"] = str(len(body))
        query: dict[str, str] = {}
        for k, v in request.query.items():
            query[k] = f"{query[k]},{v}" if k in query else v
        ctx = {
            "accountId": self.stack.pseudo.account,
            "apiId": self.api_id,
            "domainName": domain,
            "domainPrefix": self.api_id,
            "http": {"method": request.method, "path": request.path, "protocol": f"HTTP/{request.version.major}.{request.version.minor}", "sourceIp": peer, "userAgent": request.headers.get("User-Agent", "")},
            "requestId": base64.b64encode(uuid.uuid4().bytes[:12]).decode().rstrip("=") + "=",
            "routeKey": route.key,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        }
        if authorizer:
            ctx["authorizer"] = authorizer
        event = {"version": "2.0", "routeKey": route.key, "rawPath": request.path, "rawQueryString": request.query_string, "headers": headers}
        if cookies:
            event["cookies"] = cookies
        if query:
            event["queryStringParameters"] = query
        if params:
            event["pathParameters"] = params
        event["requestContext"] = ctx
        if body:
            try:
                event["body"], event["isBase64Encoded"] = body.decode("utf-8"), False
            except UnicodeDecodeError:
                event["body"], event["isBase64Encoded"] = base64.b64encode(body).decode(), True
        else:
            event["isBase64Encoded"] = False
        return event

    @staticmethod
    def response(payload) -> web.Response:
        if isinstance(payload, dict) and "statusCode" in payload:
            status = int(payload["statusCode"])
            body = payload.get("body")
            data = b""
            if body is not None:
                data = base64.b64decode(body) if payload.get("isBase64Encoded") else str(body).encode()
            resp = web.Response(body=data, status=status)
            for k, v in (payload.get("headers") or {}).items():
                resp.headers[k] = str(v)
            for k, vs in (payload.get("multiValueHeaders") or {}).items():
                for v in vs:
                    resp.headers.add(k, str(v))
            for c in payload.get("cookies") or []:
                resp.headers.add("Set-Cookie", c)
            if "Content-Type" not in resp.headers:
                resp.headers["Content-Type"] = "application/json"
            return resp
        # No statusCode: API Gateway takes the answer as a 200 JSON body.
        text = payload if isinstance(payload, str) else json.dumps(payload)
        return web.Response(text=text, status=200, content_type="application/json")
