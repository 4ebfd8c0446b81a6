"""The regional scenario of bench/serve.py (issue 32; the default from 100 teams): against one real `judge serve`
process on loopback, in one run,

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
from collections.abc import Coroutine
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


@dataclass
class Run:
    port: int
    targets: dict[str, Target]  # the first: the main contest (the public board's, most teams')
    passwords: dict[str, str]
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
    server_pid: int = 0
    rush_cpu: list[tuple[float, float, float, float, float, float]] = field(default_factory=list)  # cpu_sample

    @property
    def main(self) -> Target:
        return next(iter(self.targets.values()))

    def kind(self, kind: str, cid: str) -> str:
        """A latency's kind: the main contest's as it always was, another contest's with its id."""
        return kind if cid == self.main.cid else f"{kind} [{cid}]"

    async def timed(
        self, kind: str, method: str, path: str, headers: dict[str, str], body: bytes = b"", pool: Pool | None = None
    ) -> Reply | None:
        t0 = time.perf_counter()
        try:
            if pool is None:
                exchange = request(self.port, method, path, headers, body)
            else:
                exchange = pool.request(method, path, headers, body)
            reply = await asyncio.wait_for(exchange, TIMEOUT_S)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            self.failures[f"{kind}: {type(exc).__name__}"] += 1
            return None
        took = time.perf_counter() - t0
        self.latency[kind].append(took)
        self.when[kind].append(time.monotonic() - took - run_t0[0])  # when it was sent (s into the run)
        if reply.status >= 400:
            self.failures[f"{kind}: {reply.status}"] += 1
        return reply


async def login(run: Run, user: str) -> str | None:
    page = await run.timed("login GET /login", "GET", "/login", {})
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
    reply = await run.timed("login POST /login", "POST", "/login", headers, form.encode())
    if reply is None or reply.status not in (302, 303):
        return None
    run.latency["login (both requests)"].append(time.perf_counter() - t0 + run.latency["login GET /login"][-1])
    return cookie_of(reply)


async def feed(run: Run, user: str, cid: str) -> None:
    """The team's event feed of its contest, kept open; every finished judgement's arrival is noted."""
    path = f"/api/contests/{cid}/event-feed"
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", run.port, limit=1 << 22)
    except OSError as exc:
        run.feed_errors.append(f"{user}: {exc}")
        return
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {basic(user, run.passwords[user])}\r\n\r\n"
    writer.write(head.encode())
    seen: set[Key] = set()
    opened = False
    try:
        status = await reader.readline()
        if b" 200 " not in status:
            run.feed_errors.append(f"{user}: {status!r}")
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        run.feeds_open[cid] += 1
        opened = True
        pending = b""
        while True:
            size_line = await reader.readline()
            if not size_line:
                break
            n = int(size_line.split(b";")[0], 16)
            chunk = await reader.readexactly(n + 2)
            if n == 0:
                break
            now = time.time()
            pending += chunk[:-2]
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                if not raw.strip() or b'"judgements"' not in raw[:40]:
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
        run.feed_errors.append(f"{user}: {type(exc).__name__}: {exc}")
    finally:
        if opened:
            run.feeds_open[cid] -= 1
        writer.close()


async def poll_submissions(run: Run, cookie: str, every_s: float, cid: str) -> None:
    """The team's submissions page refreshing (its browser keeps its connection: Pool)."""
    browser = Pool(run.port, run.keep_alive)
    kind, path = run.kind("submissions page", cid), f"{run.targets[cid].base}/submissions?fragment=1"
    await asyncio.sleep(random.uniform(0, every_s))
    try:
        while not run.stop.is_set():
            await run.timed(kind, "GET", path, {"Cookie": cookie}, pool=browser)
            await asyncio.sleep(every_s)
    finally:
        browser.close()


async def poll_board(run: Run, rps: float) -> None:
    """``rps`` requests a second, whatever their answers take (each in its own task)."""
    tasks: set[asyncio.Task[None]] = set()
    main = run.main
    paths = (("board page", f"{main.base}/scoreboard"), ("board API", f"/api/contests/{main.cid}/scoreboard"))
    spectators = Pool(run.port, run.keep_alive)
    n, t0 = 0, time.monotonic()
    while not run.stop.is_set():
        kind, path = paths[n % 2]
        task = asyncio.create_task(_ignore(run.timed(kind, "GET", path, {}, pool=spectators)))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        n += 1
        await asyncio.sleep(max(0.0, t0 + n / rps - time.monotonic()))
    for task in list(tasks):  # the run is over: what is still waiting is not counted
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    spectators.close()


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


async def submit(run: Run, user: str, at_s: float, cid: str) -> None:
    await asyncio.sleep(at_s)
    n = run.submitted[cid]  # the contest's programs in turn (whichever teams use it)
    run.submitted[cid] += 1
    body, folder = submission_body(n, run.targets[cid].programs)
    headers = {"Authorization": basic(user, run.passwords[user]), "Content-Type": "application/json"}
    sent = time.time()
    try:
        path = f"/api/contests/{cid}/submissions"
        reply = await run.timed(run.kind("submission ack", cid), "POST", path, headers, body)
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
    cookie = await login(run, user)
    tasks = [asyncio.create_task(feed(run, user, cid))]
    if cookie is not None:
        tasks.append(asyncio.create_task(poll_submissions(run, cookie, poll_s, cid)))
    start = time.monotonic()
    await submit(run, user, max(0.0, random.uniform(*rush) - (start - run_t0[0])), cid)
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
    return time.monotonic() - run_t0[0]


