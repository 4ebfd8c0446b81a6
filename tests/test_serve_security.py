"""The security findings of issue 27, each reproduced against the real app (httpx through the ASGI stack) and
refused: malformed JSON (F6), cross-site requests (F4), sessions that outlive a logout (F2), the login
throttle and forwarded addresses (F3), file modes and keys (F5), and the smaller ones (page messages, stored
zips). F1 (counting hidden objects) is a property of tests/test_serve_visibility.py; the process-level
reproductions (the real `judge serve`: log lines, X-Forwarded-For, file modes) are in
tests/test_serve_process.py. docs/security.md says what each defends against."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_fixtures import HOUR, T0, Api, FakeClock, db, make_server, write_contest

from judge.serve.services.server import Server

C = "/api/contests/test"
JSON = {"content-type": "application/json"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)  # an hour into the contest


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Server:
    s = make_server(write_contest(tmp_path / "contest"), clock)
    yield s  # type: ignore[misc]
    s.close()


@pytest.fixture
def api(server: Server) -> Api:
    return Api.of(server)


def stored(server: Server) -> int:
    return int(db(server).execute("SELECT count(*) FROM submissions").fetchone()[0])


# ================================================================================================= F6


MALFORMED = {
    "deep nesting, unclosed": b"[" * 12_000,
    "deep nesting, closed": b"[" * 5_000 + b"]" * 5_000,
    "deep objects": b'{"a":' * 3_000 + b"1" + b"}" * 3_000,
    "a 5,000-digit integer": b'{"problem_id": ' + b"9" * 5_000 + b"}",
    "NaN": b'{"problem_id": NaN}',
    "Infinity": b"[Infinity]",
    "an out-of-range float": b'{"time": 1e999}',
    "a lone surrogate": b'{"problem_id": "\\ud800", "language_id": "python3", "files": []}',
    "a surrogate in a key": b'{"\\udfff": 1}',
    "not UTF-8": b'{"problem_id": "\xff\xfe"}',
    "truncated": b'{"problem_id": "sum", "files": [{"data": "',
    "empty": b"",
}


@pytest.mark.parametrize("body", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_json_body_is_a_400_never_a_500(api: Api, server: Server, body: bytes) -> None:
    """F6: RecursionError, ValueError (int digits) and UnicodeEncodeError were 500s with a traceback each."""
    for method, path, user in (("POST", f"{C}/submissions", "team1"), ("PATCH", C, "admin")):
        r = api.request(method, path, user, content=body, headers=JSON)
        assert r.status_code == 400, (method, r.status_code, r.text[:200])
        message = r.json()["message"]
        assert message.startswith("the body must be JSON") or "required" in message or "object" in message, message
        assert "\n" not in message and len(r.content) < 300
    assert stored(server) == 0
    assert api.get(C, "admin").json().get("scoreboard_thaw_time") is None


@pytest.mark.parametrize("header", [b"Basic \xff\xfe", b"Basic \xc3\xa9t\xc3\xa9", b"Basic " + b"=" * 3, b"Digest x"])
def test_malformed_credentials_are_a_401(api: Api, header: bytes) -> None:
    """Non-ASCII bytes in the Authorization header were a ValueError (500) in base64's decoder."""
    r = api.get(f"{C}/account", headers={"authorization": header})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Basic"), r.text
