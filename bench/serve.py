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

On PostgreSQL (issue 51): ``--database postgresql://...`` (a new, empty database) or ``--database temp`` (a
throwaway cluster for the run: tests/pg_cluster.py); ``--processes N`` starts N `judge serve --shared` on
that one database (a throwaway cluster when no DSN is given), each on its own loopback port, each team
pinned to one of them, the board round robin; the kill (unless ``--no-kill``) SIGKILLs one of them, not
restarted, and its teams go to the others (feeds with ``since_token``). ``--profile DIR``: py-spy of the last
process in the login burst and the rush (docs/benchmarks.md):

    python3 bench/serve.py --teams 2000 --processes 3 --database temp [--profile DIR]
"""

from __future__ import annotations

import argparse
import base64
import io
import os
import re
import signal
import socket
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
    def __init__(self, contest: Path, port: int, jobs: int | None, log: Path, *extra: str) -> None:
        self.contest, self.port, self.jobs, self.log, self.extra = contest, port, jobs, log, extra
        self.proc: subprocess.Popen[bytes] | None = None
        self.base = f"http://127.0.0.1:{port}"

    def start(self) -> float:
        t0 = time.monotonic()
        cmd = [sys.executable, "-m", "judge", "serve", str(self.contest), "--port", str(self.port), *self.extra]
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


class Servers:
    """The `judge serve` processes of a run on one folder: one (SQLite, or PostgreSQL alone), or several with
    ``--shared`` on one PostgreSQL database, each on its own free loopback port. ``kill_one`` SIGKILLs the
    first (the one started first, which holds the database's lead: its idle work passes to another)."""

    def __init__(self, folder: Path, n: int, jobs: int | None, work: Path, db: Database) -> None:
        extra = db.options(shared=n > 1)
        logs = [work / "serve.log"] if n == 1 else [work / f"serve{i + 1}.log" for i in range(n)]
        self.servers = [Server(folder, free_port(), jobs, log, *extra) for log in logs]
        self.db = db
        self.killed: dict[int, tuple[float, float, int]] = {}  # index: its usage just before the kill

    @property
    def ports(self) -> list[int]:
        return [s.port for s in self.servers]

    @property
    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.servers if s.proc is not None]

    def start(self) -> float:
        """Start them one after the other (a shared database is opened by the first); the seconds it took."""
        return sum(s.start() for s in self.servers)

    def kill_one(self) -> int:
        """SIGKILL the first process still alive; its port."""
        from serve_regional import proc_usage

        i = next(i for i in range(len(self.servers)) if i not in self.killed)
        server = self.servers[i]
        assert server.proc is not None
        self.killed[i] = proc_usage(server.proc.pid)
        server.kill()
        return server.port

    def usage(self) -> list[tuple[float, float, int]]:
        """Each process's CPU seconds, its children's, its peak RSS (KiB): the killed one's as at its kill."""
        from serve_regional import proc_usage

        return [
            self.killed[i] if i in self.killed else proc_usage(s.proc.pid)  # type: ignore[union-attr]
            for i, s in enumerate(self.servers)
        ]

    def db_cpu(self) -> float:
        return self.db.cpu_s()

    def stop(self) -> None:
        for s in self.servers:
            s.stop()


