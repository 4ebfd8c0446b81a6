"""Helpers for the `judge serve` tests: a small contest package (the sum and divisor fixture problems),
a settable clock, a cheap password hasher, a scripted JudgeFn, and a client that goes through the real
HTTP stack of the ASGI app (httpx's ASGITransport)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from argon2 import PasswordHasher
from starlette.applications import Starlette

from judge.judging.jobs import JudgeJob
from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages
from judge.package.problem import Problem
from judge.serve.http.app import create_app
from judge.serve.model.contest import load_contest
from judge.serve.model.times import parse_time
from judge.serve.model.upload import pack
from judge.serve.services.judging.judge_fn import JudgeFn
from judge.serve.site.server import ServeOptions, Server, open_server
from judge.serve.storage import SQLITE, Engine

FIXTURES = Path(__file__).parent / "fixtures"
T0 = parse_time("2030-01-01T10:00:00Z", "T0")  # the fixture contest's start
HOUR = 3600.0
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORDS = {
    "team1": "pw-team1",
    "team2": "pw-team2",
    "team3": "pw-team3",
    "judge": "pw-judge",
    "admin": "pw-admin",
}
SUM_AC = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_WA = "a, b = map(int, input().split())\nprint(a - b)\n"


class FakeClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def write_contest(
    root: Path,
    *,
    start: str | None = "2030-01-01T10:00:00Z",
    freeze: str = "1:00:00",
    rate: tuple[int, int] = (3, 60),
    code_limit_kib: int = 16,
    scoreboard_type: str = "score",
    extra: tuple[str, ...] = (),
) -> Path:
    """A contest package: 5 hours from ``start``, problems A = sum, B = divisor (from tests/fixtures),
    teams team1..team3, accounts team1..team3 (plain passwords), judge, admin. ``extra``: more lines of
    contest.yaml."""
    root.mkdir(parents=True, exist_ok=True)
    lines = [
        "id: test",
        "name: Test contest",
        f"start_time: {json.dumps(start)}" if start else "start_time: null",
        "duration: 5:00:00",  # unquoted: PyYAML reads 18000 (sexagesimal), which we accept
        f'scoreboard_freeze_duration: "{freeze}"',
        f"scoreboard_type: {scoreboard_type}",
        f"code_limit: {code_limit_kib}",
        f"rate_limit: {{submissions: {rate[0]}, seconds: {rate[1]}}}",
        *extra,
    ]
    (root / "contest.yaml").write_text("\n".join(lines) + "\n")
    (root / "problems.yaml").write_text("- {id: sum, label: A, rgb: '#f00'}\n- {id: divisor, label: B}\n")
    teams = [
        {"id": f"team{i}", "name": name, "label": str(i), "group_ids": ["g"]}
        for i, name in ((1, "Zeta"), (2, "Alpha"), (3, "Mu"))
    ]
    (root / "groups.json").write_text(json.dumps([{"id": "g", "name": "Everyone"}]))
    (root / "teams.json").write_text(json.dumps(teams))
    accounts = [
        {"username": u, "password": p, "type": "team" if u.startswith("team") else u}
        | ({"team_id": u} if u.startswith("team") else {})
        for u, p in PASSWORDS.items()
    ]
    (root / "accounts.yaml").write_text(json.dumps(accounts))  # JSON is YAML
    return root


def fake_result(job: JudgeJob, problem: Problem) -> SubmissionResult:
    """What a JudgeFn returns, scripted: AC with the full score if the source adds, else WA with 0."""
    text = b"".join(f.data for f in job.files)
    ok = b"a + b" in text
    verdict = Verdict.AC if ok else Verdict.WA
    tests = tuple(
        CaseResult(
            t.name,
            t.group,
            verdict,
            1.0 if ok else 0.0,
            0.01,
            0.02,
            1000,
            transcript=f"> question about {t.name}\n< <b>answer</b>\n",  # as an interactive problem's
        )
        for t in problem.tests()
    )
    secret = [t for t in tests if t.group.startswith("secret")]
    each = problem.secret.max_score / len(secret)
    scores = tuple((each if ok and t.group.startswith("secret") else 0.0) for t in tests)
    return SubmissionResult(
        problem=problem.id,
        source=job.label,
        language=job.language,
        verdict=verdict,
        score=sum(scores),
        max_score=problem.secret.max_score,
        time_s=0.01,
        memory_kib=1000,
        tests=tests,
        test_scores=scores,
    )


class ScriptedJudge:
    """A JudgeFn that judges nothing (fake_result) and counts the jobs it was given."""

    def __init__(self, problems: Mapping[str, Problem], fail: bool = False) -> None:
        self.problems = problems
        self.calls: list[JudgeJob] = []
        self.fail = fail
        self._lock = threading.Lock()

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        with self._lock:
            self.calls.append(job)
        if self.fail:
            raise RuntimeError("the executor lost its worker")
        return fake_result(job, self.problems[job.problem])


# the engine the contests of the running test are opened on (conftest.py's ``engine`` fixture sets it)
ENGINE: list[Engine] = [SQLITE]


def engine_for(root: Path) -> Engine:
    """The test's engine for the folder ``root``: on PostgreSQL, schemas of the folder's own (a test, or a
    Hypothesis example, that makes a new folder gets new databases; one that reopens a folder, its own)."""
    engine = ENGINE[0]
    if not engine.postgres:
        return engine
    return replace(engine, schema_prefix="f" + hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:10] + "_")


def make_server(
    root: Path,
    clock: FakeClock,
    judge: JudgeFn | None = None,
    *,
    languages: Mapping[str, Any] | None = None,
    board_interval_s: float = 0.0,
) -> Server:
    contest = load_contest(root, FIXTURES)
    if judge is None:
        judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    langs = languages if languages is not None else {k: v for k, v in load_languages().items() if k == "python3"}
    options = ServeOptions(hasher=CHEAP_HASHER, clock=clock, board_interval_s=board_interval_s, engine=engine_for(root))
    return open_server(contest, langs, judge, options)


class Api:
    """Requests through the ASGI app, as HTTP: Basic auth headers, JSON bodies, status codes."""

    def __init__(self, app: Starlette, address: str = "127.0.0.1") -> None:
        self.app = app
        self.address = address

    @classmethod
    def of(cls, server: Server, address: str = "127.0.0.1") -> Api:
        return cls(create_app(server), address)

    def request(
        self, method: str, path: str, user: str | None = None, password: str | None = None, **kw: Any
    ) -> httpx.Response:
        auth = None
        if user is not None:
            auth = (user, password if password is not None else PASSWORDS[user])

        cookies = kw.pop("cookies", None)  # the client's own (a new client per request): httpx deprecates per request

        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app, client=(self.address, 40000), raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=cookies) as client:
                return await client.request(method, path, auth=auth, **kw)

        return asyncio.run(go())

    def get(self, path: str, user: str | None = None, **kw: Any) -> httpx.Response:
        return self.request("GET", path, user, **kw)

    def submit(
        self,
        user: str | None,
        problem: str = "sum",
        files: Mapping[str, str | bytes] | None = None,
        language: str = "python3",
        **extra: Any,
    ) -> httpx.Response:
        files = files if files is not None else {"sum.py": SUM_AC}
        data = pack({k: v.encode() if isinstance(v, str) else v for k, v in files.items()})
        body = {
            "problem_id": problem,
            "language_id": language,
            "files": [{"data": base64.b64encode(data).decode()}],
            **extra,
        }
        return self.request("POST", "/api/contests/test/submissions", user, json=body)


def feed(api: Api, user: str | None = None, since: str | None = None) -> list[dict[str, Any]]:
    """The event feed so far (``stream=false``), parsed."""
    params = {"stream": "false"} | ({"since_token": since} if since is not None else {})
    r = api.get("/api/contests/test/event-feed", user, params=params)
    assert r.status_code == 200, r.text
    return [json.loads(line) for line in r.text.splitlines() if line.strip()]


class PgLook:
    """sqlite3.connect's stand-in on PostgreSQL, for a test to look at what is stored: the same statements
    (storage/dialect.py turns them into PostgreSQL's), rows as tuples, autocommit, in the storage's schema."""

    def __init__(self, storage: Any) -> None:
        import psycopg
        from psycopg import sql

        self._conn = psycopg.connect(storage._dsn, autocommit=True)
        self._conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(storage.schema)))

    def execute(self, statement: str, parameters: Any = ()) -> Any:
        from judge.serve.storage.dialect import postgres_sql

        return self._conn.execute(postgres_sql(statement, returning=False)[0].encode(), parameters)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> PgLook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def db_at(storage: Any) -> Any:
    """A connection of the test's own to a database (a contest's, a site's), to look at what is stored:
    sqlite3's, or on PostgreSQL a PgLook in that database's schema."""
    if getattr(storage, "schema", None) is not None:
        return PgLook(storage)
    return sqlite3.connect(storage.path)


def db(server: Server) -> Any:
    """A connection of the test's own to the contest's database (db_at)."""
    return db_at(server.storage)
