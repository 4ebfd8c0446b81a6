"""Issue 32 (a 500-team regional on one machine), the functional side: argon2 hashes made with other
parameters are made anew at a login and kept across a restart (with the sessions); the numbers are
bench/serve.py's (docs/benchmarks.md)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher
from serve_channels import Browser, LoopApi, log_in
from serve_fixtures import (
    CHEAP_HASHER,
    HOUR,
    PASSWORDS,
    SUM_AC,
    T0,
    Api,
    FakeClock,
    db,
    make_server,
    write_contest,
)

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.services.people.accounts import password_hasher

OLD_HASHER = PasswordHasher(time_cost=2, memory_cost=16, parallelism=2)  # "other parameters" than CHEAP_HASHER


def stored_hash(server, username: str) -> str:  # noqa: ANN001
    return str(db(server).execute("SELECT password_hash FROM accounts WHERE username = ?", (username,)).fetchone()[0])


def hashed_accounts(root: Path, hasher: PasswordHasher) -> dict[str, str]:
    """accounts.yaml with every password replaced by its hash (as `judge contest init` writes it)."""
    accounts = json.loads((root / "accounts.yaml").read_text())
    for a in accounts:
        a["password"] = hasher.hash(a["password"])
    (root / "accounts.yaml").write_text(json.dumps(accounts))
    return {a["username"]: a["password"] for a in accounts}


def test_the_default_parameters_are_owasps_argon2id() -> None:
    from argon2 import Type, extract_parameters

    p = extract_parameters(password_hasher().hash("x"))
    assert (p.type, p.memory_cost, p.time_cost, p.parallelism) == (Type.ID, 19 * 1024, 2, 1)


def test_a_hash_with_other_parameters_verifies_and_is_made_anew_at_login(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    root = write_contest(tmp_path / "contest")
    yaml_hashes = hashed_accounts(root, OLD_HASHER)
    with asyncio.Runner() as runner:
        first = make_server(root, clock)
        assert stored_hash(first, "team1") == yaml_hashes["team1"]
        api = LoopApi(first, runner)
        browser = log_in(api, "team1")  # the old hash verifies
        new = stored_hash(first, "team1")
        assert new != yaml_hashes["team1"] and not CHEAP_HASHER.check_needs_rehash(new)
        assert CHEAP_HASHER.verify(new, PASSWORDS["team1"])
        assert stored_hash(first, "team2") == yaml_hashes["team2"]  # nobody else's
        assert Api.of(first).get("/api/contests/test/account", "team1").status_code == 200
        cookie = browser.client.cookies[COOKIE]
        first.close()

        second = make_server(root, clock)  # accounts.yaml still holds the old hash: the rehash stands for it
        assert stored_hash(second, "team1") == new
        again = Browser(LoopApi(second, runner))
        again.client.cookies.set(COOKIE, cookie)
        assert again.request("GET", "/submit").status_code == 200  # the session survived
        assert log_in(LoopApi(second, runner), "team1")
        second.close()

        accounts = json.loads((root / "accounts.yaml").read_text())
        for a in accounts:
            if a["username"] == "team1":
                a["password"] = OLD_HASHER.hash("a new password")  # a reset: this hash wins, the session ends
        (root / "accounts.yaml").write_text(json.dumps(accounts))
        third = make_server(root, clock)
        assert OLD_HASHER.verify(stored_hash(third, "team1"), "a new password")
        gone = Browser(LoopApi(third, runner))
        gone.client.cookies.set(COOKIE, cookie)
        assert gone.request("GET", "/submit").headers["location"] == "/login"
        third.close()


def test_a_wrong_password_rehashes_nothing(tmp_path: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    root = write_contest(tmp_path / "contest")
    yaml_hashes = hashed_accounts(root, OLD_HASHER)
    server = make_server(root, clock)
    assert Api.of(server).request("GET", "/api/contests/test/account", "team1", "wrong").status_code == 401
    assert stored_hash(server, "team1") == yaml_hashes["team1"]
    server.close()


def test_static_files_carry_an_etag_and_a_matching_one_is_a_304(tmp_path: Path) -> None:
    server = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + HOUR))
    api = Api.of(server)
    first = api.get("/static/serve.css")
    assert first.status_code == 200 and first.content
    etag = first.headers["etag"]
    assert etag.startswith('"') and "max-age" in first.headers["cache-control"]
    again = api.get("/static/serve.css", headers={"If-None-Match": f'"other", {etag}'})
    assert again.status_code == 304 and not again.content and again.headers["etag"] == etag
    assert api.get("/static/serve.css", headers={"If-None-Match": '"other"'}).status_code == 200
    assert api.get("/static/live.js").headers["etag"] != etag
    server.close()


def test_a_client_that_goes_away_before_its_body_is_a_4xx_not_a_traceback(tmp_path: Path) -> None:
    """Under load a client may give up while its submission's body is on the way (the 500-team bench's
    timeouts): uvicorn then reports a disconnect, which was a traceback in the log and a 500."""
    from judge.serve.http.app import create_app

    server = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + HOUR))
    app = create_app(server)
    for path, kind in (("/api/contests/test/submissions", "application/json"), ("/login", "text/plain")):
        scope = {
            "type": "http",
            "method": "POST",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [(b"host", b"testserver"), (b"content-type", kind.encode()), (b"content-length", b"100")],
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
            "scheme": "http",
            "http_version": "1.1",
            "root_path": "",
        }
        messages = iter([{"type": "http.request", "body": b"{", "more_body": True}, {"type": "http.disconnect"}])
        sent: list[dict] = []

        async def receive(messages=messages) -> dict:  # noqa: ANN001
            return next(messages)

        async def send(message: dict, sent: list[dict] = sent) -> None:
            sent.append(message)

        asyncio.run(app(scope, receive, send))
        assert sent[0]["type"] == "http.response.start" and 400 <= sent[0]["status"] < 500, (path, sent[0])
    server.close()


def _most_at_once_in_threads(tmp_path: Path, request_threads: int, monkeypatch) -> int:  # noqa: ANN001
    """How many of 6 page requests sent at once were in worker threads at the same time (each one held there
    for 0.2 s, in the clock's tick every page makes)."""
    import threading
    import time

    from starlette.testclient import TestClient

    from judge.serve.http.app import create_app

    server = make_server(write_contest(tmp_path / f"contest{request_threads}"), FakeClock(T0 + HOUR))
    tick = server.timeline.tick
    lock, now, most = threading.Lock(), [0], [0]

    def slow_tick() -> None:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.2)
        with lock:
            now[0] -= 1
        tick()

    monkeypatch.setattr(server.timeline, "tick", slow_tick)
    start = threading.Barrier(6)
    with TestClient(create_app(server, request_threads=request_threads)) as client:

        def ask() -> None:
            start.wait()
            assert client.get("/problems").status_code == 200  # a page a thread answers (not the board: on_loop)

        askers = [threading.Thread(target=ask) for _ in range(6)]
        for t in askers:
            t.start()
        for t in askers:
            t.join()
    server.close()
    return most[0]


