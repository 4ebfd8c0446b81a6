"""Two `judge serve --shared` servers on one PostgreSQL database, in this process (issue 51; the real processes:
test_serve_shared.py): each its own storage, judging queue, event log and bus, as two processes have, on one
fake clock. A server that "dies" keeps the jobs it claimed without judging them: the other judges them once
their leases ran out, into the same judgements, and a job is stored once; both feeds are the same. A
Hypothesis state machine drives submissions, claims, completions, renewals, deaths and time through both."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from serve_fixtures import (
    CHEAP_HASHER,
    FIXTURES,
    HOUR,
    SUM_AC,
    SUM_WA,
    T0,
    Api,
    FakeClock,
    ScriptedJudge,
    feed,
    write_contest,
)
from test_serve_process import wait_for

from judge.languages.table import load_languages
from judge.serve.model.contest import load_contest
from judge.serve.site.server import ServeOptions, Server, open_server
from judge.serve.storage import Engine

LEASE_S = 30.0


def _open(root: Path, dsn: str, clock: FakeClock, prefix: str = "") -> Server:
    """A server of the contest ``root`` on the database's schemas named with ``prefix`` (an example's own)."""
    contest = load_contest(root, FIXTURES)
    languages = {k: v for k, v in load_languages().items() if k == "python3"}
    judge = ScriptedJudge({p.id: p.problem for p in contest.problems})
    engine = Engine(dsn, schema_prefix=prefix, shared=True)
    options = ServeOptions(hasher=CHEAP_HASHER, clock=clock, engine=engine, lease_s=LEASE_S)
    return open_server(contest, languages, judge, options)


def _verdicts(server: Server) -> dict[int, list[str | None]]:
    """Per submission, its judgements' verdicts (done or not), oldest first."""
    with server.storage.read() as r:
        out: dict[int, list[str | None]] = {s.id: [] for s in r.submissions()}
        for j in r.judgements():
            out[j.submission_id].append(j.verdict)
    return out


def test_a_dead_servers_claims_are_judged_by_the_other_after_the_lease(tmp_path: Path, dsn: str) -> None:
    clock = FakeClock(T0 + HOUR)
    root = write_contest(tmp_path / "contest")
    one, two = _open(root, dsn, clock), _open(root, dsn, clock)
    try:
        api1, api2 = Api.of(one), Api.of(two)
        assert api1.submit("team1", files={"sum.py": SUM_AC}).status_code == 201
        assert api2.submit("team2", files={"sum.py": SUM_WA}).status_code == 201
        claimed = one.judging.claim(5)
        assert len(claimed) == 2
        assert two.judging.claim(5) == [] and two.judging.head() is None  # one's leases hold
        clock.advance(LEASE_S - 1)
        assert one.judging.renew_leases() == 2  # one is alive: it renews
        clock.advance(LEASE_S - 1)
        assert two.judging.claim(5) == []
        # one dies (its claims are never completed); after its lease, two takes them, into the same judgements
        clock.advance(LEASE_S + 1)
        again = two.judging.claim(5)
        assert [(c.job_id, c.judgement_id) for c in again] == [(c.job_id, c.judgement_id) for c in claimed]
        assert all(two.judging.complete(c, two.judging.judge(c)) for c in again)
        assert not one.judging.complete(claimed[0], one.judging.judge(claimed[0]))  # a late zombie: not stored
        assert _verdicts(one) == _verdicts(two) == {1: ["AC"], 2: ["WA"]}
        wait_for("the same feed on both", lambda: feed(api1, "admin") == feed(api2, "admin"))
        for user in ("team1", "team2", None):
            wait_for(f"the same feed for {user}", lambda user=user: feed(api1, user) == feed(api2, user))  # type: ignore[misc]
    finally:
        one.close()
        two.close()