class Database:
    """Where the run's databases are: SQLite files in the folder (``dsn`` None); a PostgreSQL database given
    (``--database postgresql://...``: a new, empty one); or ``temp``: a throwaway cluster of our own
    (tests/pg_cluster.py: initdb and pg_ctl in a temporary folder, a Unix socket, fsync off), stopped after
    the run."""

    def __init__(self, spec: str | None, processes: int) -> None:
        self.cluster = None
        self.dsn = spec
        if spec == "temp" or (spec is None and processes > 1):
            sys.path.insert(0, str(ROOT / "tests"))
            import pg_cluster

            bindir = pg_cluster.binaries()
            if bindir is None:
                sys.exit("--database temp needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql)")
            self.cluster = pg_cluster.Cluster(bindir)
            self.dsn = self.cluster.new_database()
        elif spec is not None and not spec.startswith(("postgresql://", "postgres://")):
            sys.exit("--database takes postgresql://... or temp (a throwaway cluster for the run)")

    @property
    def store(self):  # noqa: ANN201
        from serve_regional import Store

        return Store(self.dsn)

    def options(self, *, shared: bool) -> tuple[str, ...]:
        if self.dsn is None:
            return ()
        return ("--database", self.dsn, *(("--shared",) if shared else ()))

    def describe(self) -> str:
        if self.dsn is None:
            return "SQLite (the folder's files)"
        if self.cluster is not None:
            version = self.cluster.bindir.parent.name
            return f"PostgreSQL {version}, a throwaway cluster ({self.cluster.root}: a Unix socket, fsync off)"
        from judge.serve.storage.postgres import redacted

        return f"PostgreSQL {redacted(self.dsn)}"

    def cpu_s(self) -> float:
        """Our cluster's CPU seconds so far (the postmaster, its live backends, the ones it reaped); nan when
        the cluster is not ours."""
        if self.cluster is None:
            return float("nan")
        try:
            master = int((self.cluster.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return float("nan")
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid, ppid = int(stat.parent.name), int(fields[1])
            if pid == master:
                total += sum(int(x) for x in fields[11:15]) / tick  # its own and its reaped backends'
            elif ppid == master:
                total += sum(int(x) for x in fields[11:13]) / tick
        return total

    def close(self) -> None:
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None


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


class Router:
    """Which process a team's requests go to: its own (``n`` modulo the processes), as a proxy with sticky
    sessions pins it, or once that one is killed (and not restarted: several processes) one of the others."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = bases
        self.dead: set[int] = set()

    def base(self, n: int) -> str:
        i = n % len(self.bases)
        if i in self.dead:
            alive = [j for j in range(len(self.bases)) if j not in self.dead]
            i = alive[n % len(alive)]
        return self.bases[i]


class Team(threading.Thread):
    def __init__(self, n: int, password: str, router: Router, cid: str, per_team: int, progs, stats: Stats, stop):  # noqa: ANN001
        super().__init__(name=f"team{n}", daemon=True)
        self.user, self.password = f"team{n}", password
        self.router, self.cid, self.per_team = router, cid, per_team
        self.progs, self.stats, self.stop_at = progs, stats, stop
        self.mine: list[int] = []
        self.n = n

    def call(self, client: httpx.Client, kind: str, method: str, path: str, **kw) -> httpx.Response | None:  # noqa: ANN003
        while time.monotonic() < self.stop_at:
            t0 = time.perf_counter()
            try:
                r = client.request(method, self.router.base(self.n) + path, timeout=60, **kw)
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
        kill=args.processes > 1 and not args.no_kill,
        profile=args.profile,
    )


def site_run(args: argparse.Namespace, work: Path, db: Database) -> int:
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
    servers = Servers(site, args.processes, args.jobs, work, db)
    return serve_regional.main(servers, targets, passwords, plan_of(args, args.practice_share), db.store)


def main() -> int:
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--teams", type=int, default=50)
    ap.add_argument("--per-team", type=int, default=4)
    ap.add_argument("--max-s", type=float, default=600.0, help="give up after this long (what is left is reported)")
    ap.add_argument("--jobs", type=int, default=None, help="judge serve --jobs (default: its own)")
    ap.add_argument(
        "--no-kill",
        action="store_true",
        help="do not SIGKILL the server mid-run (classic: the one process, restarted; with several processes, "
        "either scenario: one of them, not restarted)",
    )
    ap.add_argument(
        "--database",
        metavar="DSN",
        default=None,
        help="serve from PostgreSQL: postgresql://... (a new, empty database), or temp: a throwaway cluster for "
        "the run (tests/pg_cluster.py; the default with --processes above 1); default: SQLite",
    )
    ap.add_argument(
        "--processes",
        type=int,
        default=1,
        help="this many `judge serve --shared` processes on the one PostgreSQL database, each on its own port",
    )
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
    ap.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="DIR",
        help="regional: py-spy (nonblocking, 20 Hz) the last process in the login burst and in the rush; the raw "
        "stacks in DIR, a summary printed",
    )
    args = ap.parse_args()
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    if args.processes < 1:
        sys.exit("--processes: at least 1")
    regional = args.scenario == "regional" or (args.scenario is None and args.teams >= 100)
    if args.site and not regional:
        sys.exit("--site runs the regional scenario (100 teams or more, or --scenario regional)")
    raise_open_files()  # the clients' connections: thousands from 500 teams
    db = Database(args.database, args.processes)
    try:
        print(f"database: {db.describe()}; {args.processes} `judge serve` process(es)")
        work = args.keep or Path(tempfile.mkdtemp(prefix="bench-serve-"))
        if args.site:
            return site_run(args, work, db)
        return contest_run(args, work, db, regional)
    finally:
        db.close()


def raise_open_files() -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def contest_run(args: argparse.Namespace, work: Path, db: Database, regional: bool) -> int:
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

        servers = Servers(contest, args.processes, args.jobs, work, db)
        plan = plan_of(args)
        print(f"contest {contest} ({contest_id})")
        target = serve_regional.Target(contest_id, contest / "contest.sqlite")
        return serve_regional.main(servers, [target], passwords, plan, db.store)
    progs = programs({"TLE"} if args.no_tle else set())
    print(f"contest {contest} ({contest_id}): {args.teams} teams x {args.per_team} submissions; "
          f"programs: {', '.join(sorted({f'{p}/{n} ({v})' for p, n, _, v in progs}))}")  # fmt: skip
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")

    servers = Servers(contest, args.processes, args.jobs, work, db)
    print(f"server{'s' if args.processes > 1 else ''} up in {servers.start():.1f} s")
    stats = Stats()
    stop_at = time.monotonic() + args.max_s
    t0 = time.monotonic()
    router = Router([s.base for s in servers.servers])
    teams = [Team(n, passwords[f"team{n}"], router, contest_id, args.per_team, progs, stats, stop_at)
             for n in range(1, args.teams + 1)]  # fmt: skip
    for t in teams:
        t.start()
    total = args.teams * args.per_team
    killed = False
    while any(t.is_alive() for t in teams):
        if not args.no_kill and not killed and len(stats.acked) >= total // 2:
            killed = True
            if args.processes == 1:
                servers.servers[0].kill()
                print(f"SIGKILL after {len(stats.acked)} acknowledged submissions ({time.monotonic() - t0:.1f} s in)")
                restart_s = servers.servers[0].start()
                stats.starts.append(time.monotonic())
                print(f"restarted in {restart_s:.1f} s")
            else:  # one of several: its teams go to the others (their sessions are the database's)
                router.dead.add(servers.ports.index(servers.kill_one()))
                stats.starts.append(time.monotonic())
                print(f"SIGKILL of one of {args.processes} processes after {len(stats.acked)} acknowledged "
                      f"submissions ({time.monotonic() - t0:.1f} s in); its teams go to the others")  # fmt: skip
        time.sleep(0.1)
    wall = time.monotonic() - t0
    usage = servers.usage()
    servers.stop()

    # the check: every acknowledged submission stored, every stored one judged exactly once
    import serve_regional

    rows, judgements, done, runs_twice, jobs = db.store.rows(
        serve_regional.Target(contest_id, contest / "contest.sqlite"),
        "SELECT id FROM submissions",
        "SELECT submission_id, count(*) FROM judgements GROUP BY submission_id",
        "SELECT submission_id, verdict FROM judgements WHERE end_s IS NOT NULL",
        "SELECT count(*) FROM (SELECT judgement_id, ordinal FROM runs GROUP BY 1, 2 HAVING count(*) > 1) AS x",
        "SELECT count(*) FROM (SELECT submission_id FROM jobs GROUP BY 1 HAVING count(*) > 1) AS x",
    )
    stored = {r[0] for r in rows}
    per_sub = dict(judgements)
    finished = dict(done)
    dup_runs, jobs_twice = runs_twice[0][0], jobs[0][0]
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
    rss = ", ".join(f"{u[2] / 1024:.0f}" for u in usage)
    print(f"server ({db.store.engine}, {args.processes} process(es)): peak RSS {rss} MiB; CPU "
          f"{sum(u[0] for u in usage):.0f} s")  # fmt: skip
    print(f"load average after: {os.getloadavg()[0]:.2f}; work folder {work}")
    ok = not lost and not unjudged and not twice and not dup_runs and not jobs_twice and not wrong
    print("OK: nothing lost, each judged exactly once, every verdict as expected" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
