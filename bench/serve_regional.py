"""The regional scenario of bench/serve.py (issue 32; the default from 100 teams): against real `judge serve`
processes on loopback (one; or several ``--shared`` on one PostgreSQL database, issue 51: each team pinned to
one of them, the board round robin, one SIGKILLed in the rush and its teams moved to the others), in one run,

- N logins with the page's form, spread over ``--login-s`` (60 s); as each team logs in it opens its event
  feed (HTTP Basic, the same password) and polls its submissions page (the fragment the page refreshes,
  with its session cookie) every ``--poll-s`` (5 s) until the end;
- the public board polled at ``--board-rps`` (100) requests a second for the whole run, alternately the
  page and the API's scoreboard;
- after a quiet ``--steady-s`` (60 s), every team submits once within the last ``--rush-s`` (60 s) through
  the API (mostly the demo's fast wrong-answer Rummy program, one in five the accepted one), and the judge
  judges them; the run ends when every submission is judged and every feed has its judgement, or at
  ``--max-s``.

It prints login p50/p99; board and submissions-page p50/p99; event delivery lag (from a judgement's
``end_time``, when the judge finished it and stored it, to the last of the N feed clients receiving it)
p50/p99; submission acknowledgement p50/p99; judged / lost / duplicated counts (lost: an acknowledged
submission not stored, or a finished judgement a feed client never received; duplicated: a submission
judged twice, or a feed client receiving the same finished judgement twice); the server's peak RSS and
CPU share. Exit 1 if anything was lost or duplicated, or a submission did not get the verdict its folder
says (a JE: the judge failed).

The clients are one asyncio loop of plain HTTP/1.1 connections (on uvloop, the loop the server runs on, when
it is installed), so the load generator costs little of the machine the server runs on: at a contest the
browsers and the ICPC tools are on other machines, and here every CPU second the client takes is one the
server waits for. The pages and the board are polled on kept-alive connections, as browsers and
HTTP client libraries poll (a team's page on its own, the board's spectators from a pool that opens another
when all are busy, so the load is what the plan says whatever the answers take);
``--connection-per-request`` opens a new one for each request instead (the harsher load of the first runs).
Logins and submissions each use a new connection; the feeds stay open.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import random
import re
import sqlite3
import time
import urllib.parse
import zipfile
from collections import defaultdict
from collections.abc import Callable, Coroutine
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

PROGRAMS = (("rummy", "wrong_answer/always_raises.py", 4), ("rummy", "accepted/closed_form.py", 1))
# a site's practice contest (`--site`: judge site init's, with the first two problems): its own programs
PRACTICE_PROGRAMS = (("coins", "wrong_answer/gaps_in_goal.py", 4), ("coins", "accepted/bfs.py", 1))
EXPECTED = {"accepted": "AC", "wrong_answer": "WA"}  # a program's folder: its verdict (the Kattis convention)
TIMEOUT_S = 30.0  # a request not answered by then is counted as failed (timed out), not timed


@dataclass
class Reply:
    status: int
    headers: dict[str, list[str]]
    body: bytes


async def request(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Reply:
    """One request on its own connection (Connection: close), read to the end."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close", f"Content-Length: {len(body)}"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()
        data = await reader.read()
    finally:
        writer.close()
    raw, _, rest = data.partition(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    out: dict[str, list[str]] = defaultdict(list)
    for h in lines[1:]:
        k, _, v = h.partition(":")
        out[k.strip().lower()].append(v.strip())
    if out.get("transfer-encoding") == ["chunked"]:
        rest = dechunk(rest)
    return Reply(int(lines[0].split()[1]), out, rest)


Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Pool:
    """Kept-alive connections, as a browser or an HTTP client library keeps them: a request takes an idle
    one (or opens one when all are busy, so the load stays what the plan says whatever the answers take)
    and gives it back after the answer; ``keep=False`` (``--connection-per-request``): one connection per
    request, closed after it."""

    def __init__(self, port: int, keep: bool) -> None:
        self.port, self.keep = port, keep
        self.idle: list[Conn] = []

    async def request(self, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> Reply:
        if not self.keep:
            return await request(self.port, method, path, headers, body)
        while self.idle:
            conn = self.idle.pop()
            try:
                return await self._on(conn, method, path, headers, body)
            except (OSError, asyncio.IncompleteReadError):
                # the server closed it while it was idle (its keep-alive timeout): as HTTP clients do with a
                # request that changes nothing, try again on another connection
                if method != "GET":
                    raise
        conn = await asyncio.open_connection("127.0.0.1", self.port)
        return await self._on(conn, method, path, headers, body)

    async def _on(self, conn: Conn, method: str, path: str, headers: dict[str, str], body: bytes) -> Reply:
        try:
            reply, alive = await _exchange(conn, method, path, headers, body)
        except BaseException:
            conn[1].close()
            raise
        if alive:
            self.idle.append(conn)
        else:
            conn[1].close()
        return reply

    def close(self) -> None:
        for _, writer in self.idle:
            writer.close()
        self.idle.clear()


async def _exchange(conn: Conn, method: str, path: str, headers: dict[str, str], body: bytes) -> tuple[Reply, bool]:
    """One request on a kept-alive connection; whether the server keeps it open."""
    reader, writer = conn
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    out: dict[str, list[str]] = defaultdict(list)
    for h in lines[1:]:
        if h:
            k, _, v = h.partition(":")
            out[k.strip().lower()].append(v.strip())
    if out.get("transfer-encoding") == ["chunked"]:
        parts = []
        while n := int((await reader.readline()).split(b";")[0], 16):
            parts.append((await reader.readexactly(n + 2))[:-2])
        await reader.readline()
        data = b"".join(parts)
    else:
        data = await reader.readexactly(int(out.get("content-length", ["0"])[0]))
    alive = "close" not in [v.lower() for v in out.get("connection", [])]
    return Reply(int(lines[0].split()[1]), out, data), alive


def dechunk(data: bytes) -> bytes:
    out, i = [], 0
    while True:
        j = data.index(b"\r\n", i)
        n = int(data[i:j].split(b";")[0], 16)
        if n == 0:
            return b"".join(out)
        out.append(data[j + 2 : j + 2 + n])
        i = j + 2 + n + 2


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def cookie_of(reply: Reply) -> str | None:
    for c in reply.headers.get("set-cookie", []):
        return c.split(";")[0]
    return None


def parse_time(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


@dataclass(frozen=True)
class Target:
    """A contest the teams use: its id, its database, its pages' base (``""``: a contest folder served alone;
    ``/contests/<id>`` in a site) and the programs its teams submit (problem, path, weight)."""

    cid: str
    db: Path
    base: str = ""
    programs: tuple[tuple[str, str, int], ...] = PROGRAMS


Key = tuple[str, str]  # (contest id, an id of that contest): ids are per contest in a site


@dataclass(frozen=True)
class Store:
    """Where the contests' rows are, for the checks: their SQLite files (``dsn`` None), or the PostgreSQL
    database `judge serve --database` keeps them in (a contest's schema: ``contest_<id>``)."""

    dsn: str | None = None

    @property
    def engine(self) -> str:
        return "SQLite" if self.dsn is None else "PostgreSQL"

    def rows(self, target: Target, *queries: str) -> list[list[tuple[Any, ...]]]:
        """Each query's rows, read from ``target``'s database (one snapshot per query; portable SQL only)."""
        if self.dsn is None:
            with closing(sqlite3.connect(f"file:{target.db}?mode=ro", uri=True)) as con:
                return [con.execute(q).fetchall() for q in queries]
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(f"contest_{target.cid}")))
            return [[tuple(r) for r in conn.execute(q.encode()).fetchall()] for q in queries]


@dataclass
class Run:
    ports: list[int]  # one per `judge serve` process (several: --shared on one PostgreSQL database)
    targets: dict[str, Target]  # the first: the main contest (the public board's, most teams')
    passwords: dict[str, str]
    store: Store = field(default_factory=Store)
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    when: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # per latency, when sent
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    acked: dict[Key, str] = field(default_factory=dict)
    expected: dict[Key, str] = field(default_factory=dict)  # per acknowledged submission: the verdict it should get
    # per finished judgement: its end_time, and when each feed client (of its contest) received it
    received: dict[Key, list[float]] = field(default_factory=lambda: defaultdict(list))
    ended: dict[Key, float] = field(default_factory=dict)
    duplicated: int = 0
    submits_done: int = 0  # teams whose submission was answered (or failed)
    submitted: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # per contest: submissions begun
    feeds_open: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # per contest
    # when, the feeds open per contest, the finished judgements
    at_stop: tuple[float, dict[str, int], dict[Key, float]] = field(default_factory=lambda: (0.0, {}, {}))
    feed_errors: list[str] = field(default_factory=list)
    keep_alive: bool = True  # the pages and the board polled on kept-alive connections (Pool)
    client_lag: list[tuple[float, float]] = field(default_factory=list)  # (how late, when) of this loop's ticks
    server_pids: list[int] = field(default_factory=list)  # the processes', in the order of ``ports``
    rush_cpu: list[Sample] = field(default_factory=list)  # cpu_sample at the rush's start and end
    dead: set[int] = field(default_factory=set)  # the ports of the processes killed
    kill: Callable[[], int] | None = None  # SIGKILLs one process (mid-rush); returns its port
    db_cpu: Callable[[], float] | None = None  # the database server's CPU seconds so far (PostgreSQL's, when ours)
    killed_at: float = -1.0  # s into the run
    killed_wall: float = 0.0  # time.time() then
    orphans: set[Key] = field(default_factory=set)  # the submissions the killed process was judging (its leases)
    moved: dict[str, int] = field(default_factory=lambda: defaultdict(int))  # what went elsewhere after the kill

    @property
    def main(self) -> Target:
        return next(iter(self.targets.values()))

    def port_of(self, n: int) -> int:
        """The process of the ``n``-th team: pinned, as a proxy with sticky sessions pins it; once its process
        is killed, one of the others (spread over them), as the proxy's health check would send it."""
        port = self.ports[n % len(self.ports)]
        if port not in self.dead:
            return port
        alive = [p for p in self.ports if p not in self.dead]
        return alive[n % len(alive)] if alive else port

    def board_port(self, n: int) -> int:
        """The ``n``-th board request's process: round robin over those alive."""
        alive = [p for p in self.ports if p not in self.dead] or self.ports
        return alive[n % len(alive)]

    def kind(self, kind: str, cid: str) -> str:
        """A latency's kind: the main contest's as it always was, another contest's with its id."""
        return kind if cid == self.main.cid else f"{kind} [{cid}]"

    async def timed(
        self,
        kind: str,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes = b"",
        pool: Pool | None = None,
        port: int = 0,
    ) -> Reply | None:
        """One request on ``pool``'s connections, else on a new connection to ``port``."""
        t0 = time.perf_counter()
        try:
            if pool is None:
                exchange = request(port, method, path, headers, body)
            else:
                exchange = pool.request(method, path, headers, body)
            reply = await asyncio.wait_for(exchange, TIMEOUT_S)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            to = pool.port if pool is not None else port
            killed = " (at the killed process)" if to in self.dead else ""
            self.failures[f"{kind}: {type(exc).__name__}{killed}"] += 1
            return None
        took = time.perf_counter() - t0
        self.latency[kind].append(took)
        self.when[kind].append(time.monotonic() - took - run_t0[0])  # when it was sent (s into the run)
        if reply.status >= 400:
            self.failures[f"{kind}: {reply.status}"] += 1
        return reply


async def login(run: Run, user: str, port: int) -> str | None:
    page = await run.timed("login GET /login", "GET", "/login", {}, port=port)
    if page is None:
        return None
    token = re.search(rb'name="csrf" value="([^"]+)"', page.body)
    cookie = cookie_of(page)
    if token is None or cookie is None:
        run.failures["login: no form"] += 1
        return None
    form = urllib.parse.urlencode({"csrf": token.group(1).decode(), "username": user, "password": run.passwords[user]})
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    t0 = time.perf_counter()
    reply = await run.timed("login POST /login", "POST", "/login", headers, form.encode(), port=port)
    if reply is None or reply.status not in (302, 303):
        return None
    run.latency["login (both requests)"].append(time.perf_counter() - t0 + run.latency["login GET /login"][-1])
    return cookie_of(reply)


async def feed(run: Run, user: str, cid: str, n: int) -> None:
    """The ``n``-th team's event feed of its contest, kept open; every finished judgement's arrival is noted.
    When its process is killed, the feed is opened again on another with ``since_token`` (the last event's
    token), as a client behind a proxy reconnects: a judgement received twice is counted as duplicated."""
    path = f"/api/contests/{cid}/event-feed"
    auth = basic(user, run.passwords[user])
    seen: set[Key] = set()
    token = ""
    opened = False
    try:
        while True:
            port = run.port_of(n)
            query = f"?since_token={urllib.parse.quote(token)}" if token else ""
            writer = None
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
                writer.write(f"GET {path}{query} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {auth}\r\n\r\n".encode())
                status = await reader.readline()
                if b" 200 " not in status:
                    if status or port not in run.dead:
                        run.feed_errors.append(f"{user}: {status!r}")
                        return
                    raise ConnectionResetError("no answer")
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
                if opened:
                    run.moved["feeds opened again with since_token"] += 1
                else:
                    run.feeds_open[cid] += 1
                    opened = True
                pending = b""
                while True:
                    size_line = await reader.readline()
                    if not size_line:
                        break
                    size = int(size_line.split(b";")[0], 16)
                    chunk = await reader.readexactly(size + 2)
                    if size == 0:
                        break
                    now = time.time()
                    pending += chunk[:-2]
                    *lines, pending = pending.split(b"\n")
                    for raw in lines:
                        token = feed_token(raw) or token
                        if b'"judgements"' not in raw[:40]:
                            continue
                        event = json.loads(raw)
                        data = event.get("data") or {}
                        if data.get("end_time") is None:
                            continue
                        jid = (cid, data["id"])
                        if jid in seen:
                            run.duplicated += 1
                            continue
                        seen.add(jid)
                        run.ended[jid] = parse_time(data["end_time"])
                        run.received[jid].append(now)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                if port not in run.dead:
                    run.feed_errors.append(f"{user}: {type(exc).__name__}: {exc}")
                    return
            finally:
                if writer is not None:
                    writer.close()
            if port not in run.dead or run.stop.is_set():
                return  # the server ended the stream (not a kill): not opened again
            await asyncio.sleep(random.uniform(0.1, 0.5))  # its process was killed: another, after a moment
    finally:
        if opened:
            run.feeds_open[cid] -= 1


def feed_token(line: bytes) -> str | None:
    """An event line's token (its last member, after the object's data: ``records.EventRecord.feed_head``);
    None for a keep-alive newline."""
    at = line.rfind(b'"token":"')
    return line[at + 9 : line.index(b'"', at + 9)].decode() if at >= 0 else None


async def poll_submissions(run: Run, cookie: str, every_s: float, cid: str, n: int) -> None:
    """The ``n``-th team's submissions page refreshing (its browser keeps its connection: Pool; to another
    process once its own is killed, the same session cookie)."""
    browser = Pool(run.port_of(n), run.keep_alive)
    kind, path = run.kind("submissions page", cid), f"{run.targets[cid].base}/submissions?fragment=1"
    await asyncio.sleep(random.uniform(0, every_s))
    try:
        while not run.stop.is_set():
            if browser.port != run.port_of(n):
                browser.close()
                browser = Pool(run.port_of(n), run.keep_alive)
                run.moved["submissions pages moved"] += 1
            await run.timed(kind, "GET", path, {"Cookie": cookie}, pool=browser)
            await asyncio.sleep(every_s)
    finally:
        browser.close()


async def poll_board(run: Run, rps: float) -> None:
    """``rps`` requests a second, whatever their answers take (each in its own task)."""
    tasks: set[asyncio.Task[None]] = set()
    main = run.main
    paths = (("board page", f"{main.base}/scoreboard"), ("board API", f"/api/contests/{main.cid}/scoreboard"))
    spectators = {port: Pool(port, run.keep_alive) for port in run.ports}  # round robin over the processes
    n, t0 = 0, time.monotonic()
    while not run.stop.is_set():
        kind, path = paths[n % 2]
        pool = spectators[run.board_port(n // 2)]
        task = asyncio.create_task(_ignore(run.timed(kind, "GET", path, {}, pool=pool)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
        await asyncio.sleep(max(0.0, t0 + n / rps - time.monotonic()))
    for task in list(tasks):  # the run is over: what is still waiting is not counted
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for pool in spectators.values():
        pool.close()


async def loop_lag(run: Run) -> None:
    """How late this client's own loop wakes (a stall here would inflate every latency it measures)."""
    while True:
        t0 = time.monotonic()
        await asyncio.sleep(0.1)
        late = time.monotonic() - t0 - 0.1
        run.client_lag.append((late, t0 - run_t0[0]))


async def _ignore(coro) -> None:  # noqa: ANN001
    await coro


def submission_body(n: int, programs: tuple[tuple[str, str, int], ...] = PROGRAMS) -> tuple[bytes, str]:
    weighted = [(p, rel) for p, rel, w in programs for _ in range(w)]
    problem, rel = weighted[n % len(weighted)]
    path = Path(__file__).resolve().parent.parent / "problems" / problem / "submissions" / rel
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(path.name, path.read_bytes())
    body = {
        "problem_id": problem,
        "language_id": "python3",
        "files": [{"data": base64.b64encode(buf.getvalue()).decode()}],
    }
    return json.dumps(body).encode(), rel.split("/")[0]


async def submit(run: Run, user: str, at_s: float, cid: str, team_n: int) -> None:
    """The team's one submission, to its process; sent again to another if its process was killed before
    answering (a second copy may then be stored, unacknowledged: not a duplicate judgement)."""
    await asyncio.sleep(at_s)
    n = run.submitted[cid]  # the contest's programs in turn (whichever teams use it)
    run.submitted[cid] += 1
    body, folder = submission_body(n, run.targets[cid].programs)
    headers = {"Authorization": basic(user, run.passwords[user]), "Content-Type": "application/json"}
    sent = time.time()
    try:
        path = f"/api/contests/{cid}/submissions"
        while True:
            port = run.port_of(team_n)
            reply = await run.timed(run.kind("submission ack", cid), "POST", path, headers, body, port=port)
            if reply is not None or port not in run.dead or run.port_of(team_n) == port:
                break
            run.moved["submissions sent again to another process"] += 1
            sent = time.time()
    finally:
        run.submits_done += 1
    if reply is not None and reply.status == 201:
        answer = json.loads(reply.body)
        run.acked[(cid, answer["id"])] = user
        run.expected[(cid, answer["id"])] = EXPECTED[folder]
        # where the time went: before the handler took it (its `time` is the server's clock then), and after
        taken = parse_time(answer["time"])
        run.latency[run.kind("ack: sent to taken", cid)].append(max(0.0, taken - sent))
        run.latency[run.kind("ack: taken to answered", cid)].append(max(0.0, time.time() - taken))


async def team(
    run: Run, n: int, user: str, login_at_s: float, rush: tuple[float, float], poll_s: float, cid: str
) -> None:
    await asyncio.sleep(login_at_s)
    cookie = await login(run, user, run.port_of(n))
    tasks = [asyncio.create_task(feed(run, user, cid, n))]
    if cookie is not None:
        tasks.append(asyncio.create_task(poll_submissions(run, cookie, poll_s, cid, n)))
    start = time.monotonic()
    await submit(run, user, max(0.0, random.uniform(*rush) - (start - run_t0[0])), cid, n)
    await run.stop.wait()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


run_t0 = [0.0]


@dataclass(frozen=True)
class Plan:
    teams: int
    login_s: float
    steady_s: float
    rush_s: float
    board_rps: float
    poll_s: float
    max_s: float
    keep_alive: bool = True
    others_share: float = 0.0  # a site: this share of the teams uses the other contest (the practice), not the main
    kill: bool = False  # SIGKILL one of several processes when half the submissions are acknowledged
    profile: Path | None = None  # py-spy (nonblocking, 20 Hz) of the last process in the login burst and the rush


def contest_of(run: Run, plan: Plan, n: int) -> str:
    """The contest the ``n``-th team (in the shuffled order) uses: the other contest for every k-th team, so
    that ``others_share`` of them are spread over the logins and the rush alike; the main one for the rest."""
    others = [t.cid for t in run.targets.values()][1:]
    if not others or plan.others_share <= 0:
        return run.main.cid
    every = max(1, round(1 / plan.others_share))
    return others[(n // every) % len(others)] if n % every == every - 1 else run.main.cid


async def drive(run: Run, plan: Plan) -> float:
    """The whole run; returns its wall time."""
    run_t0[0] = time.monotonic()
    rush_from = plan.login_s + plan.steady_s
    board = asyncio.create_task(poll_board(run, plan.board_rps))
    ticker = asyncio.create_task(loop_lag(run))
    sampler = asyncio.create_task(sample_rush(run, rush_from, plan.rush_s))
    killer = asyncio.create_task(kill_one(run, plan))
    spies = [
        asyncio.create_task(spy(run, plan.profile, phase, at_s, for_s))
        for phase, at_s, for_s in (("login", 0.0, plan.login_s), ("rush", rush_from, plan.rush_s))
        if plan.profile is not None
    ]
    users = [f"team{n}" for n in range(1, plan.teams + 1)]
    random.Random(32).shuffle(users)
    rush = (rush_from, rush_from + plan.rush_s)
    teams = [
        asyncio.create_task(team(run, n, u, plan.login_s * n / plan.teams, rush, plan.poll_s, contest_of(run, plan, n)))
        for n, u in enumerate(users)
    ]
    await asyncio.sleep(rush_from + plan.rush_s)
    while time.monotonic() - run_t0[0] < plan.max_s:
        finished = finished_judgements(run)
        delivered = all(len(run.received.get(j, ())) >= run.feeds_open[j[0]] for j in finished)
        if run.submits_done >= plan.teams and len(finished) >= len(run.acked) and delivered:
            await asyncio.sleep(0.5)
            break
        await asyncio.sleep(1.0)
    run.at_stop = (time.time(), dict(run.feeds_open), finished_judgements(run))
    run.stop.set()
    await asyncio.sleep(1.0)
    for task in teams:  # a team still waiting for an answer at the end is not waited for
        task.cancel()
    await asyncio.gather(board, *teams, return_exceptions=True)
    ticker.cancel()
    sampler.cancel()
    killer.cancel()
    await asyncio.gather(*spies, return_exceptions=True)
    return time.monotonic() - run_t0[0]


SPY_HZ = 20


async def spy(run: Run, folder: Path, phase: str, at_s: float, for_s: float) -> None:
    """py-spy on the last process (never the one killed) for ``for_s`` from ``at_s`` into the run: its raw
    stacks (every thread, idle ones left out) in ``folder``/``phase``.txt. Nonblocking (the process is not
    paused to sample it): a few per cent of a core, and a stack now and then torn."""
    await asyncio.sleep(max(0.0, run_t0[0] + at_s - time.monotonic()))
    out = folder / f"{phase}.txt"
    argv = ["py-spy", "record", "--nonblocking", "--threads", "-r", str(SPY_HZ), "-d", str(int(for_s)), "-f", "raw"]
    proc = await asyncio.create_subprocess_exec(
        *argv, "-o", str(out), "-p", str(run.server_pids[-1]),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    await proc.wait()


GENERIC = ("threading.py", "concurrent/futures", "asyncio/", "runpy", "judge/__main__.py", "judge/commands/")


def profile_summary(path: Path, top: int = 12) -> list[str]:
    """What a py-spy raw file says: the share of samples per thread (by name), and the functions most often on
    the stack (inclusive; the threads' and the loop's own plumbing left out) and at its top (self)."""
    if not path.is_file():
        return [f"{path}: no profile (py-spy failed?)"]
    total = 0
    threads: dict[str, int] = defaultdict(int)
    inclusive: dict[str, int] = defaultdict(int)
    own: dict[str, int] = defaultdict(int)
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        frames = stack.split(";")
        total += n
        threads[re.sub(r"^thread \(\w+\): |_?\d+$", "", frames[0])] += n
        names = [re.sub(r":\d+\)$", ")", f) for f in frames[1:]]
        for name in {f for f in names if not any(g in f for g in GENERIC)}:
            inclusive[name] += n
        if names:
            own[names[-1]] += n
    if not total:
        return [f"{path}: empty"]

    def ranked(counts: dict[str, int], k: int) -> list[tuple[str, int]]:
        return sorted(counts.items(), key=lambda kv: -kv[1])[:k]

    lines = [f"{path.name}: {total} samples of busy threads ({total / SPY_HZ:.0f} thread-seconds)"]
    lines.append("  threads: " + ", ".join(f"{k} {v / total:.0%}" for k, v in ranked(threads, 8)))
    lines.append("  on the stack (inclusive):")
    lines += [f"    {v / total:5.1%}  {k}" for k, v in ranked(inclusive, top)]
    lines.append("  at its top (self):")
    lines += [f"    {v / total:5.1%}  {k}" for k, v in ranked(own, top)]
    return lines


async def kill_one(run: Run, plan: Plan) -> None:
    """When half the teams' submissions are sent (mid-rush, the judge busy; sent, not acknowledged: a server
    that falls behind is killed all the same): one process SIGKILLed (``run.kill``); from then on its teams
    use the others (``Run.port_of``)."""
    if run.kill is None:
        return
    while sum(run.submitted.values()) < plan.teams // 2:
        await asyncio.sleep(0.05)
    port = run.kill()
    run.dead.add(port)  # no await in between: every client sees it dead from now on
    run.killed_at, run.killed_wall = time.monotonic() - run_t0[0], time.time()
    pid = run.server_pids[run.ports.index(port)]
    for t in run.targets.values():  # its leases (`pid-token`: the judging pool's), not done
        (rows,) = run.store.rows(t, f"SELECT submission_id FROM jobs WHERE done = 0 AND lease_owner LIKE '{pid}-%'")
        run.orphans |= {(t.cid, str(r[0])) for r in rows}
    print(
        f"SIGKILL: one process, {sum(run.submitted.values())} submissions sent, {len(run.acked)} acknowledged "
        f"({run.killed_at:.1f} s in)"
    )


# (wall, the machine's busy CPU seconds, this client's, the database server's (nan: not known), and per
# `judge serve` process: its CPU seconds, its main thread's (its event loop) on a CPU and waiting for one)
Sample = tuple[float, float, float, float, dict[int, tuple[float, float, float]]]


def cpu_sample(pids: list[int], db_cpu: Callable[[], float] | None) -> Sample:
    """Where the CPU time went, until now (a process gone is left out)."""
    cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = (sum(cpu[:8]) - cpu[3] - cpu[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
    t = os.times()
    servers = {}
    for pid in pids:
        try:
            ran_ns, waited_ns = (int(x) for x in Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[:2])
            servers[pid] = (proc_usage(pid)[0], ran_ns / 1e9, waited_ns / 1e9)
        except (OSError, ValueError):
            continue
    db = db_cpu() if db_cpu is not None else float("nan")
    return time.monotonic(), busy, t.user + t.system, db, servers


async def sample_rush(run: Run, rush_from: float, rush_s: float) -> None:
    """Where the CPU went during the rush: the machine, the servers, this client (the rest: judged programs)."""
    await asyncio.sleep(max(0.0, run_t0[0] + rush_from - time.monotonic()))
    run.rush_cpu.append(cpu_sample(run.server_pids, run.db_cpu))
    await asyncio.sleep(rush_s)
    run.rush_cpu.append(cpu_sample(run.server_pids, run.db_cpu))


def finished_judgements(run: Run) -> dict[Key, float]:
    """Every finished judgement of every contest (its contest and API id), and when it finished."""
    out: dict[Key, float] = {}
    for t in run.targets.values():
        (rows,) = run.store.rows(t, "SELECT submission_id, ordinal, end_s FROM judgements WHERE end_s IS NOT NULL")
        out.update({(t.cid, str(s) if o == 1 else f"{s}-{o}"): e for s, o, e in rows})
    return out


def proc_usage(pid: int) -> tuple[float, float, int]:
    """The process's own CPU seconds, its waited children's, and its peak RSS (KiB)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) / tick
    children = (int(fields[13]) + int(fields[14])) / tick
    hwm = re.search(r"VmHWM:\s+(\d+)", Path(f"/proc/{pid}/status").read_text())
    return own, children, int(hwm.group(1)) if hwm else 0


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))] if s else float("nan")


AFTER_KILL_S = 15.0  # the lag's row without the judgements finished this long after the kill (feeds reconnecting)


def report(run: Run, plan: Plan, wall_s: float, usage: list[tuple[float, float, int]]) -> bool:
    """Print the table; True when nothing was lost or duplicated. ``usage``: each process's (proc_usage; the
    killed one's read just before its kill)."""
    print(f"\n{'what':38} {'count':>7} {'p50':>9} {'p99':>9} {'max':>9}")
    finished = finished_judgements(run)
    stop_s, feeds, judged = run.at_stop
    rows = [
        ("login (GET + POST /login)", run.latency["login (both requests)"]),
        ("board page /scoreboard", run.latency["board page"]),
        ("board API scoreboard", run.latency["board API"]),
    ]
    for t in run.targets.values():  # the main contest's rows as they always were; another's with its id
        lags = [
            max(run.received[j]) - run.ended[j]
            for j in judged
            if j[0] == t.cid and len(run.received.get(j, ())) >= feeds.get(t.cid, 0)
        ]
        if t is run.main:
            rows += [
                ("submissions page (fragment)", run.latency["submissions page"]),
                ("submission acknowledgement", run.latency["submission ack"]),
                ("  of it: sent to taken by handler", run.latency["ack: sent to taken"]),
                ("  of it: taken to answered", run.latency["ack: taken to answered"]),
                ("event delivery lag (to the last feed)", lags),
            ]
            if run.killed_wall:
                window = (run.killed_wall, run.killed_wall + AFTER_KILL_S)
                calm = [
                    max(run.received[j]) - run.ended[j]
                    for j in judged
                    if j[0] == t.cid
                    and len(run.received.get(j, ())) >= feeds.get(t.cid, 0)
                    and not window[0] <= run.ended[j] < window[1]
                ]
                rows.append((f"  of it: not ending {AFTER_KILL_S:g} s after the kill", calm))
        else:
            rows += [
                (f"submissions page [{t.cid}]", run.latency[run.kind("submissions page", t.cid)]),
                (f"submission acknowledgement [{t.cid}]", run.latency[run.kind("submission ack", t.cid)]),
                (f"event delivery lag [{t.cid}]", lags),
            ]
    for name, v in rows:
        cells = [f"{pct(v, q) * 1000:7.0f}ms" for q in (0.5, 0.99, 1.0)] if v else ["-".rjust(9)] * 3
        print(f"{name:38} {len(v):7d} {' '.join(cells)}")
    rush = (plan.login_s + plan.steady_s, plan.login_s + plan.steady_s + plan.rush_s)
    for name, kind in (("board page, in the rush", "board page"), ("board API, in the rush", "board API")):
        v = [lat for lat, at in zip(run.latency[kind], run.when[kind], strict=True) if rush[0] <= at < rush[1]]
        cells = [f"{pct(v, q) * 1000:7.0f}ms" for q in (0.5, 0.99, 1.0)] if v else ["-".rjust(9)] * 3
        print(f"{name:38} {len(v):7d} {' '.join(cells)}")
    slow = defaultdict(list)  # the board's worst seconds: a stall shows as one
    for lat, at in zip(run.latency["board API"], run.when["board API"], strict=True):
        slow[int(at)].append(lat)
    worst = sorted(slow.items(), key=lambda kv: -max(kv[1]))[:5]
    print(
        "board API's worst seconds (s into the run: max): "
        + ", ".join(f"{s}: {max(v) * 1000:.0f} ms" for s, v in worst)
    )
    lag = max(run.client_lag, default=(0.0, 0.0))
    print(f"this client's own loop: at most {lag[0] * 1000:.0f} ms late (at {lag[1]:.0f} s into the run)")
    stored: set[Key] = set()
    twice = dup_runs = 0
    verdicts: dict[Key, str] = {}
    for t in run.targets.values():
        ids, judged_twice, runs_twice, done = run.store.rows(
            t,
            "SELECT id FROM submissions",
            "SELECT count(*) FROM (SELECT submission_id FROM judgements GROUP BY 1 HAVING count(*) > 1) AS x",
            "SELECT count(*) FROM (SELECT judgement_id, ordinal FROM runs GROUP BY 1, 2 HAVING count(*) > 1) AS x",
            "SELECT submission_id, verdict FROM judgements WHERE current = 1 AND verdict IS NOT NULL",
        )
        stored |= {(t.cid, str(r[0])) for r in ids}
        twice += judged_twice[0][0]
        dup_runs += runs_twice[0][0]
        verdicts |= {(t.cid, str(s)): v for s, v in done}
    lost_subs = len(set(run.acked) - stored)
    # a submission judged other than its folder says (a JE above all: the judge failed) is not a judged run
    wrong = {s: v for s, v in verdicts.items() if s in run.expected and v != run.expected[s]}
    # a judgement finished 10 s before the end that an open feed never got is lost; later ones may be on the way
    lost_events = sum(
        max(0, feeds.get(j[0], 0) - len(run.received.get(j, ()))) for j, e in judged.items() if e < stop_s - 10
    )
    late = sum(1 for j, e in judged.items() if e >= stop_s - 10 and len(run.received.get(j, ())) < feeds.get(j[0], 0))
    print()
    for t in run.targets.values() if len(run.targets) > 1 else ():
        print(
            f"submissions ({t.cid}): {sum(1 for k in run.acked if k[0] == t.cid)} acknowledged, "
            f"{sum(1 for k in stored if k[0] == t.cid)} stored, {sum(1 for k in finished if k[0] == t.cid)} judged"
        )
    print(
        f"submissions: {len(run.acked)} of {plan.teams} acknowledged, {len(stored)} stored, {len(finished)} judged; "
        f"lost {lost_subs}, judged twice {twice} (submissions with 2+ judgements), duplicate runs {dup_runs}"
    )
    tally = defaultdict(int)
    for v in verdicts.values():
        tally[v] += 1
    examples = "".join(f" (submission {s}: {v}, expected {run.expected[s]})" for s, v in list(wrong.items())[:3])
    print(
        "verdicts: " + ", ".join(f"{v} {n}" for v, n in sorted(tally.items()))
        + f"; not the verdict its folder says: {len(wrong)}{examples}"
    )  # fmt: skip
    open_feeds = ", ".join(f"{n} ({cid})" for cid, n in feeds.items()) if len(run.targets) > 1 else sum(feeds.values())
    print(
        f"feeds: {open_feeds} of {plan.teams} open at the end; finished judgements a feed never received (lost): "
        f"{lost_events}; received twice (duplicated): {run.duplicated}; finished in the last 10 s, not yet at "
        f"every feed: {late}"
    )
    cores = os.cpu_count() or 1
    own, children = sum(u[0] for u in usage), sum(u[1] for u in usage)
    killed = [run.ports.index(p) for p in run.dead]
    rss = ", ".join(f"{u[2] / 1024:.0f}" + (" (killed)" if i in killed else "") for i, u in enumerate(usage))
    print(
        f"server ({run.store.engine}, {len(usage)} process{'es' if len(usage) > 1 else ''}): peak RSS {rss} MiB; "
        f"CPU {own:.0f} s of {wall_s:.0f} s wall = {own / wall_s / cores:.0%} of {cores} cores (judged programs "
        f"and their sandbox, waited children: {children:.0f} s)"
    )
    if len(run.rush_cpu) == 2:
        (t0, m0, c0, d0, s0), (t1, m1, c1, d1, s1) = run.rush_cpu
        both = [pid for pid in s0 if pid in s1]  # a process killed in the rush is left out
        server = sum(s1[pid][0] - s0[pid][0] for pid in both)
        db = d1 - d0 if d1 == d1 else 0.0  # nan: not ours to measure
        span = (t1 - t0) * cores
        gone = f" ({len(s0) - len(both)} killed in it: left out)" if len(both) < len(s0) else ""
        db_part = f", PostgreSQL {db / span:.0%}" if d1 == d1 else ""
        print(
            f"CPU in the rush ({t1 - t0:.0f} s): machine {(m1 - m0) / span:.0%} of {cores} cores; server "
            f"{server / span:.0%}{gone}{db_part}, this client {(c1 - c0) / span:.0%}, the rest (judged programs, "
            f"sandbox, others) {((m1 - m0) - server - db - (c1 - c0)) / span:.0%}"
        )
        loops = ", ".join(
            f"on a CPU {(s1[pid][1] - s0[pid][1]) / (t1 - t0):.0%} waiting for one "
            f"{(s1[pid][2] - s0[pid][2]) / (t1 - t0):.0%}"
            for pid in both
        )
        print(f"  each server's event loop thread, in the rush: {loops}")
    if run.killed_wall:
        again = sum(1 for s in run.orphans if s in verdicts)
        print(
            f"the killed process was judging {len(run.orphans)} submission(s) (its leases); judged by the others "
            f"after the lease ran out: {again} of them, into the judgement it had begun"
        )
    for what, n in sorted(run.moved.items()):
        print(f"  after the kill: {what} x{n}")
    for what, n in sorted(run.failures.items()):
        print(f"  refused or failed: {what} x{n}")
    for e in run.feed_errors[:5]:
        print(f"  feed error: {e}")
    return lost_subs == 0 and twice == 0 and dup_runs == 0 and lost_events == 0 and run.duplicated == 0 and not wrong


def run_loop(main: Coroutine[Any, Any, float]) -> float:
    """``main`` on uvloop when it is installed (`judge serve`'s loop: it costs the machine less than asyncio's
    own), else on asyncio's."""
    try:
        import uvloop
    except ImportError:
        print("client: asyncio's event loop (uvloop is not installed)")
        return asyncio.run(main)
    print("client: uvloop's event loop")
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def main(servers, targets: list[Target], passwords: dict[str, str], plan: Plan, store: Store = Store()) -> int:  # noqa: ANN001, B008
    """Run the regional scenario against ``servers`` (bench/serve.py's `judge serve` processes, not started
    yet: one, or several on one PostgreSQL database) and ``targets`` (the main contest first; a site's practice
    beside it, ``plan.others_share`` of the teams using it), whose rows ``store`` reads."""
    print(
        f"regional: {plan.teams} teams log in over {plan.login_s:g} s, feeds and submissions page every "
        f"{plan.poll_s:g} s, public board at {plan.board_rps:g}/s; rush: {plan.teams} submissions in the last "
        f"{plan.rush_s:g} s (after {plan.steady_s:g} s steady); bound {plan.max_s:g} s; pages and board on "
        + ("kept-alive connections" if plan.keep_alive else "a new connection per request")
    )
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    if len(targets) > 1:
        print(
            f"site: {', '.join(t.cid for t in targets)} running; {plan.others_share:.0%} of the teams use "
            f"{', '.join(t.cid for t in targets[1:])} (feed, submissions page, their submission), the others "
            f"{targets[0].cid}; the public board is {targets[0].cid}'s"
        )
    n = len(servers.ports)
    print(
        f"server: {n} `judge serve` process{'es' if n > 1 else ''} ({'--shared, ' if n > 1 else ''}{store.engine}); "
        + (
            "the public board's requests round robin over them, each team pinned to one; when half the "
            "submissions are sent one is SIGKILLed and its teams go to the others"
            if plan.kill
            else "no kill"
        )
    )
    print(f"server up in {servers.start():.1f} s")
    run = Run(
        list(servers.ports),
        {t.cid: t for t in targets},
        passwords,
        store=store,
        keep_alive=plan.keep_alive,
        server_pids=list(servers.pids),
        kill=servers.kill_one if plan.kill else None,
        db_cpu=servers.db_cpu,
    )
    wall = run_loop(drive(run, plan))
    usage = servers.usage()
    servers.stop()
    ok = report(run, plan, wall, usage)
    if plan.profile is not None:
        print(f"\nprofile (py-spy --nonblocking, {SPY_HZ} Hz) of the last process, pid {run.server_pids[-1]}:")
        for phase in ("login", "rush"):
            for line in profile_summary(plan.profile / f"{phase}.txt"):
                print(line)
    print(f"load average after: {os.getloadavg()[0]:.2f}; run {wall:.0f} s")
    if len(run.acked) < plan.teams:
        print(f"NOTE: only {len(run.acked)} of {plan.teams} submissions were acknowledged (see the refusals above)")
    print("OK: nothing lost, nothing duplicated, every verdict as expected" if ok else "FAILED")
    return 0 if ok else 1
