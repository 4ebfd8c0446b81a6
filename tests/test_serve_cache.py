"""Issue 32's caches say what a fresh computation says: the board (the API's JSON and the page's table, made
once per ranked board and kept per role and freeze state) after every kind of change, and the event feed
read from the log's copy in memory by a client that reconnects with ``since_token`` at any point."""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from serve_channels import Browser, LoopApi, api_board, log_in, page_board
from serve_fixtures import FIXTURES, HOUR, SUM_AC, SUM_WA, T0, FakeClock, make_server, write_contest

from judge.serve.model.times import format_time
from judge.serve.services.core.events import EventLog

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


class LaggingWorld(RuleBasedStateMachine):
    """The same contest with `--board-interval 1`, in time, and asked in any order: a viewer's board (the
    API's, the page's; from a thread or on the event loop, whichever answers) is always one the fresh
    computation gave that viewer under the same key (audience, freeze, thaw), in a state that was still the
    newest an interval ago: it misses no change older than the interval (the bound), and is never one made
    for another audience (issue 43: the first board after the thaw was the staff's of minutes before)."""

    @initialize(start_minutes=st.sampled_from([235, 295, -1]))
    def open(self, start_minutes: int) -> None:
        from judge.serve.model.viewer import PUBLIC, Role, Viewer

        self.tmp = tempfile.TemporaryDirectory()
        self.runner = asyncio.Runner()
        self.clock = FakeClock(T0 + start_minutes * 60)
        contest = write_contest(Path(self.tmp.name) / "contest")
        self.server = make_server(contest, self.clock, board_interval_s=1.0)
        self.api = LoopApi(self.server, self.runner)
        self.pages = {v: log_in(self.api, v) for v in VIEWERS}
        self.admin = log_in(self.api, "admin")
        self.made: list[int] = []
        self.viewers = {None: PUBLIC, "team1": Viewer(Role.TEAM, "team1", "team1", "team1")}
        self.viewers["judge"] = Viewer(Role.JUDGE, "judge", "judge")
        self.states: list[tuple[float, dict[str | None, tuple[Any, Any]]]] = []  # (when, viewer -> (key, doc))

    def teardown(self) -> None:
        if hasattr(self, "server"):
            self.server.close()
            self.runner.close()
            self.tmp.cleanup()

    @rule(seconds=st.sampled_from([0.5, 1.5, 4.0]))
    def wait_a_little(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @rule(minutes=st.sampled_from([15, 60]))
    def wait_long(self, minutes: int) -> None:
        self.clock.advance(minutes * 60)

    @rule(team=st.sampled_from(TEAMS), accepted=st.booleans())
    def submit(self, team: str, accepted: bool) -> None:
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
        r = self.api.request("POST", f"{C}/submissions/{sid}/rejudge", "admin")
        assert r.status_code in (202, 409)  # 409: finalized

    @rule()
    def freeze_now(self) -> None:
        self.admin.post("/admin/freeze")

    @rule()
    def thaw(self) -> None:
        at = format_time(max(self.clock.now(), END))
        self.api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": at})

    @rule()
    def finalize(self) -> None:
        self.api.request("POST", f"{C}/finalize", "admin")

    @rule()
    def unfinalize(self) -> None:
        self.api.request("POST", f"{C}/unfinalize", "admin")

    @rule(viewer=st.sampled_from(VIEWERS))
    def awards(self, viewer: str | None) -> None:
        """A board made for the viewer without its JSON or its table (the awards read the ranking only)."""
        self.api.get(f"{C}/awards", viewer)

    def allowed(self, viewer: str | None) -> list[Any]:
        """The boards ``viewer`` may get now: under its key now, in a state still the newest an interval ago."""
        now = self.clock.now()
        key = self.states[-1][1][viewer][0]
        out = []
        for i, (_, boards) in enumerate(self.states):
            later = self.states[i + 1][0] if i + 1 < len(self.states) else None
            if boards[viewer][0] == key and (later is None or later > now - 1.0):
                out.append(boards[viewer][1])
        return out

    @rule(viewer=st.sampled_from(VIEWERS))
    def look_at_the_page(self, viewer: str | None) -> None:
        got = page_board(self.pages[viewer].get("/scoreboard?fragment=1").text)
        assert got in [api_board(doc) for doc in self.allowed(viewer)], (viewer, got)

    @rule(viewer=st.sampled_from(VIEWERS))
    def look_at_the_api(self, viewer: str | None) -> None:
        r = self.api.get(f"{C}/scoreboard", viewer)
        assert r.status_code == 200, r.text
        assert r.json()["rows"] in [doc["rows"] for doc in self.allowed(viewer)], (viewer, r.json()["rows"])

    @invariant()
    def record_the_fresh_boards(self) -> None:
        """What a fresh computation gives each viewer now (the looks check their answers against these)."""
        if not hasattr(self, "server"):
            return
        from judge.serve.services.board import board
        from judge.serve.visibility import Sight

        self.server.timeline.tick()  # what a request would do first (the thaw when due)
        boards = {}
        for name, viewer in self.viewers.items():
            sight = Sight(viewer, self.server.timeline.phase, self.clock.now())
            boards[name] = (board._asked(self.server, sight, None).key, fresh_board(self.server, viewer))
        self.states.append((self.clock.now(), boards))


TestTheLaggingBoard = LaggingWorld.TestCase
TestTheLaggingBoard.settings = settings(
    max_examples=30, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck)
)


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
    from judge.serve.services.board.boardcache import BoardCache, Ranked

    cache = BoardCache()
    results, made = _concurrent_callers(lambda make: cache.rows("key", (1,), lambda: Ranked([make()])))
    assert made == 1
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_a_table_asked_for_by_many_at_once_is_rendered_once() -> None:
    from judge.serve.services.board.boardcache import Ranked

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

    from judge.serve.services.core.events import EventBus

    bus = EventBus()

    async def wait_for_change() -> int:
        seen = bus.generation
        threading.Timer(0.05, bus.notify).start()
        await asyncio.wait_for(bus.changed(seen, timeout_s=3600), 60)
        return bus.generation - seen

    assert asyncio.run(wait_for_change()) == 1

    async def wait_for_wake() -> int:
        seen = bus.generation
        waiting = asyncio.ensure_future(bus.changed(seen, timeout_s=3600))
        await asyncio.sleep(0)  # waiting before the wake (a wake releases the waiters there are, no later one)
        threading.Timer(0.05, bus.wake).start()
        await asyncio.wait_for(waiting, 60)
        return bus.generation - seen

    assert asyncio.run(wait_for_wake()) == 0  # woken, nothing published


