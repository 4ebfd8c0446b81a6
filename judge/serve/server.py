"""Wiring: open the contest's database, bring it in line with the package (accounts, and the events for
whatever changed in the configuration since the last start), and hold the parts the endpoints use. No
globals: `judge serve` and the tests each build a ``Server`` and pass it to ``create_app``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from argon2 import PasswordHasher

from judge.languages.table import Language
from judge.serve.auth import Authenticator, sync_accounts
from judge.serve.contest import Contest, ContestError
from judge.serve.db import DB_NAME, Database, set_meta
from judge.serve.events import ADMIN, OWNER, PUBLIC, EventBus, publish_if_changed, sync_collection
from judge.serve.queue import JudgeFn, Judging
from judge.serve.records import (
    account_json,
    judgement_types_json,
    language_json,
    problem_json,
    team_json,
)
from judge.serve.scoreboard import BoardCache
from judge.serve.timeline import Timeline
from judge.serve.times import Clock, SystemClock


@dataclass
class Server:
    contest: Contest
    db: Database
    auth: Authenticator
    bus: EventBus
    timeline: Timeline
    judging: Judging
    languages: Mapping[str, Language]
    clock: Clock
    log: Callable[[str], None]
    stopping: threading.Event = field(default_factory=threading.Event)
    boards: BoardCache = field(default_factory=BoardCache)
    _ticker: threading.Thread | None = None

    def start(self) -> None:
        """The background parts: the judging pool and the clock that publishes phase changes."""
        self.judging.start()
        self._ticker = threading.Thread(target=self._tick_loop, name="contest-clock", daemon=True)
        self._ticker.start()

    def _tick_loop(self) -> None:
        while not self.stopping.wait(1.0):
            try:
                self.timeline.tick()
            except Exception as exc:  # noqa: BLE001 - keep serving; say why
                self.log(f"contest clock: {type(exc).__name__}: {exc}")

    def stop(self) -> None:
        self.stopping.set()
        if self._ticker is not None:
            self._ticker.join()
        self.judging.stop()

    def changed_packages(self) -> list[str]:
        """Problems whose package changed since some of their submissions were judged (a rejudge may be due)."""
        out = []
        for p in self.contest.problems:
            row = (
                self.db.conn()
                .execute(
                    "SELECT count(*) FROM judgements j JOIN submissions s ON s.id = j.submission_id "
                    "WHERE s.problem_id = ? AND j.current = 1 AND j.end_s IS NOT NULL AND j.package_hash != ?",
                    (p.id, p.problem.content_hash),
                )
                .fetchone()
            )
            if row[0]:
                out.append(f"{p.id} ({row[0]} judgement(s) made with another version)")
        return out

    def close(self) -> None:
        self.db.close()


def _publish_problems(conn: sqlite3.Connection, contest: Contest, started: bool, now: float) -> None:
    scope = PUBLIC if started else ADMIN
    objects = [problem_json(p, contest.info.id) for p in contest.problems]
    sync_collection(conn, "problems", objects, now=now, audience=lambda o: (scope, None))


def open_server(
    contest: Contest,
    languages: Mapping[str, Language],
    judge_fn: JudgeFn,
    *,
    workers: int = 1,
    capacity: Callable[[], int] | None = None,
    hasher: PasswordHasher | None = None,
    clock: Clock | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> Server:
    """Open (or create) CONTEST_DIR/contest.sqlite for ``contest``. Raises ContestError, DatabaseError."""
    clock = clock or SystemClock()
    hasher = hasher or PasswordHasher()
    db = Database(contest.root / DB_NAME)
    bus = EventBus()
    info = contest.info
    now = clock.now()
    holder: dict[str, Judging] = {}

    def on_change(conn: sqlite3.Connection, at: float, thawed_from: float | None) -> None:
        _publish_problems(conn, contest, info.start_s is not None and at >= info.start_s, at)
        if thawed_from is not None:
            rows = conn.execute(
                "SELECT j.id FROM judgements j JOIN submissions s ON s.id = j.submission_id WHERE s.time_s >= ? "
                "ORDER BY j.id",
                (thawed_from,),
            ).fetchall()
            for r in rows:
                holder["judging"].publish_judgement(conn, r["id"], at)

    with db.write() as conn:
        owner = conn.execute("SELECT value FROM meta WHERE key = 'contest_id'").fetchone()
        if owner is not None and owner["value"] != info.id:
            raise ContestError(
                f"{db.path} holds contest {owner['value']!r}, but contest.yaml says {info.id!r}: "
                "move the database away to start a new contest"
            )
        set_meta(conn, "contest_id", info.id)
        sync_accounts(conn, contest.accounts, hasher)
    timeline = Timeline(info, db, clock, bus, on_change)
    with db.write() as conn:
        publish_if_changed(conn, "contest", None, timeline.contest_json(), now=now)
        sync_collection(conn, "judgement-types", judgement_types_json(), now=now)
        sync_collection(conn, "languages", [language_json(lang) for lang in languages.values()], now=now)
        sync_collection(conn, "groups", [dict(g) for g in contest.groups], now=now)
        sync_collection(conn, "organizations", [dict(o) for o in contest.organizations], now=now)
        sync_collection(conn, "teams", [team_json(t) for t in contest.teams], now=now)
        by_id = {a.id: a for a in contest.accounts}
        sync_collection(
            conn,
            "accounts",
            [account_json(a) for a in contest.accounts],
            now=now,
            audience=lambda o: (OWNER, by_id[o["id"]].team_id) if by_id[o["id"]].team_id else (ADMIN, None),
        )
    auth = Authenticator(db.conn(), hasher, clock)
    judging = Judging(db, bus, contest, timeline, languages, judge_fn, workers=workers, capacity=capacity, log=log)
    holder["judging"] = judging
    server = Server(contest, db, auth, bus, timeline, judging, languages, clock, log)
    timeline.tick()
    return server
