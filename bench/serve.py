"""Load test for `judge serve` on loopback: N teams (default 50) each submit M times (a mix of the demo
contest's accepted, wrong-answer and time-limit programs) while polling their submissions and the
scoreboard, as pages (logged in with the form, session cookie) and through the API. Once, when half of
the submissions are in, the server is killed with SIGKILL and started again on the same port; the
clients carry on (their cookies still valid).

Prints: submissions accepted per second (201s over the submitting phase) and judged per second; p50 /
p99 / max latency of each kind of request (pages and API) while the judge keeps the cores busy (requests
refused because the server was down are counted apart, not timed); and the check that matters: every
acknowledged submission is in the database, and every stored submission was judged exactly once (one
judgement, finished, no duplicate runs). Exit 1 if that check fails.

Bounded by count (N x M submissions) and by time (``--max-s``: what is not judged by then is reported).

    python3 bench/serve.py [--teams 50] [--per-team 4] [--max-s 600] [--no-kill] [--keep DIR]

From 100 teams (or with ``--scenario regional``) it runs the regional scenario instead: a login burst, a
feed per team, the public board at 100 requests/s, a last-minute submission rush (bench/serve_regional.py):

    python3 bench/serve.py --teams 500 [--login-s 60] [--steady-s 60] [--rush-s 60] [--board-rps 100]

With ``--site`` (issue 44) the regional scenario runs against a site made by `judge site init --teams N`,
its main contest started now beside the running practice: ``--practice-share`` (0.2) of the teams use the
practice (their feed, submissions page and submission there; its own problem's programs, judged after the
main contest's), the others and the public board the main contest:

    python3 bench/serve.py --teams 500 --site [--practice-share 0.2]
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
# (problem, path under problems/<id>/submissions/, expected verdict, weight)
PROGRAMS = (
    ("rummy", "accepted/closed_form.py", "AC", 5),
    ("rummy", "wrong_answer/always_raises.py", "WA", 3),
    ("rummy", "time_limit_exceeded/search.py", "TLE", 1),
)
POLL_S = 1.0
SETTLE_S = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def programs(skip: set[str]) -> list[tuple[str, str, bytes, str]]:
    out = []
    for problem, rel, verdict, weight in PROGRAMS:
        if verdict in skip:
            continue
        path = PROBLEMS / problem / "submissions" / rel
        if path.is_dir() or not path.is_file() or weight == 0:
            continue
        out += [(problem, path.name, path.read_bytes(), verdict)] * weight
    return out


class Server:
    def __init__(self, contest: Path, port: int, jobs: int | None, log: Path) -> None:
        self.contest, self.port, self.jobs, self.log = contest, port, jobs, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self) -> float:
        t0 = time.monotonic()
        cmd = [sys.executable, "-m", "judge", "serve", str(self.contest), "--port", str(self.port)]
        if self.jobs:
            cmd += ["--jobs", str(self.jobs)]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            cmd, env=env, stdin=subprocess.DEVNULL, stdout=self.log.open("ab"), stderr=subprocess.STDOUT
        )
        while True:
            if self.proc.poll() is not None:
                sys.exit(f"judge serve exited with {self.proc.returncode}; see {self.log}")
            try:
                if httpx.get(self.base + "/api", timeout=2).status_code == 200:
                    return time.monotonic() - t0
            except httpx.TransportError:
                time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[tuple[float, float]]] = defaultdict(list)  # (when, seconds)
        self.starts: list[float] = []  # when the server (re)started
        self.down = 0  # requests that found the server down (the kill), retried
        self.errors: list[str] = []
        self.acked: dict[int, str] = {}  # submission id -> expected verdict
        self.first_ack = self.last_ack = 0.0

    def timed(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latency[kind].append((time.monotonic(), seconds))


class Team(threading.Thread):
    def __init__(self, n: int, password: str, base: str, contest_id: str, per_team: int, progs, stats: Stats, stop):  # noqa: ANN001
        super().__init__(name=f"team{n}", daemon=True)
        self.user, self.password = f"team{n}", password
        self.base, self.cid, self.per_team = base, contest_id, per_team
        self.progs, self.stats, self.stop_at = progs, stats, stop
        self.mine: list[int] = []
        self.n = n

    def call(self, client: httpx.Client, kind: str, method: str, path: str, **kw) -> httpx.Response | None:  # noqa: ANN003
        while time.monotonic() < self.stop_at:
            t0 = time.perf_counter()
            try:
                r = client.request(method, self.base + path, timeout=60, **kw)
            except httpx.TransportError:
                with self.stats.lock:
                    self.stats.down += 1
                time.sleep(0.2)
                continue
            if r.status_code >= 500:
                with self.stats.lock:
                    self.stats.errors.append(f"{kind}: {r.status_code} {r.text[:200]}")
                return None
            self.stats.timed(kind, time.perf_counter() - t0)
            return r
        return None

    def login(self, web: httpx.Client) -> None:
        page = self.call(web, "page GET /login", "GET", "/login")
        if page is None:
            return
        token = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert token, page.text[:300]
        self.call(
            web, "page POST /login", "POST", "/login",
            data={"csrf": token.group(1), "username": self.user, "password": self.password},
        )  # fmt: skip

    def run(self) -> None:
        api = httpx.Client(auth=(self.user, self.password))
        web = httpx.Client(follow_redirects=False)
        self.login(web)
        C = f"/api/contests/{self.cid}"
        for m in range(self.per_team):
            problem, name, data, verdict = self.progs[(self.n * 7 + m * 3) % len(self.progs)]
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as zf:
                zf.writestr(name, data)
            body = {
                "problem_id": problem,
                "language_id": "python3",
                "files": [{"data": base64.b64encode(buf.getvalue()).decode()}],
            }
            while True:
                kind = "API POST submissions" if self.mine else "API POST submissions (1st)"
                r = self.call(api, kind, "POST", f"{C}/submissions", json=body)
                if r is None:
                    return
                if r.status_code == 429:
                    time.sleep(float(r.headers.get("retry-after", "1")))
                    continue
                if r.status_code != 201:
                    with self.stats.lock:
                        self.stats.errors.append(f"submit: {r.status_code} {r.text[:200]}")
                    break
                sid = int(r.json()["id"])
                with self.stats.lock:
                    self.stats.acked[sid] = verdict
                    now = time.monotonic()
                    self.stats.first_ack = self.stats.first_ack or now
                    self.stats.last_ack = now
                self.mine.append(sid)
                break
            self.poll(api, web, C)
        while time.monotonic() < self.stop_at:  # keep polling until all of ours are judged
            if self.poll(api, web, C):
                break
            time.sleep(POLL_S)

    def poll(self, api: httpx.Client, web: httpx.Client, C: str) -> bool:
        self.call(web, "page GET /submissions", "GET", "/submissions?fragment=1")
        self.call(web, "page GET /scoreboard", "GET", "/scoreboard")
        self.call(api, "API GET scoreboard", "GET", f"{C}/scoreboard")
        r = self.call(api, "API GET judgements", "GET", f"{C}/judgements")
        if r is None or r.status_code != 200:
            return False
        done = {int(j["submission_id"]) for j in r.json() if "judgement_type_id" in j}
        return all(s in done for s in self.mine)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def plan_of(args: argparse.Namespace, others_share: float = 0.0):  # noqa: ANN201
    import serve_regional

    return serve_regional.Plan(
        args.teams,
        args.login_s,
        args.steady_s,
        args.rush_s,
        args.board_rps,
        args.poll_s,
        args.max_s,
        keep_alive=not args.connection_per_request,
        others_share=others_share,
    )


def site_run(args: argparse.Namespace, work: Path) -> int:
    """The regional scenario against a site (`judge site init --teams N`): its main contest moved to start now,
    beside the practice that runs from now (each contest's start as the demo writes it, to the minute)."""
    import serve_regional

    if not 0 < args.practice_share < 1:
        sys.exit("--practice-share must be between 0 and 1")
    site = work / "site"
    out = subprocess.run(
        [sys.executable, "-m", "judge", "site", "init", str(site), "--teams", str(args.teams)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        sys.exit(out.stderr or out.stdout)
    passwords = dict(re.findall(r"^\s+(\S+)\s+(\S+)\s+\((?:team|judge|admin)\)$", out.stdout, re.M))
    practice, main_yaml = site / "contests" / "practice", site / "contests" / "main" / "contest.yaml"
    start = re.search(r"^start_time:.*$", (practice / "contest.yaml").read_text(), re.M)
    assert start is not None
    main_yaml.write_text(re.sub(r"^start_time:.*$", start.group(0), main_yaml.read_text(), flags=re.M))
    targets = [
        serve_regional.Target("main", site / "contests" / "main" / "contest.sqlite", "/contests/main"),
        serve_regional.Target(
            "practice", practice / "contest.sqlite", "/contests/practice", serve_regional.PRACTICE_PROGRAMS
        ),
    ]
    print(f"site {site}: main and practice both running, {args.teams} teams")
    server = Server(site, free_port(), args.jobs, work / "serve.log")
    return serve_regional.main(server, targets, passwords, plan_of(args, args.practice_share))


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teams", type=int, default=50)
    ap.add_argument("--per-team", type=int, default=4)
    ap.add_argument("--max-s", type=float, default=600.0, help="give up after this long (what is left is reported)")
    ap.add_argument("--jobs", type=int, default=None, help="judge serve --jobs (default: its own)")
    ap.add_argument("--no-kill", action="store_true", help="do not SIGKILL the server mid-run")
    ap.add_argument("--no-tle", action="store_true", help="only the accepted and wrong-answer programs")
    ap.add_argument("--keep", type=Path, default=None, help="write the contest here (default: a temporary folder)")
    ap.add_argument("--scenario", choices=("classic", "regional"), default=None, help="default: regional from 100")
    ap.add_argument("--login-s", type=float, default=60.0, help="regional: logins spread over this long")
    ap.add_argument("--steady-s", type=float, default=60.0, help="regional: then this long before the rush")
    ap.add_argument("--rush-s", type=float, default=60.0, help="regional: every team submits once within this long")
    ap.add_argument("--board-rps", type=float, default=100.0, help="regional: public board requests per second")
    ap.add_argument("--poll-s", type=float, default=5.0, help="regional: each team's submissions page every so often")
    ap.add_argument(
        "--site",
        action="store_true",
        help="regional: serve a site (judge site init) with its practice running beside the main contest",
    )
    ap.add_argument("--practice-share", type=float, default=0.2, help="--site: the share of teams in the practice")
    ap.add_argument(
        "--connection-per-request",
        action="store_true",
        help="regional: poll the pages and the board on a new connection per request (default: kept alive, as "
        "browsers and HTTP client libraries do)",
    )
    args = ap.parse_args()
    regional = args.scenario == "regional" or (args.scenario is None and args.teams >= 100)

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-serve-"))
    if args.site:
        if not regional:
            sys.exit("--site runs the regional scenario (100 teams or more, or --scenario regional)")
        return site_run(args, work)
    contest = work / "contest"
    out = subprocess.run(
        [sys.executable, "-m", "judge", "contest", "init", str(contest), "--teams", str(args.teams)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if out.returncode != 0:
        sys.exit(out.stderr or out.stdout)
    passwords = dict(re.findall(r"^\s+(\S+)\s+(\S+)\s+\((?:team|judge|admin)\)$", out.stdout, re.M))
    cid = re.search(r"^id:\s*(\S+)", (contest / "contest.yaml").read_text(), re.M)
    contest_id = cid.group(1).strip("'\"") if cid else "demo"
    if regional:
        import serve_regional

        server = Server(contest, free_port(), args.jobs, work / "serve.log")
        plan = plan_of(args)
        print(f"contest {contest} ({contest_id})")
        target = serve_regional.Target(contest_id, contest / "contest.sqlite")
        return serve_regional.main(server, [target], passwords, plan)
    progs = programs({"TLE"} if args.no_tle else set())
    print(f"contest {contest} ({contest_id}): {args.teams} teams x {args.per_team} submissions; "
          f"programs: {', '.join(sorted({f'{p}/{n} ({v})' for p, n, _, v in progs}))}")  # fmt: skip
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")

    server = Server(contest, free_port(), args.jobs, work / "serve.log")
    print(f"server up in {server.start():.1f} s")
    stats = Stats()
    stop_at = time.monotonic() + args.max_s
    t0 = time.monotonic()
    teams = [Team(n, passwords[f"team{n}"], server.base, contest_id, args.per_team, progs, stats, stop_at)
             for n in range(1, args.teams + 1)]  # fmt: skip
    for t in teams:
        t.start()
    total = args.teams * args.per_team
    killed = False
    restart_s = 0.0
    while any(t.is_alive() for t in teams):
        if not args.no_kill and not killed and len(stats.acked) >= total // 2:
            server.kill()
            killed = True
            print(f"SIGKILL after {len(stats.acked)} acknowledged submissions ({time.monotonic() - t0:.1f} s in)")
            restart_s = server.start()
            stats.starts.append(time.monotonic())
            print(f"restarted in {restart_s:.1f} s")
        time.sleep(0.1)
    wall = time.monotonic() - t0
    server.stop()

    # the check: every acknowledged submission stored, every stored one judged exactly once
    db = sqlite3.connect(contest / "contest.sqlite")
    stored = {r[0] for r in db.execute("SELECT id FROM submissions")}
    per_sub = dict(db.execute("SELECT submission_id, count(*) FROM judgements GROUP BY submission_id").fetchall())
    finished = {r[0]: r[1] for r in db.execute("SELECT submission_id, verdict FROM judgements WHERE end_s IS NOT NULL")}
    dup_runs = db.execute(
        "SELECT count(*) FROM (SELECT judgement_id, ordinal FROM runs GROUP BY 1, 2 HAVING count(*) > 1)"
    ).fetchone()[0]
    jobs_twice = db.execute(
        "SELECT count(*) FROM (SELECT submission_id FROM jobs GROUP BY 1 HAVING count(*) > 1)"
    ).fetchone()[0]
    lost = sorted(set(stats.acked) - stored)
    unjudged = sorted(s for s in stored if s not in finished)
    twice = sorted(s for s, n in per_sub.items() if n != 1)
    wrong = sorted(s for s, v in stats.acked.items() if s in finished and finished[s] != v)

    submit_span = max(stats.last_ack - stats.first_ack, 1e-9)
    print(f"\n{len(stats.acked)} of {total} submissions acknowledged in {submit_span:.1f} s: "
          f"{len(stats.acked) / submit_span:.1f} accepted/s; all judged after {wall:.1f} s: "
          f"{len(finished) / wall:.2f} judged/s")  # fmt: skip
    print(f"requests that found the server down (the kill; retried, not timed): {stats.down}; 5xx: {len(stats.errors)}")
    for e in stats.errors[:5]:
        print("  ", e)
    print(f"\n{'request':28} {'count':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'p99 steady':>11}")
    for kind in sorted(stats.latency):
        v = [s for _, s in stats.latency[kind]]
        steady = [s for t, s in stats.latency[kind] if not any(0 <= t - t0 < SETTLE_S for t0 in stats.starts)]
        p99s = f"{pct(steady, 0.99) * 1000:11.1f}" if steady else f"{'-':>11}"
        print(f"{kind:28} {len(v):6d} {pct(v, 0.5) * 1000:8.1f} {pct(v, 0.99) * 1000:8.1f} {max(v) * 1000:8.1f} {p99s}")
    print(f"(p99 steady: without the {SETTLE_S:g} s after the restart, when every client's password is verified anew;)")
    print("(1st: a team's first API request, and POST /login: the password is verified with argon2, cores at a time)")
    print(f"\nstored {len(stored)}, acknowledged {len(stats.acked)}, lost {len(lost)}, not judged {len(unjudged)}, "
          f"judged more than once {len(twice)}, duplicate runs {dup_runs}, submissions with 2+ jobs {jobs_twice}, "
          f"verdict not the expected one {len(wrong)}")  # fmt: skip
    if wrong:
        got = defaultdict(int)
        for s in wrong:
            got[f"{stats.acked[s]} -> {finished[s]}"] += 1
        print("  unexpected verdicts (expected -> got):", dict(got))
    je = sum(1 for s in stats.acked if finished.get(s) == "JE")
    if je:
        print(f"WARNING: {je} judge errors (JE: never charged; rejudge them)")
    print(f"load average after: {os.getloadavg()[0]:.2f}; work folder {work}")
    ok = not lost and not unjudged and not twice and not dup_runs and not jobs_twice
    print("OK: nothing lost, each judged exactly once" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