def test_with_a_wake_interval_changes_in_a_burst_release_the_waiting_feeds_once() -> None:
    """`judge serve --feed-interval`: the first change after a quiet interval releases the waiting streams at
    once; the next ones within the interval are held for its end (one release for all of them), and a stream
    that read before them is not released early by them. (The interval is an hour: "held" is certain.)"""
    from judge.serve.services.core.events import EventBus

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
    from judge.serve.services.core.events import WAKE_BATCH, EventBus

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
    from judge.serve.services.board.boardcache import BoardCache, Ranked

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
    from judge.serve.services.people.session_cache import SessionCache

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
    until it is done, as long as the last is within the bound (it became behind less than an interval
    before the new one was begun); without an interval they wait for the new one (exact)."""
    import threading

    from judge.serve.services.board.boardcache import BoardCache, Ranked

    now = [100.0]
    changed_at = {(1,): 104.5}  # the first change after each board's changes: when it was made
    cache = BoardCache(interval_s=1.0, clock=lambda: now[0], since=changed_at.get)
    old = cache.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    assert cache.item(old, "json", lambda: "old json") == "old json"
    now[0] += 5.0  # a change half a second ago: a new board may be made now
    started, release = threading.Event(), threading.Event()

    def slow() -> Ranked:
        started.set()
        assert release.wait(60)
        return Ranked([{"as_of": 2}])

    maker = threading.Thread(target=lambda: cache.rows("public", (2,), slow))
    maker.start()
    assert started.wait(60)
    assert cache.rows("public", (3,), lambda: Ranked([{"as_of": 3}])) is old  # not made twice, not waited for
    now[0] += 3.0  # being made still: the last one (it became behind before the new one was begun)
    assert cache.rows("public", (3,), lambda: Ranked([{"as_of": 3}])) is old
    release.set()
    maker.join(60)
    new = cache.rows("public", (2,), lambda: Ranked([{"as_of": "again"}]))
    assert new.rows == [{"as_of": 2}] and new._entry[0].previous is not None
    assert new._entry[0].previous.board is old
    # while the new board's JSON is being made, the others get the last board's (another run, where the JSON
    # is asked for right after the board was made: the last board is still within the bound)
    now[0] = 105.2
    making, done = threading.Event(), threading.Event()

    def slow_json() -> str:
        making.set()
        assert done.wait(60)
        return "new json"

    drawer = threading.Thread(target=lambda: cache.item(new, "json", slow_json))
    drawer.start()
    assert making.wait(60)
    assert cache.item(new, "json", lambda: "made twice") == "old json"
    assert cache.ready(new, "json") == ("old json", False)  # being made: no claim needed
    done.set()
    drawer.join(60)
    assert cache.item(new, "json", lambda: "made twice") == "new json"


def test_a_board_is_never_served_past_the_bound() -> None:
    """The board a viewer gets misses no change made more than an interval ago (the bound of
    `--board-interval`), however long ago it was made and whatever was made of it: the board made before
    a change that came long after it, a board being made for longer than CLAIM_S, and the JSON of the board a
    new one replaced (issue 43: the first board after the thaw was the staff's of eleven minutes before)."""
    import threading

    from judge.serve.services.board.boardcache import CLAIM_S, BoardCache, Ranked

    now = [100.0]
    changed_at: dict[tuple[int, ...], float] = {}
    cache = BoardCache(interval_s=1.0, clock=lambda: now[0], since=changed_at.get)
    first = cache.rows("k", (1,), lambda: Ranked([{"as_of": 1}]))
    cache.item(first, "json", lambda: "json 1")
    now[0] = 700.0
    changed_at[(1,)] = 699.9  # a change a tenth of a second ago: the board from 600 s before is within it
    assert cache.peek("k", (2,)) == (first, True)  # and a new one may be made: claim it
    changed_at.clear()  # not known when it changed: counted from when the board was made (600 s)
    fresh = BoardCache(interval_s=1.0, clock=lambda: now[0], since=changed_at.get)
    fresh.rows("k", (1,), lambda: Ranked([{"as_of": 1}]))
    now[0] += 5.0
    assert fresh.peek("k", (2,)) is None  # the thread makes the new one
    assert fresh.rows("k", (2,), lambda: Ranked([{"as_of": 2}])).rows == [{"as_of": 2}]
    # a board whose JSON is not made yet: the JSON of the one it replaced, only within the bound
    now[0] = 1000.0
    changed_at[(1,)] = 900.0
    second = cache.rows("k", (2,), lambda: Ranked([{"as_of": 2}]))
    assert second._entry[0].previous is not None and second._entry[0].previous.board is first
    assert cache.ready(second, "json") is None  # the board before became behind 100 s ago: not served
    entered, release = threading.Event(), threading.Event()

    def slow() -> str:
        entered.set()
        assert release.wait(60)
        return "json 2"

    drawer = threading.Thread(target=lambda: cache.item(second, "json", slow))
    drawer.start()
    assert entered.wait(60)
    waited: list[str] = []
    waiter = threading.Thread(target=lambda: waited.append(cache.item(second, "json", lambda: "made twice")))
    waiter.start()
    threading.Event().wait(0.2)
    assert waited == []  # it waits for the new JSON rather than get the old
    release.set()
    drawer.join(60)
    waiter.join(60)
    assert waited == ["json 2"]
    # a claim counts as making for CLAIM_S at most
    now[0] = 2000.0
    changed_at[(2,)] = 1999.5
    assert cache.peek("k", (3,)) == (second, True)
    claim = cache.claim(("k", "json"))
    assert claim is not None
    now[0] += 2.0  # behind 2.5 s, but being made since it was 0.5 s behind
    assert cache.peek("k", (3,)) == (second, False)
    now[0] += CLAIM_S  # the claim's thread never came: lapsed
    assert cache.peek("k", (3,)) is None


def test_a_peek_gives_the_board_behind_and_one_claim_at_a_time() -> None:
    """For the event loop: ``peek`` never makes a board. With an interval it gives the last board when a
    newer would be made and it is within the bound, and says whether to claim the next (not while one is
    being made); ``claim`` lets one caller at a time have a thread make the next, and a claim never released
    lapses (its late release ends no newer claim). ``ready`` gives what was made of a board, or of the
    board it replaced (behind, within the bound). Without an interval, a peek gives only the exact board."""
    from judge.serve.services.board.boardcache import CLAIM_S, BoardCache, Ranked

    now = [100.0]
    changed_at = {(1,): 104.8}
    cache = BoardCache(interval_s=1.0, clock=lambda: now[0], since=changed_at.get)
    assert cache.peek("public", (1,)) is None  # nothing made yet
    old = cache.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    cache.item(old, "json", lambda: "old json")
    assert cache.peek("public", (1,)) == (old, False)
    assert cache.peek("public", (2,)) == (old, False)  # made less than an interval ago: what rows gives
    now[0] += 5.0
    assert cache.peek("public", (2,)) == (old, True)  # rows would make a newer one
    first = cache.claim(("public", "json"))
    assert first is not None and cache.claim(("public", "json")) is None
    assert cache.peek("public", (2,)) == (old, False)  # claimed: being made
    table = cache.claim(("public", "table"))
    assert table is not None  # each thing its own claim
    cache.release(table)
    cache.release(first)
    second = cache.claim(("public", "json"))
    assert second is not None
    now[0] += CLAIM_S
    third = cache.claim(("public", "json"))  # never released: lapsed
    assert third is not None
    cache.release(second)  # late: the newer claim holds
    assert cache.claim(("public", "json")) is None
    assert cache.peek("public", (2,)) is None  # claimed, but behind for longer than the bound allows
    now[0] = 105.0
    new = cache.rows("public", (2,), lambda: Ranked([{"as_of": 2}]))
    assert cache.peek("public", (2,)) == (new, False)
    assert cache.ready(new, "json") == ("old json", True) and cache.ready(old, "json") == ("old json", False)
    assert cache.ready(new, "table") is None
    cache.item(new, "json", lambda: "new json")
    assert cache.ready(new, "json") == ("new json", False)
    assert cache.peek("other", (2,)) is None  # another key never gets this one's

    exact = BoardCache(clock=lambda: now[0])
    board = exact.rows("public", (1,), lambda: Ranked([{"as_of": 1}]))
    assert exact.peek("public", (1,)) == (board, False) and exact.peek("public", (2,)) is None


INTERVAL_S = 1.0


class CacheInTime(RuleBasedStateMachine):
    """BoardCache as the server drives it, in time: changes land, the clock moves, requests ask from a
    thread (``rows``, ``item``) or the event loop (``peek``, ``ready``, and a ``claim`` whose thread comes
    later, maybe after the clock moved). Every board and every JSON given out is checked against the bound
    of `--board-interval`: it misses no change made more than an interval ago, except while its successor
    is being made (a claim held, for at most CLAIM_S), when it misses none made an interval before that
    began; and it is the asked key's (an audience's), never another's. And a key's new boards are at least
    an interval apart."""

    @initialize()
    def open(self) -> None:
        from judge.serve.services.board.boardcache import BoardCache

        self.now = 1000.0
        self.history: list[tuple[float, tuple[int, int]]] = [(0.0, (0, 0))]  # (when, the changes then)
        self.cache = BoardCache(interval_s=INTERVAL_S, clock=lambda: self.now, since=self.since)
        self.claims: list[Any] = []  # claimed on the loop, their thread not run yet
        self.made: dict[str, list[float]] = {}

    @property
    def changes(self) -> tuple[int, int]:
        return self.history[-1][1]

    def since(self, changes: tuple[int, ...]) -> float | None:
        """EventLog.first_after's answer: when the first change after ``changes`` was made."""
        return next((t for t, c in self.history if not all(a <= b for a, b in zip(c, changes, strict=True))), None)

    def compute(self, key: str) -> Any:
        from judge.serve.services.board.boardcache import Ranked

        self.made.setdefault(key, []).append(self.now)
        return Ranked([{"key": key, "version": len(self.history) - 1}])

    def check(self, key: str, content: dict[str, Any]) -> None:
        assert content["key"] == key  # never another audience's
        version = content["version"]
        if version + 1 == len(self.history):
            return  # the newest
        missed = self.history[version + 1][0]  # the first change it misses
        if self.now - missed < INTERVAL_S:
            return
        from judge.serve.services.board.boardcache import CLAIM_S

        making = [c.since_s for c in self.claims if c.what[0] == key and self.now - c.since_s < CLAIM_S]
        assert making and min(making) - missed < INTERVAL_S, (key, content, self.now, missed, making)

    @rule(seconds=st.sampled_from([0.1, 0.4, 0.6, 0.9, 1.0, 1.5, 4.0, 11.0, 600.0]))
    def advance(self, seconds: float) -> None:
        self.now += seconds

    @rule(kind=st.sampled_from([0, 1]))
    def change(self, kind: int) -> None:
        changes = list(self.changes)
        changes[kind] += 1
        self.history.append((self.now, (changes[0], changes[1])))

    @rule(key=st.sampled_from(["public", "staff"]))
    def ask_in_a_thread(self, key: str) -> None:
        board = self.cache.rows(key, self.changes, lambda: self.compute(key))
        self.check(key, board.rows[0])
        self.check(key, json.loads(self.cache.item(board, "json", lambda: json.dumps(board.rows[0]))))

    @rule(key=st.sampled_from(["public", "staff"]))
    def rank_only(self, key: str) -> None:
        """A board asked for without its JSON (the awards read the ranking only)."""
        self.check(key, self.cache.rows(key, self.changes, lambda: self.compute(key)).rows[0])

    @rule(key=st.sampled_from(["public", "staff"]))
    def ask_on_the_loop(self, key: str) -> None:
        found = self.cache.peek(key, self.changes)
        if found is None:
            return self.ask_in_a_thread(key)  # the handler's thread answers it
        board, due = found
        self.check(key, board.rows[0])
        ready = self.cache.ready(board, "json")
        if ready is None:
            return self.ask_in_a_thread(key)
        self.check(key, json.loads(ready[0]))
        if due or ready[1]:
            claim = self.cache.claim((key, "json"))
            if claim is not None:
                self.claims.append(claim)
        return None

    @precondition(lambda self: bool(self.claims))
    @rule(pick=st.integers(0, 5), go=st.booleans())
    def claimed_thread_runs(self, pick: int, go: bool) -> None:
        """The thread a loop request claimed runs now (or its request went away: never)."""
        claim = self.claims.pop(pick % len(self.claims))
        if go:
            self.ask_in_a_thread(claim.what[0])
        self.cache.release(claim)

    @invariant()
    def new_boards_are_an_interval_apart(self) -> None:
        for times in getattr(self, "made", {}).values():
            assert all(b - a >= INTERVAL_S for a, b in zip(times, times[1:], strict=False)), times


TestCacheInTime = CacheInTime.TestCase
TestCacheInTime.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)


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
    (services/core/events.Stretch): each gets exactly the events visibility.sees_audience lets it see, in order,
    numbered on from its own token; the cursor and "more" are what reading event by event gives."""
    from judge.serve.model.records import EventRecord
    from judge.serve.model.viewer import PUBLIC, Role, Viewer
    from judge.serve.services.core.events import Cursor, lines_after, lines_in, stretch_of
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


# ------------------------------------------------------------------ the board after the end (issue 43)

SOLVED_ROW = re.compile(
    r'data-team="([^"]+)">\s*<td class="rank">(\d+)</td>.*?<td class="num score solved">(\d+)</td>', re.S
)


def fresh_board(server: Any, viewer: Any) -> dict[str, Any]:
    """The scoreboard ``viewer`` should get now, computed apart from the server's cache (which stays as it is)."""
    from judge.serve.services.board import board
    from judge.serve.visibility import Sight

    sight = Sight(viewer, server.timeline.phase, server.clock.now())
    asked = board._asked(server, sight, None)
    with server.storage.read() as r:
        ranked = board.ranked_rows(r, asked.contest, asked.whole, asked.frozen_from, asked.show_problems)
    return board.scoreboard_json(asked.contest, ranked.rows, sight.phase.state_json(sight.now), sight.now)