def cpu_sample(pid: int) -> tuple[float, float, float, float, float, float]:
    """(wall, the machine's busy CPU seconds, the server's, this client's, the server's main thread (its event
    loop) on a CPU, and waiting for one) now."""
    cpu = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = (sum(cpu[:8]) - cpu[3] - cpu[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait
    t = os.times()
    ran_ns, waited_ns = (int(x) for x in Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[:2])
    return time.monotonic(), busy, proc_usage(pid)[0], t.user + t.system, ran_ns / 1e9, waited_ns / 1e9


async def sample_rush(run: Run, rush_from: float, rush_s: float) -> None:
    """Where the CPU went during the rush: the machine, the server, this client (the rest: judged programs)."""
    await asyncio.sleep(max(0.0, run_t0[0] + rush_from - time.monotonic()))
    run.rush_cpu.append(cpu_sample(run.server_pid))
    await asyncio.sleep(rush_s)
    run.rush_cpu.append(cpu_sample(run.server_pid))


def finished_judgements(run: Run) -> dict[Key, float]:
    """Every finished judgement of every contest (its contest and API id), and when it finished."""
    out: dict[Key, float] = {}
    for t in run.targets.values():
        with sqlite3.connect(f"file:{t.db}?mode=ro", uri=True) as con:
            rows = con.execute("SELECT submission_id, ordinal, end_s FROM judgements WHERE end_s IS NOT NULL")
            out.update({(t.cid, str(s) if o == 1 else f"{s}-{o}"): e for s, o, e in rows.fetchall()})
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


def report(run: Run, plan: Plan, wall_s: float, usage: tuple[float, float, int]) -> bool:
    """Print the table; True when nothing was lost or duplicated."""
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
    twice = 0
    verdicts: dict[Key, str] = {}
    for t in run.targets.values():
        with sqlite3.connect(f"file:{t.db}?mode=ro", uri=True) as con:
            stored |= {(t.cid, str(r[0])) for r in con.execute("SELECT id FROM submissions")}
            twice += con.execute(
                "SELECT count(*) FROM (SELECT submission_id FROM judgements GROUP BY 1 HAVING count(*) > 1)"
            ).fetchone()[0]
            done = "SELECT submission_id, verdict FROM judgements WHERE current AND verdict IS NOT NULL"
            verdicts |= {(t.cid, str(s)): v for s, v in con.execute(done).fetchall()}
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
        f"lost {lost_subs}, judged twice {twice}"
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
    own, children, hwm_kib = usage
    cores = os.cpu_count() or 1
    print(
        f"server: peak RSS {hwm_kib / 1024:.0f} MiB; CPU {own:.0f} s of {wall_s:.0f} s wall = "
        f"{own / wall_s / cores:.0%} "
        f"of {cores} cores (judged programs and their sandbox, waited children: {children:.0f} s)"
    )
    if len(run.rush_cpu) == 2:
        (t0, m0, s0, c0, r0, w0), (t1, m1, s1, c1, r1, w1) = run.rush_cpu
        span = (t1 - t0) * cores
        print(
            f"CPU in the rush ({t1 - t0:.0f} s): machine {(m1 - m0) / span:.0%} of {cores} cores; server "
            f"{(s1 - s0) / span:.0%}, this client {(c1 - c0) / span:.0%}, the rest (judged programs, sandbox, "
            f"others) {((m1 - m0) - (s1 - s0) - (c1 - c0)) / span:.0%}"
        )
        print(
            f"  the server's event loop thread: on a CPU {(r1 - r0) / (t1 - t0):.0%} of the rush, ready but "
            f"waiting for one {(w1 - w0) / (t1 - t0):.0%}"
        )
    for what, n in sorted(run.failures.items()):
        print(f"  refused or failed: {what} x{n}")
    for e in run.feed_errors[:5]:
        print(f"  feed error: {e}")
    return lost_subs == 0 and twice == 0 and lost_events == 0 and run.duplicated == 0 and not wrong


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


def main(server, targets: list[Target], passwords: dict[str, str], plan: Plan) -> int:  # noqa: ANN001
    """Run the regional scenario against ``server`` (bench/serve.py's, not started yet) and ``targets`` (the
    main contest first; a site's practice beside it, ``plan.others_share`` of the teams using it)."""
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
    print(f"server up in {server.start():.1f} s")
    run = Run(
        server.port, {t.cid: t for t in targets}, passwords, keep_alive=plan.keep_alive, server_pid=server.proc.pid
    )
    wall = run_loop(drive(run, plan))
    usage = proc_usage(server.proc.pid)
    server.stop()
    ok = report(run, plan, wall, usage)
    print(f"load average after: {os.getloadavg()[0]:.2f}; run {wall:.0f} s")
    if len(run.acked) < plan.teams:
        print(f"NOTE: only {len(run.acked)} of {plan.teams} submissions were acknowledged (see the refusals above)")
    print("OK: nothing lost, nothing duplicated, every verdict as expected" if ok else "FAILED")
    return 0 if ok else 1
