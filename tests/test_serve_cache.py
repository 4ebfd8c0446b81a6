"""Issue 32's caches say what a fresh computation says: the board (the API's JSON and the page's table, made
once per ranked board and kept per role and freeze state) after every kind of change, and the event feed
read from the log's copy in memory by a client that reconnects with ``since_token`` at any point."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from serve_channels import Browser, LoopApi, log_in
from serve_fixtures import HOUR, SUM_AC, SUM_WA, T0, FakeClock, make_server, write_contest

from judge.serve.model.times import format_time
from judge.serve.services.events import EventLog

C = "/api/contests/test"
END = T0 + 5 * HOUR
TEAMS = ("team1", "team2", "team3")
VIEWERS: tuple[str | None, ...] = (None, "team1", "judge")  # the public, a team, staff
MACHINE = settings(max_examples=12, stateful_step_count=14, deadline=None, suppress_health_check=list(HealthCheck))


class World(RuleBasedStateMachine):
    """One contest driven through the app by every kind of change the board depends on; after each, every
    viewer's board (API and page) is asked twice: as the caches give it, and computed afresh."""

    @initialize(start_minutes=st.sampled_from([-5, 30, 235, 250, 295]))
    def open(self, start_minutes: int) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.runner = asyncio.Runner()
        self.clock = FakeClock(T0 + start_minutes * 60)
        self.server = make_server(write_contest(Path(self.tmp.name) / "contest"), self.clock)
        self.api = LoopApi(self.server, self.runner)
        self.pages: dict[str | None, Browser] = {v: log_in(self.api, v) for v in VIEWERS}
        self.admin = log_in(self.api, "admin")
        self.made: list[int] = []

    def teardown(self) -> None:
        if hasattr(self, "server"):
            self.server.close()
            self.runner.close()
            self.tmp.cleanup()

    @rule(minutes=st.sampled_from([1, 15, 60]))
    def advance(self, minutes: int) -> None:
        self.clock.advance(minutes * 60)

    @rule(team=st.sampled_from(TEAMS), accepted=st.booleans())
    def submit(self, team: str, accepted: bool) -> None:
        self.clock.advance(1)
        r = self.api.submit(team, files={"sum.py": SUM_AC if accepted else SUM_WA})
        if r.status_code == 201:
            self.made.append(int(r.json()["id"]))

    @rule()
    def judge(self) -> None:
        self.server.judging.run_pending()

    @precondition(lambda self: bool(self.made))
    @rule(pick=st.integers(0, 50))
    def rejudge(self, pick: int) -> None:
        sid = self.made[pick % len(self.made)]
        assert self.api.request("POST", f"{C}/submissions/{sid}/rejudge", "admin").status_code == 202

    @rule()
    def freeze_now(self) -> None:
        self.admin.post("/admin/freeze")

    @rule(minutes_after=st.sampled_from([0, 5]))
    def thaw(self, minutes_after: int) -> None:
        at = max(self.clock.now(), END) + minutes_after * 60
        self.api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(at)})

    def boards(self) -> dict[str | None, tuple[Any, str]]:
        out = {}
        for v in VIEWERS:
            r = self.api.get(f"{C}/scoreboard", v)
            assert r.status_code == 200, r.text
            out[v] = (r.json(), self.pages[v].get("/scoreboard?fragment=1").text)
        # the public's board asked again without a session: made now, so answered on the event loop
        # (RouteSpec/PageSpec.on_loop), and the same as from a request thread
        again = self.api.get(f"{C}/scoreboard", None)
        assert again.json() == out[None][0]
        self.api.client.cookies.clear()
        assert self.api.request("GET", "/scoreboard?fragment=1").text == out[None][1]
        return out

    @invariant()
    def the_cached_board_is_the_fresh_one(self) -> None:
        if not hasattr(self, "server"):
            return
        cached = self.boards()
        self.server.boards.clear()
        fresh = self.boards()
        assert cached == fresh
        for v, (doc, _) in fresh.items():
            r = self.api.get(f"{C}/scoreboard", v)
            assert r.content == json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()


TestTheCachedBoard = World.TestCase
TestTheCachedBoard.settings = MACHINE