def test_requests_in_worker_threads_are_at_most_request_threads_at_once(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """`judge serve --request-threads`: the others wait on the event loop for a thread of their own."""
    assert _most_at_once_in_threads(tmp_path, 1, monkeypatch) == 1
    assert _most_at_once_in_threads(tmp_path, 3, monkeypatch) >= 2  # a limit, not one at a time


def test_the_board_is_answered_while_every_request_thread_is_busy(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """In a rush the request threads are all taken (submissions, pages, a new board being made): the board,
    once made, is answered on the event loop (PageSpec/RouteSpec.on_loop), the same bytes as from a thread:
    the public's API board and page (without a session cookie, which it then does not get, so that its
    browser's next poll is answered there too), and a logged-in team's fragment (its session in memory)."""
    import re
    import threading

    from starlette.testclient import TestClient

    from judge.serve.http.app import create_app

    server = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + HOUR))
    board = "/api/contests/test/scoreboard"
    with TestClient(create_app(server, request_threads=1)) as client:
        from_thread = client.get(board).content  # made (in a thread), with its JSON
        client.cookies.clear()
        first = client.get("/scoreboard?fragment=1")  # and its table; no session cookie from a thread either
        page = first.text
        assert "set-cookie" not in first.headers
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "username": "team1", "password": PASSWORDS["team1"]}
        assert client.post("/login", data=form, follow_redirects=False).status_code == 303
        team_cookie = client.cookies[COOKIE]
        team_page = client.get("/scoreboard?fragment=1").text  # the team's session now in memory
        tick, inside, release = server.timeline.tick, threading.Event(), threading.Event()

        def held_tick() -> None:  # the only request thread, held by a page until released
            inside.set()
            release.wait(30)
            tick()

        monkeypatch.setattr(server.timeline, "tick", held_tick)
        client.cookies.clear()
        holder = threading.Thread(target=lambda: client.get("/problems"))
        holder.start()
        try:
            assert inside.wait(30)
            assert client.get(board).content == from_thread
            client.cookies.clear()
            assert client.get("/scoreboard?fragment=1").text == page
            whole = client.get("/scoreboard")
            assert whole.status_code == 200 and "set-cookie" not in whole.headers
            client.cookies.set(COOKIE, team_cookie)
            assert client.get("/scoreboard?fragment=1").text == team_page
            assert not release.is_set() and holder.is_alive()  # answered while the thread was held
        finally:
            release.set()
            holder.join()
    server.close()