class TwoServers(RuleBasedStateMachine):
    """Submissions on either server, claims and completions by either, renewals, a server's death (its claims
    are lost with it: a new server takes its place), and time: at the end, once everything left is judged,
    every submission has one judgement, with a verdict, and both servers read the same feed."""

    dsn = ""
    root = Path()
    prefix = ""

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(T0 + HOUR)
        self.servers = [self._open(), self._open()]
        self.claimed: list[list[Any]] = [[], []]
        self.submitted = 0
        self.expiry: dict[int, float] = {}  # each claimed job's lease, as this test expects it
        self.owner: dict[int, int] = {}  # which server's lease it is

    def _open(self) -> Server:
        return _open(self.root, self.dsn, self.clock, self.prefix)

    @rule(i=st.integers(0, 1), team=st.sampled_from(["team1", "team2", "team3"]), right=st.booleans())
    def submit(self, i: int, team: str, right: bool) -> None:
        r = Api.of(self.servers[i]).submit(team, files={"sum.py": SUM_AC if right else SUM_WA})
        if r.status_code == 429:  # the contest's submission rate limit: nothing stored
            return
        assert r.status_code == 201, r.text
        self.submitted += 1
        self.clock.advance(1)

    @rule(i=st.integers(0, 1), n=st.integers(1, 3))
    def claim(self, i: int, n: int) -> None:
        mine = {c.job_id for c in self.claimed[i]}
        got = self.servers[i].judging.claim(n, mine)
        held = {c.job_id for c in self.claimed[1 - i]}
        for c in got:  # a job the other holds is given only once its lease ran out (the other did not renew)
            assert c.job_id not in held or self.clock.t > self.expiry[c.job_id], c
            self.expiry[c.job_id] = self.clock.t + LEASE_S
            self.owner[c.job_id] = i
        self.claimed[i] += got

    @rule(i=st.integers(0, 1))
    def complete(self, i: int) -> None:
        if self.claimed[i]:
            c = self.claimed[i].pop(0)
            self.servers[i].judging.complete(c, self.servers[i].judging.judge(c))

    @rule(i=st.integers(0, 1))
    def die(self, i: int) -> None:
        """Server i dies with its claims; a new one takes its place (a new process: a new lease owner)."""
        self.servers[i].close()
        self.servers[i] = self._open()
        self.claimed[i] = []
        self.owner = {job: who for job, who in self.owner.items() if who != i}  # the dead one's leases renew no more

    @rule(seconds=st.sampled_from([1.0, 11.0, LEASE_S + 1]))
    def wait(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @rule(i=st.integers(0, 1))
    def renew(self, i: int) -> None:
        if self.servers[i].judging.renew_leases():  # (none when renewed less than a third of a lease ago)
            for c in self.claimed[i]:
                if self.owner.get(c.job_id) == i:  # still its lease (not taken by the other since)
                    self.expiry[c.job_id] = self.clock.t + LEASE_S

    def drain(self) -> None:
        """Time passes, the servers judge everything left (the living ones' claims first)."""
        for i in (0, 1):
            while self.claimed[i]:
                self.complete(i)
        self.clock.advance(LEASE_S + 1)
        for server in self.servers:
            server.judging.run_pending()

    def teardown(self) -> None:
        if hasattr(self, "servers"):
            try:
                self.drain()
                one, two = self.servers
                verdicts = _verdicts(one)
                assert verdicts == _verdicts(two)
                assert len(verdicts) == self.submitted
                for sub_id, judged in verdicts.items():
                    assert len(judged) == 1 and judged[0] in ("AC", "WA"), (sub_id, judged)
                api1, api2 = Api.of(one), Api.of(two)
                wait_for("the same feed", lambda: feed(api1, "admin") == feed(api2, "admin"))
            finally:
                for server in self.servers:
                    server.close()


def test_two_servers_state_machine(tmp_path: Path, dsn: str) -> None:
    examples = iter(range(10_000))

    class Machine(TwoServers):
        def __init__(self) -> None:
            super().__init__()
            k = next(examples)
            self.root = write_contest(tmp_path / f"c{k}")
            self.dsn = dsn
            self.prefix = f"e{k}_"

    run_state_machine_as_test(
        Machine,
        settings=settings(
            max_examples=4, stateful_step_count=10, deadline=None, suppress_health_check=list(HealthCheck)
        ),
    )


def test_a_package_version_applied_on_one_server_is_in_force_on_the_other(tmp_path: Path, dsn: str) -> None:
    """A new version of a package (a counterexample added as a test, its preview applied: issue 33) made on one
    server: the other (on the same machine: the version's folder is on its disk) judges the rejudge against it."""
    from test_serve_previews import C, VersionedJudge, counterexample_of, start, submit_three

    from judge.serve.services.judging.versions import VersionTools

    clock = FakeClock(T0 + HOUR)
    root = write_contest(tmp_path / "contest", scoreboard_type="pass-fail")
    opened: list[tuple[Server, VersionedJudge]] = []
    try:
        for _ in range(2):
            contest = load_contest(root, FIXTURES)
            judge = VersionedJudge({p.id: p.problem for p in contest.problems})
            tools = VersionTools(register=judge.register, make_answer=judge.answer)
            engine = Engine(dsn, shared=True)
            options = ServeOptions(hasher=CHEAP_HASHER, clock=clock, tools=tools, engine=engine, lease_s=LEASE_S)
            languages = {k: v for k, v in load_languages().items() if k == "python3"}
            opened.append((open_server(contest, languages, judge, options), judge))
        (one, _), (two, judge_two) = opened
        ids = submit_three(one)
        pid = start(Api.of(one), counterexample_of(one, ids["team2"]))
        assert one.previews is not None
        one.previews.run_pending()
        applied = Api.of(one).request("POST", f"{C}/previews/{pid}/apply", "admin")
        assert applied.status_code == 202, applied.text
        assert one.versions.version("sum") == 2
        wait_for("the other server to take version 2", lambda: two.versions.version("sum") == 2)
        assert two.judging.run_pending() == 1  # the rejudge, by the other server
        here, there = two.versions.problem(two.package, "sum"), one.versions.problem(one.package, "sum")
        assert here is not None and there is not None
        assert judge_two.calls[-1].package_hash == here.problem.content_hash == there.problem.content_hash
    finally:
        for server, _ in opened:
            server.close()
