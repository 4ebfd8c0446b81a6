"""An LMS platform emulated for the LTI 1.3 tests (issue 48): its own RSA key pair and JWKS (rotatable), real
signed id_tokens for resource-link and deep-linking launches, an OAuth token endpoint that checks the tool's
client assertion against the tool's own JWKS (fetched from the tool's app), and the NRPS and AGS endpoints,
recording what the tool sent. It is handed to the tool as its outbound HTTP client (``LtiHttp``): every request
the tool makes is answered here, in process, and checked not to run on an event loop's thread.

The browser's side (the login initiation's redirect, the state cookie, the form post of the id_token) goes
through the tool's real ASGI app: ``Browser`` below."""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from judge.serve.model import lti as L
from judge.serve.services.lti.client import Reply, not_on_loop

LMS = "https://lms.test"
ISSUER = LMS
CLIENT_ID = "judge-tool-1"
DEPLOYMENT = "dep-1"
TOOL_URL = "https://judge.test"

LTI_YAML = f"""\
url: {TOOL_URL}
platforms:
  - name: Test LMS
    issuer: {ISSUER}
    client_id: "{CLIENT_ID}"
    deployment_ids: ["{DEPLOYMENT}"]
    auth_url: {LMS}/auth
    token_url: {LMS}/token
    jwks_url: {LMS}/jwks
    instructor_account: instructor
    ta_account: ta
"""

INSTRUCTOR = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
LEARNER = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk_of(key: rsa.RSAPrivateKey, kid: str) -> dict[str, Any]:
    return {**json.loads(RSAAlgorithm.to_jwk(key.public_key())), "kid": kid, "alg": "RS256", "use": "sig"}


