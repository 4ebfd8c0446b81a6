"""The one way LTI talks to an LMS (issue 48): JWKS, the OAuth token, NRPS and AGS requests go through an
``LtiHttp`` handed to the tool at the start (`judge serve`: ``UrlHttp``; the tests: the emulated platform).
Every request has a timeout and a cap on the answer's size, and never runs on the event loop's thread (a
handler's thread or the grade sync's)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_REPLY_BYTES = 8 * 1024 * 1024  # an NRPS page of a large course is well under this


class LtiHttpError(Exception):
    """The LMS could not be reached or answered something unreadable (one line, no secret in it)."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)  # names in lower case

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise LtiHttpError(f"the LMS answered {self.status} with something that is not JSON") from None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class LtiHttp(Protocol):
    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None) -> Reply: ...


def not_on_loop() -> None:
    """Outbound HTTP waits: never on the event loop's thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    raise RuntimeError("LTI's outbound HTTP called on the event loop's thread")


class UrlHttp:
    """``LtiHttp`` over the standard library, with a timeout per request."""

    def __init__(self, timeout_s: float = 10.0) -> None:
        self.timeout_s = timeout_s

    def request(self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None) -> Reply:
        not_on_loop()
        if not url.startswith(("https://", "http://")):
            raise LtiHttpError("not an http(s) URL")
        req = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as r:  # noqa: S310 (http(s) only, checked)
                data = r.read(MAX_REPLY_BYTES + 1)
                status, got = r.status, r.headers
        except urllib.error.HTTPError as exc:
            data, status, got = exc.read(MAX_REPLY_BYTES + 1), exc.code, exc.headers
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LtiHttpError(f"{method} {url.split('?')[0]}: {reason}") from None
        if len(data) > MAX_REPLY_BYTES:
            raise LtiHttpError(f"{method} {url.split('?')[0]}: the answer is larger than {MAX_REPLY_BYTES} bytes")
        return Reply(status, data, {k.lower(): v for k, v in (got.items() if got is not None else [])})
