"""Printing (issue 30), through the HTTP stack: a team prints a file from its page or the API; the jury sees
the print queue (team, time, text); with contest.yaml's print_command the text goes to that command's
standard input (here a small Python program that writes it to a file), and a failing command is reported;
a team sees only its own print-outs; limits; who may."""

from __future__ import annotations

import json
import shlex
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, HOUR, T0, Api, FakeClock, make_server, write_contest
from test_serve_pages import csrf_of, login

from judge.serve.model.contest import ContestError, load_contest
from judge.serve.services.desk import printing
from judge.serve.site.server import Server

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
        api = Api.of(server)
        r = api.request("POST", f"{C}/prints", "team1", json={"filename": "a.py", "text": "print(1)\n"})
        assert r.status_code == 201 and r.json()["status"] == "queued"  # the printer is the queue's
        assert not out.exists()
        assert printing.send_queued(server) == 1
        assert api.get(f"{C}/prints", "team1").json()[0]["status"] == "sent"
        printed = out.read_text()
        assert printed.startswith("--- team Zeta (team1), 2030-01-01T11:00:00.000+00:00, a.py ---\n")
        assert printed.endswith("print(1)\n")
    finally:
        server.close()


def test_a_failing_printer_is_reported(tmp_path: Path, clock: FakeClock) -> None:
    server = serve(tmp_path, clock, shlex.join([sys.executable, "-c", "import sys; sys.exit('out of paper')"]))
    try:
        api = Api.of(server)
        assert api.request("POST", f"{C}/prints", "team1", json={"text": "x"}).status_code == 201
        printing.send_queued(server)
        status = api.get(f"{C}/prints", "team1").json()[0]["status"]
        assert status.startswith("failed: ") and "out of paper" in status
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


@pytest.mark.timeout(120)
def test_a_slow_printer_delays_no_request(tmp_path: Path, clock: FakeClock) -> None:
    """Issue 43: the print command ran inside the request, on one of the two threads submissions and logins
    share: a slow printer made another team's submission wait. Now the request queues the print-out and
    the queue's thread waits for the printer. Here the printer does not return until the end of the test:
    before the fix the print request itself never returned."""
    server = serve(tmp_path, clock, "lp -d lab")
    printer_busy, release = threading.Event(), threading.Event()
    sent: list[bytes] = []

    def stuck(argv: Sequence[str], data: bytes) -> str | None:
        printer_busy.set()
        release.wait()
        sent.append(data)
        return None

    object.__setattr__(server, "printer", stuck)  # the printer of `judge serve` runs print_command (runner/)
    server.start()
    try:
        api = Api.of(server)
        r = api.request("POST", f"{C}/prints", "team1", json={"filename": "a.txt", "text": "one"})
        assert r.status_code == 201 and r.json()["status"] == "queued", r.text
        assert printer_busy.wait(60)  # the queue's thread is at the printer now
        r = api.request("POST", f"{C}/prints", "team1", json={"filename": "b.txt", "text": "two"})
        assert r.status_code == 201 and r.json()["status"] == "queued"
        assert [p["status"] for p in api.get(f"{C}/prints", "judge").json()] == ["sending", "queued"]
        for _ in range(3):  # more than the requests' two threads: none of them waits for the printer
            assert api.submit("team2").status_code == 201
            assert api.request("GET", f"{C}/account", "team3").status_code == 200
        team = login(server, "team1")
        r = team.post("/print", data={"csrf": csrf_of(team.get("/print").text), "text": "three"})
        assert r.status_code == 303 and "print-out+3+queued" in r.headers["location"]
        assert "print-out 3 queued" in team.get(r.headers["location"]).text
        release.set()
        for _ in range(600):
            if [p["status"] for p in api.get(f"{C}/prints", "judge").json()] == ["sent"] * 3:
                break
            threading.Event().wait(0.1)
        assert [p["status"] for p in api.get(f"{C}/prints", "judge").json()] == ["sent"] * 3
        assert [d.decode().split("\n", 1)[1] for d in sent] == ["one", "two", "three"]  # in order
    finally:
        release.set()
        server.stop()
        server.close()


def test_control_characters_are_stripped(tmp_path: Path, clock: FakeClock) -> None:
    """Issue 43: a file name kept newlines, form feeds, ESC and NUL and went raw into the banner (a forged
    banner of another team on a page of its own; PJL escape bytes first in the job). Names lose every
    control character; the text keeps newline, tab and form feed only (a carriage return ends a line)."""
    out = tmp_path / "printed.bin"
    program = "import sys; open(sys.argv[1], 'wb').write(sys.stdin.buffer.read())"
    server = serve(tmp_path, clock, shlex.join([sys.executable, "-c", program, str(out)]))
    try:
        api = Api.of(server)
        forged = "a.txt ---\n\f--- team Alpha (team2), 2030-01-01T11:00:00.000+00:00, x.txt ---\n"
        name = "\x1b%-12345X@PJL\x00" + forged
        text = "\x1b%-12345X@PJL ENTER\x00 LANGUAGE\r\nline\tone\fpage two\x07\x9b\rend"
        r = api.request("POST", f"{C}/prints", "team1", json={"filename": name, "text": text})
        assert r.status_code == 201, r.text
        stored = r.json()
        one_line = "%-12345X@PJLa.txt ------ team Alpha (team2), 2030-01-01T11:00:00.000+00:00, x.txt ---"
        assert stored["filename"] == one_line
        assert stored["text"] == "%-12345X@PJL ENTER LANGUAGE\nline\tone\fpage two\nend"
        printing.send_queued(server)
        printed = out.read_bytes()
        assert printed.count(b"\n") == 3 and printed.count(b"\f") == 1  # the banner's line, and the text's two
        assert not set(printed) & (set(range(32)) - {9, 10, 12}) and b"\x7f" not in printed
        assert printed.startswith(b"--- team Zeta (team1), ")
        # the page's form too (a pasted text and its name)
        team = login(server, "team1")
        form = {"csrf": csrf_of(team.get("/print").text), "filename": "p\x1b.txt", "text": "\x00\x1bhi\r\n"}
        assert team.post("/print", data=form).status_code == 303
        assert api.get(f"{C}/prints", "team1").json()[-1] | {"id": 0, "time": 0} == {
            "id": 0, "time": 0, "team_id": "team1", "username": "team1", "filename": "p.txt", "status": "queued",
            "text": "hi\n", "delivered_time": None,
        }  # fmt: skip
        r = api.request("POST", f"{C}/prints", "team1", json={"text": "\x00\x1b"})
        assert r.status_code == 400 and "control characters" in r.text
    finally:
        server.close()