@dataclass
class Platform:
    now: Callable[[], float]
    tool_jwks: Callable[[], Mapping[str, Any]] = lambda: {}  # the tool's JWKS, as the platform fetches it
    keys: dict[str, rsa.RSAPrivateKey] = field(default_factory=dict)
    kid: str = "lms-key-1"
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, URL) the tool sent
    scores: list[dict[str, Any]] = field(default_factory=list)  # the AGS scores received
    lineitems: list[dict[str, Any]] = field(default_factory=list)
    members: list[dict[str, Any]] = field(default_factory=list)
    fail_scores: int = 0  # answer 500 to this many score posts
    tokens: set[str] = field(default_factory=set)
    assertions: list[dict[str, Any]] = field(default_factory=list)  # the tool's client assertions, verified

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys[self.kid] = new_key()

    # ---------------------------------------------------------------------------------------- keys and tokens

    def rotate(self, kid: str) -> None:
        """A new key published (the old one kept in the set) and used from now on."""
        self.keys[kid] = new_key()
        self.kid = kid

    def jwks(self) -> dict[str, Any]:
        return {"keys": [jwk_of(k, kid) for kid, k in self.keys.items()]}

    def sign(self, claims: Mapping[str, Any], key: rsa.RSAPrivateKey | None = None, kid: str | None = None) -> str:
        return jwt.encode(dict(claims), key or self.keys[self.kid], algorithm="RS256", headers={"kid": kid or self.kid})

    def claims(
        self,
        nonce: str,
        sub: str = "lms-user-1",
        roles: list[str] | None = None,
        message_type: str = L.RESOURCE_LINK_REQUEST,
        contest: str | None = "hw",
        **extra: Any,
    ) -> dict[str, Any]:
        now = int(self.now())
        out: dict[str, Any] = {
            "iss": ISSUER,
            "aud": CLIENT_ID,
            "sub": sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": "Ada Lovelace",
            "email": "s1@example.edu",
            L.MESSAGE_TYPE: message_type,
            L.VERSION: "1.3.0",
            L.DEPLOYMENT_ID: DEPLOYMENT,
            L.TARGET_LINK_URI: f"{TOOL_URL}/lti/launch",
            L.ROLES: LEARNER if roles is None else roles,
            L.CONTEXT: {"id": "course-101", "label": "CS101"},
            L.NRPS: {"context_memberships_url": f"{LMS}/api/memberships", "service_versions": ["2.0"]},
            L.AGS_ENDPOINT: {
                "scope": [L.SCOPE_LINEITEM, L.SCOPE_SCORE],
                "lineitems": f"{LMS}/api/lineitems",
            },
        }
        if message_type == L.RESOURCE_LINK_REQUEST:
            out[L.RESOURCE_LINK] = {"id": f"link-{contest}"}
            if contest is not None:
                out[L.CUSTOM] = {"judge_contest": contest}
                item = next((i for i in self.lineitems if i["resourceId"] == contest), None)
                if item is not None:
                    out[L.AGS_ENDPOINT] = {**out[L.AGS_ENDPOINT], "lineitem": item["id"]}
        else:
            out[L.DL_SETTINGS] = {
                "deep_link_return_url": f"{LMS}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "data": "opaque-platform-data",
            }
        out.update(extra)
        return {k: v for k, v in out.items() if v is not None}

    # ---------------------------------------------------------------------------------------- deep linking

    def receive_deep_link(self, token: str) -> dict[str, Any]:
        """The tool's LtiDeepLinkingResponse checked as a platform checks it (the tool's JWKS, iss = the client id,
        aud = the platform); each link's line item made (later launches of it carry it)."""
        header = jwt.get_unverified_header(token)
        key = next(k for k in self.tool_jwks()["keys"] if k["kid"] == header["kid"])
        claims = jwt.decode(
            token,
            RSAAlgorithm.from_jwk(json.dumps(key)),
            algorithms=["RS256"],
            audience=ISSUER,
            options={"verify_iat": False, "verify_exp": False},
        )  # the platform's clock is the test's
        assert claims["iat"] <= self.now() < claims["exp"]
        assert claims["iss"] == CLIENT_ID and claims[L.MESSAGE_TYPE] == L.DEEP_LINKING_RESPONSE
        assert claims[L.DEPLOYMENT_ID] == DEPLOYMENT and claims[L.DL_DATA] == "opaque-platform-data"
        for item in claims[L.DL_CONTENT_ITEMS]:
            line = item["lineItem"]
            self.lineitems.append({**line, "id": f"{LMS}/api/lineitems/{len(self.lineitems) + 1}"})
        return claims

    # ---------------------------------------------------------------------------------------- the tool's requests

    def _bearer(self, headers: Mapping[str, str]) -> bool:
        auth = headers.get("Authorization", "")
        return auth.startswith("Bearer ") and auth[7:] in self.tokens

    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None) -> Reply:
        not_on_loop()  # the tool never waits for the LMS on the event loop's thread
        self.requests.append((method, url))
        parts = urlsplit(url)
        path = parts.path
        if not url.startswith(LMS):
            return Reply(404)
        if method == "GET" and path == "/jwks":
            return Reply(200, json.dumps(self.jwks()).encode())
        if method == "POST" and path == "/token":
            return self._token(dict(parse_qsl((body or b"").decode())))
        if not self._bearer(headers):
            return Reply(401, b'{"error": "invalid_token"}')
        if method == "GET" and path == "/api/memberships":
            return Reply(200, json.dumps({"id": url, "members": self.members}).encode())
        if method == "GET" and path == "/api/lineitems":
            wanted = parse_qs(parts.query).get("resource_id", [None])[0]
            found = [i for i in self.lineitems if wanted is None or i["resourceId"] == wanted]
            return Reply(200, json.dumps(found).encode())
        if method == "POST" and path == "/api/lineitems":
            item = {**json.loads(body or b"{}"), "id": f"{LMS}/api/lineitems/{len(self.lineitems) + 1}"}
            self.lineitems.append(item)
            return Reply(201, json.dumps(item).encode())
        m = re.fullmatch(r"/api/lineitems/(\d+)/scores", path)
        if method == "POST" and m:
            assert headers.get("Content-Type") == "application/vnd.ims.lis.v1.score+json"
            if self.fail_scores > 0:
                self.fail_scores -= 1
                return Reply(500, b"the LMS is down")
            self.scores.append({"lineitem": f"{LMS}/api/lineitems/{m.group(1)}", **json.loads(body or b"{}")})
            return Reply(200, b"")
        return Reply(404)

    def _token(self, form: Mapping[str, str]) -> Reply:
        assert form.get("grant_type") == "client_credentials"
        assert form.get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        token = form["client_assertion"]
        header = jwt.get_unverified_header(token)
        key = next(k for k in self.tool_jwks()["keys"] if k["kid"] == header["kid"])
        claims = jwt.decode(
            token,
            RSAAlgorithm.from_jwk(json.dumps(key)),
            algorithms=["RS256"],
            audience=f"{LMS}/token",
            options={"verify_iat": False, "verify_exp": False},
        )
        assert claims["iat"] <= self.now() < claims["exp"]
        assert claims["iss"] == claims["sub"] == CLIENT_ID and claims["exp"] > claims["iat"]
        self.assertions.append(claims)
        access = secrets.token_urlsafe(16)
        self.tokens.add(access)
        return Reply(200, json.dumps({"access_token": access, "token_type": "bearer", "expires_in": 3600}).encode())


