"""What the stack talks to outside AWS, on loopback, for the tests: an OIDC issuer (discovery
document, JWKS with an RSA and an EC P-256 key; tokens signed RS256 or ES256) and a delegate
system (`POST /api/submit-and-wait`) that records each call and answers for the agent."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
from typing import Any, Callable

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import ec, rsa


class Outside:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="outside", daemon=True)
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.calls: list[dict] = []
        self.reply: Callable[[dict], tuple[int, Any]] = lambda call: (200, {"success": True, "ack": {"subject_id": call.get("subject_id"), "task_id": call.get("task_id"), "by": "stub"}, "output": {"done": True}})
        self.url = ""
        self.runner = None

    # -- lifecycle
    def start(self) -> "Outside":
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(30)
        return self

    async def _start(self):
        app = web.Application()
        app.router.add_get("/issuer/.well-known/openid-configuration", self.discovery)
        app.router.add_get("/jwks.json", self.jwks)
        app.router.add_post("/api/submit-and-wait", self.delegate)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"

    def stop(self):
        try:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    # -- the issuer
    @property
    def issuer(self) -> str:
        return self.url + "/issuer"

    @property
    def jwks_url(self) -> str:
        return self.url + "/jwks.json"

    audience = "agora-api"

    def auth_parameters(self) -> dict:
        return {"AuthEnabled": "true", "AuthIssuer": self.issuer, "AuthAudience": self.audience, "AuthJwksUrl": self.jwks_url}

    async def discovery(self, request):
        return web.json_response({"issuer": self.issuer, "jwks_uri": self.jwks_url})

    async def jwks(self, request):
        r = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.rsa.public_key()))
        r.update({"kid": "rsa-1", "use": "sig", "alg": "RS256"})
        e = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.ec.public_key()))
        e.update({"kid": "ec-1", "use": "sig", "alg": "ES256"})
        return web.json_response({"keys": [r, e]})

    def token(self, sub: str = "operator", scope: str | None = "agora:admin", alg: str = "RS256", ttl: int = 600, **claims) -> str:
        now = int(time.time())
        body = {"iss": self.issuer, "aud": self.audience, "sub": sub, "iat": now - 5, "exp": now + ttl, "jti": str(uuid.uuid4())}
        if scope:
            body["scope"] = scope
        body.update(claims)
        key, kid = (self.rsa, "rsa-1") if alg.startswith("RS") else (self.ec, "ec-1")
        return jwt.encode(body, key, algorithm=alg, headers={"kid": kid})

    # -- the delegate system
    @property
    def delegate_url(self) -> str:
        return self.url

    async def delegate(self, request):
        try:
            call = await request.json()
        except ValueError:
            return web.json_response({"error": "not JSON"}, status=400)
        call = dict(call, received_at=time.time())
        self.calls.append(call)
        status, body = self.reply(call)
        return web.json_response(body, status=status)

    def calls_for(self, pred: Callable[[dict], bool]) -> list[dict]:
        return [c for c in list(self.calls) if pred(c)]
