"""The tool's side of LTI 1.3 (issue 48) while `judge serve` runs: lti.yaml's platforms, the tool's private key
(made on the first start, owner-only) and its JWKS, the states of logins on their way (signed, never stored),
each platform's public keys (fetched from its JWKS URL, cached, fetched again for a key id not seen: a platform
rotating its keys), and the OAuth access tokens for AGS and NRPS (a client assertion signed by the tool's key,
RFC 7523; cached until they expire)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from judge.serve.model import ltijwt
from judge.serve.model.errors import Refused
from judge.serve.model.lti import KEY_FILE, PLATFORM_KEYS, STATE_S, LtiConfig, LtiConfigError, Platform, platform_from
from judge.serve.model.viewer import Viewer
from judge.serve.services.lti.client import LtiHttp, LtiHttpError
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Storage

JWKS_MAX_AGE_S = 3600.0  # a platform's keys are fetched again after an hour
JWKS_REFETCH_S = 10.0  # ... and for an unknown key id, at most once per this long (no fetch per forged token)


def load_or_make_key(path: Path) -> bytes:
    """The tool's private key (PEM): read, or made and written owner-only (0600) on the first start. A key file
    others may read is refused (one line): a key anyone on the machine can read signs anyone's grades."""
    if path.exists():
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise OSError(f"{path}: the tool's private key is readable by others (mode {mode:o}): chmod 600 it")
        return path.read_bytes()
    pem = ltijwt.private_pem(ltijwt.new_private_key())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return pem


@dataclass(frozen=True)
class State:
    """What a login's ``state`` carries (signed by the tool: nothing is stored before the launch)."""

    issuer: str
    client_id: str
    nonce: str
    target: str
    expires_s: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class LtiTool:
    """The LTI tool of a site: its configuration, keys, the platforms' keys and tokens (thread-safe caches)."""

    def __init__(self, config: LtiConfig, pem: bytes, http: LtiHttp, log: Callable[[str], None]) -> None:
        self.config = config
        self.http = http
        self.log = log
        self._key = ltijwt.load_private(pem)
        self.public = ltijwt.public_jwk(self._key.public_key())
        self.kid = str(self.public["kid"])
        self._secret = hashlib.sha256(b"judge-lti-state\0" + pem).digest()  # signs states and deep-link contexts
        self._lock = threading.Lock()
        self._jwks: dict[str, tuple[float, Mapping[str, Any]]] = {}  # jwks_url -> (fetched at, the set)
        self._tokens: dict[tuple[str, str, str], tuple[str, float]] = {}  # (issuer, client, scope) -> (token, until)

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.public]}

    def sign(self, claims: Mapping[str, Any]) -> str:
        return ltijwt.sign(claims, self._key, self.kid)

    # ------------------------------------------------------------------------------------------ signed values

    def seal(self, payload: Mapping[str, Any]) -> str:
        body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        mac = _b64(hmac.new(self._secret, body.encode(), hashlib.sha256).digest())
        return f"{body}.{mac}"

    def unseal(self, token: str, now: float, what: str) -> Mapping[str, Any]:
        """A value ``seal`` made, unexpired (its ``until``); else Refused(400) naming ``what``."""
        body, _, mac = token.partition(".")
        good = _b64(hmac.new(self._secret, body.encode(), hashlib.sha256).digest())
        if not body or not hmac.compare_digest(mac.encode(), good.encode()):
            raise Refused(400, f"LTI launch refused: {what} was not made by this tool")
        try:
            payload = json.loads(_unb64(body))
        except (ValueError, UnicodeDecodeError):
            raise Refused(400, f"LTI launch refused: {what} cannot be read") from None
        until = payload.get("until") if isinstance(payload, dict) else None
        if not isinstance(until, (int, float)) or until < now:
            raise Refused(400, f"LTI launch refused: {what} has expired: start again from the LMS")
        return payload

    def new_state(self, platform: Platform, target: str, now: float) -> State:
        return State(platform.issuer, platform.client_id, secrets.token_urlsafe(24), target, now + STATE_S)

    def state_token(self, s: State) -> str:
        return self.seal(
            {"iss": s.issuer, "client": s.client_id, "nonce": s.nonce, "target": s.target, "until": s.expires_s}
        )

    def open_state(self, token: str, now: float) -> State:
        p = self.unseal(token, now, "the state")
        issuer, client, nonce, target = (str(p.get(k, "")) for k in ("iss", "client", "nonce", "target"))
        return State(issuer, client, nonce, target, float(p["until"]))

    # ------------------------------------------------------------------------------------------ the platforms' keys

    def _fetch_jwks(self, platform: Platform, now: float) -> Mapping[str, Any]:
        try:
            reply = self.http.request("GET", platform.jwks_url, {"Accept": "application/json"})
            found = reply.json() if reply.ok else None
        except LtiHttpError as exc:
            raise Refused(502, f"LTI launch refused: the platform's keys could not be fetched ({exc})") from None
        if not isinstance(found, dict) or not isinstance(found.get("keys"), list):
            raise Refused(502, f"LTI launch refused: the platform's JWKS URL answered {reply.status}, not a key set")
        with self._lock:
            self._jwks[platform.jwks_url] = (now, found)
        self.log(f"lti: fetched {platform.name}'s keys ({len(found['keys'])})")
        return found

    def platform_key(self, platform: Platform, kid: str | None, now: float) -> Any:
        """The platform's public key of ``kid``: from the cache, else the JWKS fetched again (rotation), at most
        once per JWKS_REFETCH_S for unknown ids. Refused(401) when the platform has no such key."""
        with self._lock:
            cached = self._jwks.get(platform.jwks_url)
        if cached is not None and now - cached[0] < JWKS_MAX_AGE_S:
            key = ltijwt.key_of(cached[1], kid)
            if key is not None:
                return key
            if now - cached[0] < JWKS_REFETCH_S:
                raise Refused(401, "LTI launch refused: the id_token's key id is not in the platform's JWKS")
        key = ltijwt.key_of(self._fetch_jwks(platform, now), kid)
        if key is None:
            raise Refused(401, "LTI launch refused: the id_token's key id is not in the platform's JWKS")
        return key

    # ------------------------------------------------------------------------------------------ OAuth tokens

    def access_token(self, platform: Platform, scopes: tuple[str, ...], now: float) -> str:
        """An access token for ``scopes`` (client credentials with a JWT assertion signed by the tool's key, as
        the Security Framework §4.1 says). Raises LtiHttpError."""
        scope = " ".join(sorted(scopes))
        key = (platform.issuer, platform.client_id, scope)
        with self._lock:
            cached = self._tokens.get(key)
        if cached is not None and cached[1] > now + 30:
            return cached[0]
        assertion = self.sign(
            {
                "iss": platform.client_id,
                "sub": platform.client_id,
                "aud": platform.token_audience or platform.token_url,
                "iat": int(now),
                "exp": int(now) + 300,
                "jti": secrets.token_urlsafe(16),
            }
        )
        body = urlencode(
            {
                "grant_type": "client_credentials",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": assertion,
                "scope": scope,
            }
        ).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        reply = self.http.request("POST", platform.token_url, headers, body)
        found = reply.json() if reply.body else None
        if not reply.ok or not isinstance(found, dict) or not isinstance(found.get("access_token"), str):
            error = found.get("error") if isinstance(found, dict) else None
            raise LtiHttpError(f"the LMS refused a token ({reply.status}{f': {error}' if error else ''})")
        expires = found.get("expires_in", 3600)
        until = now + (float(expires) if isinstance(expires, (int, float)) else 3600.0)
        with self._lock:
            self._tokens[key] = (found["access_token"], until)
        return str(found["access_token"])

    def forget_token(self, platform: Platform) -> None:
        with self._lock:
            for k in [k for k in self._tokens if k[:2] == platform.key]:
                del self._tokens[k]