class Reconnecting(RuleBasedStateMachine):
    """Feed clients that reconnect with ``since_token`` after any change (some of the log read from memory,
    some from storage: the copy in memory keeps the last 3 events only) miss nothing and get nothing twice."""

    @initialize()
    def open(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.runner = asyncio.Runner()
        self.clock = FakeClock(T0 + 30 * 60)
        self.server = make_server(write_contest(Path(self.tmp.name) / "contest"), self.clock)
        self.server.bus.log = EventLog(self.server.storage, keep=3, batch=2)
        self.server.bus.notify()
        self.api = LoopApi(self.server, self.runner)
        self.got: dict[str | None, list[dict[str, Any]]] = {v: [] for v in VIEWERS}
        self.admin = log_in(self.api, "admin")

    def teardown(self) -> None:
        if hasattr(self, "server"):
            self.server.close()
            self.runner.close()
            self.tmp.cleanup()

    def read(self, viewer: str | None, since: str | None) -> list[dict[str, Any]]:
        params = {"stream": "false"} | ({"since_token": since} if since is not None else {})
        r = self.api.get(f"{C}/event-feed", viewer, params=params)
        assert r.status_code == 200, r.text
        return [json.loads(line) for line in r.text.splitlines() if line.strip()]

    @rule(team=st.sampled_from(TEAMS), accepted=st.booleans())
    def submit(self, team: str, accepted: bool) -> None:
        self.clock.advance(60)
        self.api.submit(team, files={"sum.py": SUM_AC if accepted else SUM_WA})

    @rule()
    def judge(self) -> None:
        self.server.judging.run_pending()

    @rule(minutes=st.sampled_from([10, 120]))
    def advance(self, minutes: int) -> None:
        self.clock.advance(minutes * 60)
        self.server.timeline.tick()

    @rule()
    def freeze_now(self) -> None:
        self.admin.post("/admin/freeze")

    @rule(viewer=st.sampled_from(VIEWERS))
    def reconnect(self, viewer: str | None) -> None:
        got = self.got[viewer]
        self.got[viewer] = got + self.read(viewer, got[-1]["token"] if got else None)

    @invariant()
    def nothing_missed_nothing_twice(self) -> None:
        if not hasattr(self, "server"):
            return
        for viewer, got in self.got.items():
            whole = self.read(viewer, None)
            assert got == whole[: len(got)]
            assert [e["token"] for e in whole] == [str(n) for n in range(1, len(whole) + 1)]


TestReconnecting = Reconnecting.TestCase
TestReconnecting.settings = MACHINE


# ------------------------------------------------------------------ one computation per change, not per request


def _concurrent_callers(call: Any, n: int = 8) -> tuple[list[Any], int]:
    """``call(make)`` from ``n`` threads while the first ``make`` is still running: the results, and how many
    times ``make`` ran."""
    import threading

    entered, release = threading.Event(), threading.Event()
    made = []

    def make() -> dict[str, int]:
        made.append(1)
        entered.set()
        release.wait(10)
        return {"made": len(made)}

    results: list[Any] = []
    threads = [threading.Thread(target=lambda: results.append(call(make))) for _ in range(n)]
    threads[0].start()
    assert entered.wait(10)
    for t in threads[1:]:
        t.start()
    threading.Event().wait(0.2)  # the others reach the cache while the first still makes it
    release.set()
    for t in threads:
        t.join(10)
    return results, len(made)


def test_a_board_asked_for_by_many_at_once_is_ranked_once() -> None:
    from judge.serve.services.board import BoardCache, Ranked

    cache = BoardCache()
    results, made = _concurrent_callers(lambda make: cache.rows("key", (1,), lambda: Ranked([make()])))
    assert made == 1
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_a_table_asked_for_by_many_at_once_is_rendered_once() -> None:
    from judge.serve.services.board import Ranked

    ranked = Ranked([])
    results, made = _concurrent_callers(lambda make: ranked.derived("table", make))
    assert made == 1
    assert all(r is results[0] for r in results)


def test_the_contest_is_made_once_per_change_of_the_roster() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = FakeClock(T0)
        server = make_server(write_contest(Path(tmp)), clock)
        try:
            first = server.contest
            assert server.contest is first  # a page of 500 rows asks per row: the same object
            server.roster.set(server.roster.current)  # type: ignore[arg-type]  # the same roster: no change
            assert server.contest is first
            roster = server.roster.current
            assert roster is not None
            server.roster.set(type(roster)(**{**roster.__dict__}))  # another roster, equal content
            assert server.contest is not first and server.contest == first
        finally:
            server.close()


def test_a_waiting_feed_is_woken_by_a_change_published_in_another_thread() -> None:
    """Streams wait on the bus (woken once per change), not by polling: a change from a judging thread wakes
    them, and so does ``wake`` (the server stopping). The outer bound only keeps a broken wake from hanging."""
    import threading

    from judge.serve.services.events import EventBus

    bus = EventBus()

    async def wait_for_change() -> int:
        seen = bus.generation
        threading.Timer(0.05, bus.notify).start()
        await asyncio.wait_for(bus.changed(seen, timeout_s=3600), 60)
        return bus.generation - seen

    assert asyncio.run(wait_for_change()) == 1

    async def wait_for_wake() -> int:
        seen = bus.generation
        threading.Timer(0.05, bus.wake).start()
        await asyncio.wait_for(bus.changed(seen, timeout_s=3600), 60)
        return bus.generation - seen

    assert asyncio.run(wait_for_wake()) == 0  # woken, nothing published


def test_with_a_wake_interval_changes_in_a_burst_release_the_waiting_feeds_once() -> None:
    """`judge serve --feed-interval`: the first change after a quiet interval releases the waiting streams at
    once; the next ones within the interval are held for its end (one release for all of them), and a stream
    that read before them is not released early by them. (The interval is an hour: "held" is certain.)"""
    from judge.serve.services.events import EventBus

    bus = EventBus(wake_interval_s=3600.0)

    async def burst() -> tuple[bool, bool, int]:
        seen = bus.generation
        first = asyncio.create_task(bus.changed(seen, timeout_s=3600))
        await asyncio.sleep(0)  # it waits
        bus.notify()
        await asyncio.wait_for(first, 60)  # released at once
        seen = bus.generation
        held = asyncio.create_task(bus.changed(seen, timeout_s=3600))
        await asyncio.sleep(0)
        bus.notify()
        bus.notify()
        for _ in range(20):  # the loop runs the release callbacks: none of them may release it
            await asyncio.sleep(0)
        held_now = not held.done()
        held.cancel()
        # a stream that saw less than what was released returns at once; one that saw the newest waits
        await asyncio.wait_for(bus.changed(seen - 1, timeout_s=3600), 60)
        late = asyncio.create_task(bus.changed(bus.generation, timeout_s=0.01))
        await asyncio.wait_for(late, 60)  # only its own (short) timeout ends it
        return held_now, late.done(), bus.generation - seen

    assert asyncio.run(burst()) == (True, True, 2)


def test_a_release_wakes_the_waiting_feeds_a_batch_per_turn_of_the_loop() -> None:
    """500 feeds woken at once held the loop for one long turn: a release wakes WAKE_BATCH of them per turn,
    so requests are read and served in between; every one of them is woken, once, and a feed cancelled
    while waiting (its client gone) is passed by."""
    from judge.serve.services.events import WAKE_BATCH, EventBus

    bus = EventBus()
    n = 2 * WAKE_BATCH + 7

    async def release() -> tuple[list[int], int]:
        woken: list[int] = []

        async def feed(i: int) -> None:
            await bus.changed(bus.generation)
            woken.append(i)

        feeds = [asyncio.create_task(feed(i)) for i in range(n)]
        gone = asyncio.create_task(bus.changed(bus.generation))
        await asyncio.sleep(0)  # they all wait
        gone.cancel()
        bus.notify()
        counts = []
        for _ in range(50):  # the loop's turns: how many were woken by each
            await asyncio.sleep(0)
            counts.append(len(woken))
        await asyncio.wait_for(asyncio.gather(*feeds), 60)
        return counts, len(set(woken))

    counts, distinct = asyncio.run(release())
    assert distinct == n
    assert {WAKE_BATCH, 2 * WAKE_BATCH} <= set(counts), counts  # a turn saw one batch woken, a later two
    assert counts[-1] == n


def test_with_an_interval_a_new_board_is_made_at_most_once_per_interval() -> None:
    """`judge serve --board-interval`: within the interval of the last board made for a key, a newer change
    gets that board; after it, the newest. Without an interval every change makes a new board."""
    from judge.serve.services.board import BoardCache, Ranked

    now = [100.0]
    made: list[tuple[int, ...]] = []

    def ask(cache: BoardCache, key: str, changes: tuple[int, ...]) -> list[Any]:
        def compute() -> Ranked:
            made.append(changes)
            return Ranked([{"as_of": changes}])

        return cache.rows(key, changes, compute).rows

    cache = BoardCache(interval_s=1.0, clock=lambda: now[0])
    assert ask(cache, "public", (1, 1)) == [{"as_of": (1, 1)}]
    now[0] += 0.5
    assert ask(cache, "public", (2, 1)) == [{"as_of": (1, 1)}]  # within the interval: the last board
    assert ask(cache, "staff", (2, 1)) == [{"as_of": (2, 1)}]  # another key has its own
    now[0] += 0.5
    assert ask(cache, "public", (2, 3)) == [{"as_of": (2, 3)}]  # the interval is over: the newest
    assert made == [(1, 1), (2, 1), (2, 3)]

    exact = BoardCache(clock=lambda: now[0])
    assert [ask(exact, "public", (n, 0))[0]["as_of"] for n in (4, 5, 5, 6)] == [(4, 0), (5, 0), (5, 0), (6, 0)]
    assert made[3:] == [(4, 0), (5, 0), (6, 0)]


def test_a_session_read_before_it_ended_is_not_kept_after() -> None:
    """The page sessions kept in memory never outlive the table: ``forget``/``forget_accounts`` (called after
    the commit that ends them) drop them, and a lookup that read the session before that commit cannot put
    it back afterwards (its epoch is older)."""
    from judge.serve.model.records import SessionRecord
    from judge.serve.services.sessions import SessionCache

    cache = SessionCache(size=2)
    a = SessionRecord("sa", "va", "team1", 0.0, 100.0)
    b = SessionRecord("sb", "vb", "team2", 0.0, 100.0)
    epoch = cache.epoch
    cache.put(a, epoch)
    cache.put(b, epoch)
    assert cache.get("sa") == a and cache.get("sb") == b
    late = cache.epoch  # a lookup reads the table now ...
    cache.forget_accounts(["team1"])  # ... while a reset ends team1's sessions
    cache.put(a, late)  # ... and puts what it read: refused
    assert cache.get("sa") is None and cache.get("sb") == b
    cache.forget("sb")
    assert cache.get("sb") is None
    cache.put(a, cache.epoch)
    cache.put(b, cache.epoch)
    cache.put(SessionRecord("sc", "vc", "team3", 0.0, 100.0), cache.epoch)  # full: starts again
    assert cache.get("sc") is not None and cache.get("sa") is None


def test_with_an_interval_requests_get_the_last_board_while_a_new_one_is_made() -> None:
    """In a rush a new board takes a while to rank and draw: with an interval the requests that ask
    meanwhile get the last board (and what was made of it) at once instead of each holding a worker thread
    until it is done; without an interval they wait for the new one (exact)."""
    import threading

    from judge.serve.services.board import BoardCache, Ranked

    now = [100.0]
    cache = BoardCache(interval_s=1.0, clock=lambda: now[0])
    old = cache.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    assert old.derived("json", lambda: "old json") == "old json"
    now[0] += 5.0  # the interval is over: the next change makes a new board
    started, release = threading.Event(), threading.Event()

    def slow() -> Ranked:
        started.set()
        assert release.wait(60)
        return Ranked([{"as_of": 2}])

    maker = threading.Thread(target=lambda: cache.rows("public", (2,), slow))
    maker.start()
    assert started.wait(60)
    assert cache.rows("public", (3,), lambda: Ranked([{"as_of": 3}])) is old  # not made twice, not waited for
    release.set()
    maker.join(60)
    new = cache.rows("public", (2,), lambda: Ranked([{"as_of": "again"}]))
    assert new.rows == [{"as_of": 2}] and new.previous == [old]
    # while the new board's JSON is being made, the others get the last board's
    making, done = threading.Event(), threading.Event()

    def slow_json() -> str:
        making.set()
        assert done.wait(60)
        return "new json"

    drawer = threading.Thread(target=lambda: new.derived("json", slow_json))
    drawer.start()
    assert making.wait(60)
    assert new.derived("json", lambda: "made twice") == "old json"
    done.set()
    drawer.join(60)
    assert new.derived("json", lambda: "made twice") == "new json"


def test_a_peek_gives_the_board_behind_and_one_claim_at_a_time() -> None:
    """For the event loop: ``peek`` never makes a board. With an interval it gives the last board when a
    newer would be made, and says it is behind (not while one is being made: that one is near), unless that
    board is from long ago (its key comes back after the freeze: it would take the board back in time);
    ``claim`` lets one caller at a time have a thread make the next, and a claim never released lapses (its
    late release ends no newer claim). ``ready`` gives what was made of a board, or of the board it replaced
    (behind). Without an interval, a peek gives only the exact board."""
    from judge.serve.services.board import BEHIND_S, CLAIM_S, BoardCache, Ranked

    now = [100.0]
    cache = BoardCache(interval_s=1.0, clock=lambda: now[0])
    assert cache.peek("public", (1,)) is None  # nothing made yet
    old = cache.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    old.derived("json", lambda: "old json")
    assert cache.peek("public", (1,)) == (old, False)
    assert cache.peek("public", (2,)) == (old, False)  # within the interval: what rows gives
    now[0] += 5.0
    assert cache.peek("public", (2,)) == (old, True)  # rows would make a newer one
    first = cache.claim(("public", "json"))
    assert first is not None and cache.claim(("public", "json")) is None
    assert cache.claim(("public", "table")) is not None  # each thing its own claim
    cache.release(first)
    second = cache.claim(("public", "json"))
    assert second is not None
    now[0] += CLAIM_S
    third = cache.claim(("public", "json"))  # never released: lapsed
    assert third is not None
    cache.release(second)  # late: the newer claim holds
    assert cache.claim(("public", "json")) is None
    now[0] += BEHIND_S
    assert cache.peek("public", (2,)) is None  # from too long ago: the thread makes the new one
    now[0] -= BEHIND_S
    new = cache.rows("public", (2,), lambda: Ranked([{"as_of": 2}]))
    assert cache.peek("public", (2,)) == (new, False)
    assert new.ready("json") == ("old json", True) and old.ready("json") == ("old json", False)
    assert new.ready("table") is None
    new.derived("json", lambda: "new json")
    assert new.ready("json") == ("new json", False)

    exact = BoardCache(clock=lambda: now[0])
    board = exact.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    assert exact.peek("public", (1,)) == (board, False) and exact.peek("public", (2,)) is None


TEAM_IDS = ("t1", "t2", "t3")


@st.composite
def audiences(draw: st.DrawFn) -> Any:
    from judge.serve.model.records import Audience, Scope

    scope = draw(st.sampled_from(list(Scope)))
    return Audience(
        scope,
        draw(st.sampled_from((None, *TEAM_IDS))),
        draw(st.booleans()),
        tuple(draw(st.sets(st.sampled_from(TEAM_IDS)))),
        draw(st.booleans()),
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(audiences(), max_size=30), st.integers(0, 3), st.integers(1, 40))
def test_a_stretch_gives_each_viewer_what_asking_each_event_gives(auds: list[Any], skip: int, limit: int) -> None:
    """The feeds of those who are not staff read a stretch of the log grouped once for all of them
    (services/events.Stretch): each gets exactly the events visibility.sees_audience lets it see, in order,
    numbered on from its own token; the cursor and "more" are what reading event by event gives."""
    from judge.serve.model.records import EventRecord
    from judge.serve.model.viewer import PUBLIC, Role, Viewer
    from judge.serve.services.events import Cursor, lines_after, lines_in, stretch_of
    from judge.serve.visibility import Sight

    events = [EventRecord(i + 1, "runs", str(i), "{}", a, 0.0) for i, a in enumerate(auds)]

    class Source:
        def events(self, after: int, n: int) -> list[EventRecord]:
            return [e for e in events if e.id > after][:n]

    viewers = [PUBLIC, *(Viewer(Role.TEAM, f"a{t}", f"u{t}", t) for t in TEAM_IDS)]
    after = min(skip, len(events))
    stretch = stretch_of(Source().events(after, limit), after, limit)
    for viewer in viewers:
        sight = Sight(viewer, None, 0.0)  # type: ignore[arg-type]  # the audience decides, not the phase
        cursor = Cursor(after, 7)
        assert lines_in(stretch, cursor, viewer.team_id) == lines_after(Source(), cursor, sight, limit)
        # and the rule as it reads for those not staff (issue 27's, before it was grouped: visibility.reach)
        expected = [e.id for e in Source().events(after, limit) if _rule(viewer.team_id, e.audience)]
        assert [e.id for e in stretch.seen_by(viewer.team_id)] == expected


def _rule(team_id: str | None, a: Any) -> bool:
    from judge.serve.model.records import Scope

    own = team_id is not None and team_id == a.team_id
    if a.scope is Scope.PUBLIC:
        return not a.frozen or own
    if a.scope is Scope.OWNER:
        return own
    if a.scope is Scope.TEAMS:
        return team_id is not None and team_id in a.team_ids
    if a.scope is Scope.OTHERS:
        return team_id is None or team_id not in a.team_ids
    return False
