"""`judge serve` as a process on a loopback port: a team submits over TCP, the event feed streams and
resumes from a token, and a server killed with SIGKILL in the middle of judging judges every acknowledged
submission exactly once when started again; SIGTERM stops it."""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_fixtures import FIXTURES, PASSWORDS, SUM_AC, SUM_WA, write_contest

from judge.commands.cli import main
from judge.runner import Runner
from judge.serve.model.times import format_time
from judge.serve.model.upload import pack

ROOT = Path(__file__).parent.parent
DEADLINE_S = 120.0  # a safety net for a hung server, not a measurement
SLEEP = "import time\ntime.sleep(60)\n"  # TLE by the wall-clock limit (3.5 s), without burning CPU


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], Any]) -> Any:
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what}")


class Serve:
    """One `judge serve` process."""

    def __init__(
        self, contest: Path, log: Path, *extra: str, soft_open_files: int | None = None, cwd: Path | None = None
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/api"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.log = log
        cmd = [
            sys.executable,
            "-m",
            "judge",
            "serve",
            str(contest),
            "--problems",
            str(FIXTURES),
            "--port",
            str(self.port),
            "--jobs",
            "1",
            *extra,
        ]

        def limit() -> None:  # in the child: the soft limit `judge serve` starts with
            if soft_open_files is not None:
                hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft_open_files, hard))

        self.proc = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
            cwd=cwd,
        )
        wait_for("the server to answer", self._up)

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"judge serve exited with {self.proc.returncode}:\n{self.log.read_text()}")
        try:
            return httpx.get(self.base, timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def url(self, path: str) -> str:
        return f"{self.base}/contests/test/{path}"

    def get(self, path: str, user: str = "admin") -> Any:
        r = httpx.get(self.url(path), auth=(user, PASSWORDS[user]), timeout=30)
        assert r.status_code == 200, r.text
        return r.json()

    def submit(self, user: str, source: str, problem: str = "sum") -> str:
        import base64

        body = {
            "problem_id": problem,
            "language_id": "python3",
            "files": [{"data": base64.b64encode(pack({f"{problem}.py": source.encode()})).decode()}],
        }
        r = httpx.post(self.url("submissions"), json=body, auth=(user, PASSWORDS[user]), timeout=30)
        assert r.status_code == 201, r.text
        return str(r.json()["id"])

    def kill(self, sig: int) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(timeout=60)


@pytest.fixture
def contest(tmp_path: Path, sandbox_runner: Runner) -> Path:
    return write_contest(tmp_path / "contest", start=format_time(time.time() - 60))


def final(server: Serve, sid: str) -> list[dict[str, Any]]:
    js = server.get(f"judgements?submission_id={sid}")
    return js if js and all("judgement_type_id" in j for j in js) else []


def test_submit_stream_and_resume(
    contest: Path, tmp_path: Path, servers: list[Serve], capsys: pytest.CaptureFixture[str]
) -> None:
    server = Serve(contest, tmp_path / "serve.log")
    servers.append(server)
    sid = server.submit("team1", SUM_AC)
    (j,) = wait_for("the judgement", lambda: final(server, sid))
    assert j["judgement_type_id"] == "AC"
    lines: list[dict[str, Any]] = []
    with httpx.stream("GET", server.url("event-feed"), timeout=30) as r:  # public, streaming
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        for line in r.iter_lines():
            if line.strip():
                lines.append(json.loads(line))
            if lines and lines[-1]["type"] == "judgements" and lines[-1]["data"].get("judgement_type_id"):
                break
    assert lines[0]["type"] == "contest" and lines[-1]["data"]["submission_id"] == sid
    token = lines[-1]["token"]
    sid2 = server.submit("team2", SUM_AC)
    with httpx.stream("GET", server.url("event-feed"), params={"since_token": token}, timeout=30) as r:
        first = json.loads(next(line for line in r.iter_lines() if line.strip()))
    assert (first["type"], first["id"]) == ("submissions", sid2)
    assert int(first["token"]) > int(token)
    # a second server on the same contest is refused (it would judge the same jobs)
    assert main(["serve", str(contest), "--problems", str(FIXTURES), "--port", "0"]) == 2
    assert "another `judge serve` is running" in capsys.readouterr().err
    assert server.kill(signal.SIGTERM) == 143  # stopped as on Ctrl-C: running judgements finish first
    assert "Application shutdown complete" in server.log.read_text()


def test_sigkill_while_judging_then_restart(contest: Path, tmp_path: Path, servers: list[Serve]) -> None:
    log = tmp_path / "serve.log"
    server = Serve(contest, log)
    servers.append(server)
    slow = server.submit("team1", SLEEP)  # judging takes seconds
    queued = server.submit("team2", SUM_AC)  # waits: one worker
    started = wait_for("judging to start", lambda: server.get(f"judgements?submission_id={slow}"))
    assert "judgement_type_id" not in started[0]
    assert server.kill(signal.SIGKILL) == -signal.SIGKILL
    acknowledged = [slow, queued]

    again = Serve(contest, log)
    servers.append(again)
    for sid in acknowledged:
        wait_for(f"submission {sid}", lambda sid=sid: final(again, sid))  # type: ignore[misc]
    (j_slow,) = final(again, slow)
    (j_queued,) = final(again, queued)
    assert j_slow["id"] == started[0]["id"] and j_slow["judgement_type_id"] == "TLE"
    assert j_queued["judgement_type_id"] == "AC"
    assert len(again.get("submissions")) == 2
    assert again.kill(signal.SIGTERM) == 143


def test_a_server_holding_1100_connections_still_judges(contest: Path, tmp_path: Path, servers: list[Serve]) -> None:
    """A 500-team regional holds more than 1024 connections (each team's feed and browser). Started with the
    usual soft limit of open files, the server raises it (else it could not accept them), and it judges
    with an output validator: the validator's run is waited for on a descriptor above select()'s 1024,
    which the runner must not use (every judgement of such a problem was a JE)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"RLIMIT_NOFILE's hard limit here is {hard}: cannot hold 1100 connections")
    server = Serve(contest, tmp_path / "serve.log", soft_open_files=256)
    servers.append(server)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))  # this test's own 1,100
    held: list[socket.socket] = []
    try:
        for _ in range(1100):
            held.append(socket.create_connection(("127.0.0.1", server.port)))
        wait_for("the server to accept them", lambda: len(os.listdir(f"/proc/{server.proc.pid}/fd")) > 1100)
        right = server.submit("team1", (FIXTURES / "divisor/submissions/accepted/trial.py").read_text(), "divisor")
        wrong = server.submit("team2", (FIXTURES / "divisor/submissions/wrong_answer/one.py").read_text(), "divisor")
        verdicts = {sid: wait_for(f"submission {sid}", lambda sid=sid: final(server, sid)) for sid in (right, wrong)}
        assert [j["judgement_type_id"] for j in verdicts[right]] == ["AC"]
        assert [j["judgement_type_id"] for j in verdicts[wrong]] == ["WA"]
    finally:
        for conn in held:
            conn.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert server.kill(signal.SIGTERM) == 143


@pytest.mark.slow
def test_judging_on_a_local_dask_cluster(contest: Path, tmp_path: Path, servers: list[Serve]) -> None:
    """--cluster local:1: the submissions are judged by a judge worker process, stored once each."""
    server = Serve(contest, tmp_path / "serve.log", "--cluster", "local:1")
    servers.append(server)
    right, wrong = server.submit("team1", SUM_AC), server.submit("team2", SUM_WA)
    verdicts = {sid: wait_for(f"submission {sid}", lambda sid=sid: final(server, sid)) for sid in (right, wrong)}
    assert [j["judgement_type_id"] for j in verdicts[right]] == ["AC"]
    assert [j["judgement_type_id"] for j in verdicts[wrong]] == ["WA"]
    assert "judging on the Dask cluster" in server.log.read_text()
    assert server.kill(signal.SIGTERM) == 143


def failed_logins(server: Serve, n: int, forwarded: Callable[[int], str]) -> list[int]:
    """``n`` logins with wrong passwords for distinct unknown usernames (the per-account lockout never trips),
    each with the X-Forwarded-For ``forwarded(i)``: their statuses."""
    out = []
    for i in range(n):
        r = httpx.get(
            server.url("account"), auth=(f"nobody{i}", "wrong"), headers={"x-forwarded-for": forwarded(i)}, timeout=30
        )
        out.append(r.status_code)
    return out


def test_x_forwarded_for_is_trusted_only_from_the_proxies_named(
    contest: Path, tmp_path: Path, servers: list[Serve]
) -> None:
    """F3 of issue 27: 30 failed logins from loopback, each claiming another address in X-Forwarded-For, never
    hit the per-address limit (uvicorn trusted the header from 127.0.0.1). Now the peer's own address counts
    unless --forwarded-allow-ips names the proxy; with it, each forwarded address is counted apart."""
    plain = Serve(contest, tmp_path / "serve.log")  # the defaults: 20 failures per address within 60 s
    servers.append(plain)
    assert failed_logins(plain, 22, lambda i: f"10.0.0.{i}") == [401] * 20 + [429] * 2
    assert plain.kill(signal.SIGTERM) == 143
    behind = Serve(contest, tmp_path / "serve2.log", "--address-lockout", "4/600", "--forwarded-allow-ips", "127.0.0.1")
    servers.append(behind)
    assert failed_logins(behind, 6, lambda i: f"10.0.0.{i}") == [401] * 6  # six clients behind the proxy
    assert failed_logins(behind, 6, lambda i: "10.0.0.99") == [401] * 4 + [429] * 2  # one client behind it
    assert behind.kill(signal.SIGTERM) == 143
    for bad in (["--forwarded-allow-ips", "localhost"], ["--account-lockout", "5"], ["--address-lockout", "x/60"]):
        assert main(["serve", str(contest), "--problems", str(FIXTURES), "--port", "0", *bad]) == 2


def test_the_pen_tests_reproductions_are_refused_by_judge_serve(
    contest: Path, tmp_path: Path, servers: list[Serve]
) -> None:
    """Issue 27's reproductions, re-run against `judge serve` itself: the database and its WAL/SHM are 0600
    and a readable one is named at the start (F5); malformed JSON is a 400 with one log line, no traceback
    (F6); another site's request is refused (F4); a cookie copied before the logout is the public (F2)."""
    log = tmp_path / "serve.log"
    server = Serve(contest, log)
    servers.append(server)
    sid = server.submit("team1", SUM_AC)  # the WAL and SHM exist while the server runs
    wait_for("the judgement", lambda: final(server, sid))
    db = contest / "contest.sqlite"
    files = [db, db.with_name("contest.sqlite-wal"), db.with_name("contest.sqlite-shm")]
    assert {f.name: f.stat().st_mode & 0o777 for f in files} == {f.name: 0o600 for f in files}
    warnings = [line for line in log.read_text().splitlines() if "can be read by other users" in line]
    assert [w.split("WARNING: ")[1].split(" ")[0] for w in warnings] == [str(contest / "accounts.yaml")]

    before = len(log.read_text().splitlines())
    r = httpx.post(
        server.url("submissions"),
        content=b"[" * 12_000,
        headers={"content-type": "application/json"},
        auth=("team1", PASSWORDS["team1"]),
        timeout=30,
    )
    assert r.status_code == 400 and r.json()["message"].startswith("the body must be JSON")

    # the access lines of the polls for the judgement above may be written after ``before`` was counted (the
    # log has a thread of its own); every request since is the POST
    def after_polls() -> list[str]:
        return [line for line in log.read_text().splitlines()[before:] if '"GET ' not in line]

    wait_for("the access log line", after_polls)
    time.sleep(0.5)  # nothing else follows it
    new = after_polls()
    assert len(new) == 1 and "400" in new[0] and "Traceback" not in log.read_text(), new

    evil = {"origin": "http://evil.example", "content-type": "application/json"}
    r = httpx.post(server.url("submissions/1/rejudge"), headers=evil, auth=("admin", PASSWORDS["admin"]), timeout=30)
    assert r.status_code == 403
    r = httpx.post(
        server.url("submissions/1/rejudge"),
        headers={"content-type": "text/plain"},
        auth=("admin", PASSWORDS["admin"]),
        timeout=30,
    )
    assert r.status_code == 415

    pages = f"http://127.0.0.1:{server.port}"
    with httpx.Client(base_url=pages, timeout=30) as browser:
        token = re.search(r'name="csrf" value="([^"]+)"', browser.get("/login").text)
        assert token is not None
        r = browser.post("/login", data={"csrf": token.group(1), "username": "team1", "password": PASSWORDS["team1"]})
        assert r.status_code == 303
        copied = browser.cookies["judge_session"]
        token = re.search(r'name="csrf" value="([^"]+)"', browser.get("/submit").text)
        assert token is not None
        assert browser.post("/logout", data={"csrf": token.group(1)}).status_code == 303
    with httpx.Client(base_url=pages, timeout=30, cookies={"judge_session": copied}) as thief:
        assert thief.get("/submit").headers["location"] == "/login"
    assert server.kill(signal.SIGTERM) == 143

    db.chmod(0o644)
    again = Serve(contest, log)
    servers.append(again)
    warned = [line for line in log.read_text().splitlines() if "can be read by other users" in line][len(warnings) :]
    assert any(str(db) in line and "chmod 600" in line for line in warned), warned
    assert again.kill(signal.SIGTERM) == 143