def open_tool(root: Path, config: LtiConfig, storage: Storage, http: LtiHttp, log: Callable[[str], None]) -> LtiTool:
    """The tool of the site ``root``: its key (ROOT/lti-key.pem, made on the first start), lti.yaml's platforms
    and those added on the page (``storage``: the site database). Raises OSError."""
    with storage.read() as r:
        added = r.lti_platforms()
    return LtiTool(config.with_added(added), load_or_make_key(root / KEY_FILE), http, log)


def add_platform(tool: LtiTool, storage: Storage, viewer: Viewer, form: Mapping[str, str], now: float) -> Platform:
    """An admin registers a platform on /site/lti: checked as lti.yaml's entries are, kept in the site database
    (lti.yaml stays the instructor's file; a restart lays the stored ones over it again), audited, in force at
    once. Refused: 400 (one line naming the field), 409 (that issuer and client id are registered already)."""
    access.admin(viewer, "register LMS platforms")
    entry: dict[str, object] = {k: form.get(k, "").strip() for k in PLATFORM_KEYS if k != "deployment_ids"}
    entry = {k: v for k, v in entry.items() if v}
    entry["deployment_ids"] = [d.strip() for d in form.get("deployment_ids", "").replace(",", " ").split() if d.strip()]
    try:
        platform = platform_from(entry, "the new platform")
    except LtiConfigError as exc:
        raise Refused(400, str(exc)) from None
    if tool.config.platform(platform.issuer, platform.client_id) is not None:
        raise Refused(409, "a platform of that issuer and client id is registered already")
    with storage.write() as w:
        if not w.add_lti_platform(platform.issuer, platform.client_id, json.dumps(entry, sort_keys=True), now):
            raise Refused(409, "a platform of that issuer and client id is registered already")
        audit(w, viewer, now, "lti.platform_add", {"name": platform.name, "issuer": platform.issuer})
    tool.config = replace(tool.config, platforms=(*tool.config.platforms, platform))
    return platform