def _answered_while_threads_are_taken(client: Any, ask: Any) -> bool:
    """Whether ``ask()`` (requests through ``client``, a starlette TestClient) was answered within 30 s while
    every request thread was taken (held on behalf of no request until then)."""
    import threading

    import anyio.to_thread

    threads = client.portal.call(anyio.to_thread.current_default_thread_limiter)
    holder, asker = object(), threading.Thread(target=ask)
    client.portal.call(threads.acquire_on_behalf_of, holder)  # every request thread busy
    try:
        asker.start()
        asker.join(30)
        return not asker.is_alive()
    finally:
        client.portal.call(threads.release_on_behalf_of, holder)
        asker.join()


def test_a_board_behind_is_answered_on_the_loop_and_a_thread_makes_the_next(tmp_path: Path) -> None:
    """`judge serve --board-interval`: after a change, once the interval since the last board is over but
    not yet since the change (the bound: a board misses no change older than the interval), the next public
    poll (API and page) is answered on the event loop with the board made before the change, and after that
    answer a thread makes the new board, its JSON and its table; the poll after that gets them on the loop
    (every request thread is taken), the same as a thread computes afresh."""
    import base64

    from starlette.testclient import TestClient

    from judge.serve.http.app import create_app
    from judge.serve.model.upload import pack

    clock = FakeClock(T0 + HOUR)
    server = make_server(write_contest(tmp_path / "contest"), clock, board_interval_s=1.0)
    board, fragment = "/api/contests/test/scoreboard", "/scoreboard?fragment=1"
    files = [{"data": base64.b64encode(pack({"sum.py": SUM_AC.encode()})).decode()}]
    body = {"problem_id": "sum", "language_id": "python3", "files": files}
    with TestClient(create_app(server, request_threads=1)) as client:

        def public(path: str) -> str:
            client.cookies.clear()
            return client.get(path).text

        before = public(board), public(fragment)  # made in a thread: no board yet
        clock.advance(0.5)
        auth = ("team1", PASSWORDS["team1"])
        assert client.post("/api/contests/test/submissions", json=body, auth=auth).status_code == 201
        assert server.judging.run_pending() == 1
        clock.advance(0.9)  # the interval since the last board is over, not since the change
        behind = public(board), public(fragment)
        assert json.loads(behind[0])["rows"] == json.loads(before[0])["rows"]  # the board made before
        answers: list[str] = []
        assert _answered_while_threads_are_taken(client, lambda: answers.extend([public(board), public(fragment)]))
        server.boards.clear()
        assert answers == [public(board), public(fragment)]  # computed afresh in a thread
        solved = json.loads(answers[0])["rows"]
        assert solved != json.loads(before[0])["rows"] and answers[1] != behind[1]
    server.close()


def test_a_submission_is_taken_while_every_request_thread_is_busy(tmp_path: Path) -> None:
    """Requests that change something (a body) have threads of their own (http/app.py's Lane): with every
    request thread taken by page polls, a team's submission is still stored and acknowledged, over the API
    and through the page's form."""
    import base64
    import re

    from starlette.testclient import TestClient

    from judge.serve.http.app import create_app
    from judge.serve.model.upload import pack

    server = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + HOUR))
    files = [{"data": base64.b64encode(pack({"sum.py": SUM_AC.encode()})).decode()}]
    body = {"problem_id": "sum", "language_id": "python3", "files": files}
    answers: dict[str, Any] = {}
    with TestClient(create_app(server, request_threads=1)) as client:
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text)  # before the threads are taken
        assert csrf is not None
        form = {"csrf": csrf.group(1), "username": "team2", "password": PASSWORDS["team2"]}

        def changes() -> None:
            auth = ("team1", PASSWORDS["team1"])
            answers["submit"] = client.post("/api/contests/test/submissions", json=body, auth=auth)
            answers["login"] = client.post("/login", data=form, follow_redirects=False)

        assert _answered_while_threads_are_taken(client, changes)
        assert answers["submit"].status_code == 201, answers["submit"].text
        assert answers["login"].status_code == 303, answers["login"].text
        with server.storage.read() as reader:
            assert [s.id for s in reader.submissions()] == [int(answers["submit"].json()["id"])]
    server.close()


def test_request_threads_below_one_is_a_usage_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "judge", "serve", str(tmp_path), "--request-threads", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    assert "--request-threads must be at least 1" in proc.stderr and "Traceback" not in proc.stderr
