"""Printing (issue 30), through the HTTP stack: a team prints a file from its page or the API; the jury sees
the print queue (team, time, text); with contest.yaml's print_command the text goes to that command's
standard input (here a small Python program that writes it to a file), and a failing command is reported;
a team sees only its own print-outs; limits; who may."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.model.contest import ContestError, load_contest
from judge.serve.services.server import Server

C = "/api/contests/test"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


def serve(tmp_path: Path, clock: FakeClock, command: str | None) -> Server:
    extra = () if command is None else (f"print_command: {json.dumps(command)}",)
    return make_server(write_contest(tmp_path / "contest", extra=extra), clock)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = serve(tmp_path, clock, None)
    yield s
    s.close()


def test_prints_are_listed_for_the_jury(server: Server) -> None:
    api = Api.of(server)
    team = login(server, "team1")
    page = team.get("/print").text
    r = team.post("/print", data={"csrf": csrf_of(page)}, files={"file": ("sol.py", b"print(<b>1</b>)\n")})
    assert r.status_code == 303
    assert 'id="print-1"' in team.get("/print").text
    r = api.request("POST", f"{C}/prints", "team2", json={"filename": "notes.txt", "text": "hello"})
    assert r.status_code == 201 and r.json()["status"] == "listed" and r.json()["team_id"] == "team2"
    queue = login(server, "judge").get("/admin/prints?fragment=1").text
    assert "print(&lt;b&gt;1&lt;/b&gt;)" in queue and "team team1" not in queue and "Zeta" in queue and "hello" in queue
    assert [p["id"] for p in api.get(f"{C}/prints", "team1").json()] == ["1"]  # its own only
    assert len(api.get(f"{C}/prints", "judge").json()) == 2
    assert "hello" not in team.get("/print").text
    assert api.get(f"{C}/prints").status_code == 401
    assert api.request("POST", f"{C}/prints", None, json={"text": "x"}).status_code == 401
    assert api.request("POST", f"{C}/prints", "team1", json={"text": ""}).status_code == 400
    assert api.request("POST", f"{C}/prints", "team1", json={"text": "x" * 17 * 1024}).status_code == 413
    assert api.request("POST", f"{C}/prints", "team1", json={"files": []}).status_code == 400
    r = team.post("/print", data={"csrf": csrf_of(page)}, files={"file": ("a.bin", b"\xff\xfe\x00")})
    assert r.status_code == 400 and "only text" in r.text
    for _ in range(9):
        assert api.request("POST", f"{C}/prints", "team3", json={"text": "x"}).status_code == 201
    assert api.request("POST", f"{C}/prints", "team3", json={"text": "x"}).status_code == 201
    assert api.request("POST", f"{C}/prints", "team3", json={"text": "x"}).status_code == 429
    assert login(server, "team1").get("/admin/prints").status_code == 403


def test_print_command_gets_the_text(tmp_path: Path, clock: FakeClock) -> None:
    out = tmp_path / "printed.txt"
    program = "import sys; open(sys.argv[1], 'wb').write(sys.stdin.buffer.read())"
    command = shlex.join([sys.executable, "-c", program, str(out)])
    server = serve(tmp_path, clock, command)
    try:
        r = Api.of(server).request("POST", f"{C}/prints", "team1", json={"filename": "a.py", "text": "print(1)\n"})
        assert r.status_code == 201 and r.json()["status"] == "sent"
        printed = out.read_text()
        assert printed.startswith("--- team Zeta (team1), 2030-01-01T11:00:00.000+00:00, a.py ---\n")
        assert printed.endswith("print(1)\n")
    finally:
        server.close()


def test_a_failing_printer_is_reported(tmp_path: Path, clock: FakeClock) -> None:
    server = serve(tmp_path, clock, shlex.join([sys.executable, "-c", "import sys; sys.exit('out of paper')"]))
    try:
        r = Api.of(server).request("POST", f"{C}/prints", "team1", json={"text": "x"})
        assert r.status_code == 201 and r.json()["status"].startswith("failed: ")
        assert "out of paper" in r.json()["status"]
    finally:
        server.close()


def test_a_bad_print_command_is_a_contest_error(tmp_path: Path) -> None:
    root = write_contest(tmp_path / "c", extra=('print_command: ""',))
    with pytest.raises(ContestError, match="print_command must be a command"):
        load_contest(root, FIXTURES)
    root = write_contest(tmp_path / "d", extra=('print_command: "lp -d \'lab"',))
    with pytest.raises(ContestError, match="print_command"):
        load_contest(root, FIXTURES)
    root = write_contest(tmp_path / "e", extra=('print_command: "lp -d lab"',))
    assert load_contest(root, FIXTURES).info.print_command == ("lp", "-d", "lab")