def solved(doc: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(r["team_id"], r["rank"], r["score"]["num_solved"]) for r in doc["rows"]]


def test_the_first_board_after_the_finalize_and_the_thaw_is_not_an_old_one(tmp_path: Path) -> None:
    """Issue 43: right after the finalize and the thaw, the public's first scoreboard (the API's and the
    page's, answered on the event loop) was the staff's live board of eleven minutes before, the freeze's
    solves missing. With `--board-interval 1`, asked a little more than an interval after each change, every
    board is the current one for its viewer: through the freeze, the finalize, the thaw, and a rejudge."""
    from test_serve_passfail import MarkedJudge, source

    from judge.judging.verdict import Verdict
    from judge.serve.model.contest import load_contest
    from judge.serve.model.viewer import PUBLIC, Role, Viewer

    root = write_contest(tmp_path / "c", scoreboard_type="pass-fail", extra=("medals: {gold: 1, silver: 1}",))
    judge = MarkedJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems})
    clock = FakeClock(T0 + 230 * 60)
    server = make_server(root, clock, judge, board_interval_s=1.0)
    runner = asyncio.Runner()
    try:
        api = LoopApi(server, runner)
        staff_page, public_page = log_in(api, "judge"), log_in(api, None)
        staff = Viewer(Role.JUDGE, "judge", "judge")

        def look(minutes_later: float = 0.0, viewers: tuple[str | None, ...] = (None,)) -> None:
            """Boards a little more than the interval after the last change: each the current one."""
            clock.advance(2 + minutes_later * 60)
            for user in viewers:
                want = solved(fresh_board(server, staff if user else PUBLIC))
                assert solved(api.get(f"{C}/scoreboard", user).json()) == want, user
            page = public_page.get("/scoreboard").text
            assert [(t, int(r), int(n)) for t, r, n in SOLVED_ROW.findall(page)] == solved(fresh_board(server, PUBLIC))

        assert api.submit("team1", files=source("AC")).status_code == 201
        server.judging.run_pending()
        look(viewers=(None, "judge"))
        clock.t = T0 + 250 * 60  # the freeze (4:00) is on: team2 and team3 solve in it
        for team in ("team2", "team3"):
            assert api.submit(team, files=source("AC")).status_code == 201
        look(viewers=(None, "judge"))  # the staff's JSON and page, the last before the freeze's solves
        staff_page.get("/scoreboard")
        server.judging.run_pending()
        look(minutes_later=11)
        look(minutes_later=60)  # the end (5:00) has passed
        assert api.request("POST", f"{C}/finalize", "admin").status_code == 200
        api.get(f"{C}/awards", "admin")  # a board made without its JSON nor its page (the awards'), for staff
        look()
        thawed = api.request("PATCH", C, "admin", json={"id": "test", "scoreboard_thaw_time": format_time(clock.now())})
        assert thawed.status_code in (200, 403)  # 403: the finalize thawed it already (before issue 43)
        api.get(f"{C}/awards", "admin")
        look()
        assert [n for _, _, n in solved(api.get(f"{C}/scoreboard").json())] == [1, 1, 1]
        assert api.request("POST", f"{C}/unfinalize", "admin").status_code == 200
        judge.override[2] = Verdict.WA
        assert api.request("POST", f"{C}/submissions/2/rejudge", "admin").status_code == 202
        server.judging.run_pending()
        api.get(f"{C}/awards", "admin")
        look(viewers=(None, "judge"))
        assert sorted(n for _, _, n in solved(api.get(f"{C}/scoreboard").json())) == [0, 1, 1]
    finally:
        server.close()
        runner.close()


def test_a_board_answered_on_the_event_loop_is_never_older_than_the_interval(tmp_path: Path) -> None:
    """`--board-interval 1`: a public poll answered on the event loop four seconds after a submission gets a
    board with it (before issue 43 it got the board from before it: one made less than the interval plus ten
    seconds ago was answered however old the change it missed); within the interval, the last board."""
    clock = FakeClock(T0 + HOUR)
    server = make_server(write_contest(tmp_path / "c"), clock, board_interval_s=1.0)
    runner = asyncio.Runner()
    try:
        api = LoopApi(server, runner)

        def pending() -> int:
            return sum(c["num_pending"] for r in api.get(f"{C}/scoreboard").json()["rows"] for c in r["problems"])

        assert pending() == 0
        clock.advance(0.5)
        assert api.submit("team1").status_code == 201
        assert pending() == 0  # within the interval of the last board: that board
        clock.advance(4)
        assert pending() == 1
    finally:
        server.close()
        runner.close()