@dataclass
class Browser:
    """A browser that goes from the LMS to the tool: the login initiation, then the platform's form post."""

    api: Any  # serve_fixtures.Api over the site's app
    platform: Platform

    def login(self, **params: str) -> tuple[Any, dict[str, str], dict[str, str]]:
        """GET /lti/login; (the response, the authorization request's query, the cookies it set)."""
        query = {
            "iss": ISSUER,
            "login_hint": "hint-1",
            "target_link_uri": f"{TOOL_URL}/lti/launch",
            "lti_message_hint": "msg-1",
            "client_id": CLIENT_ID,
            **params,
        }
        r = self.api.request("GET", "/lti/login?" + urlencode(query))
        if r.status_code != 302:
            return r, {}, {}
        location = r.headers["location"]
        assert location.startswith(f"{LMS}/auth?")
        auth = dict(parse_qsl(urlsplit(location).query))
        cookies = {}
        for line in r.headers.get_list("set-cookie"):
            name, _, rest = line.partition("=")
            cookies[name] = rest.split(";")[0]
            assert "SameSite=None" in line and "Secure" in line and "HttpOnly" in line
        return r, auth, cookies

    def post(self, id_token: str, state: str, cookies: Mapping[str, str]) -> Any:
        return self.api.request("POST", "/lti/launch", data={"id_token": id_token, "state": state}, cookies=cookies)

    def launch(self, sign: Callable[[dict[str, Any]], str] | None = None, **claims: Any) -> tuple[Any, dict[str, Any]]:
        """A whole launch: the login, the platform's checks of the authorization request, an id_token with
        ``claims`` (signed by ``sign``, default the platform's key), posted back. (The response, its parts.)"""
        r, auth, cookies = self.login()
        assert r.status_code == 302, r.text
        assert auth["redirect_uri"] == f"{TOOL_URL}/lti/launch" and auth["client_id"] == CLIENT_ID
        assert auth["response_type"] == "id_token" and auth["response_mode"] == "form_post"
        assert auth["scope"] == "openid" and auth["prompt"] == "none" and auth["login_hint"] == "hint-1"
        nonce = claims.pop("nonce", auth["nonce"])
        body = self.platform.claims(nonce, **claims)
        token = (sign or self.platform.sign)(body)
        return self.post(token, auth["state"], cookies), {
            "token": token,
            "state": auth["state"],
            "cookies": cookies,
            "claims": body,
        }


def no_sleep(seconds: float) -> None:
    assert seconds < 60


def wall_clock() -> float:
    return time.time()
