"""Wiring, at the edge of `judge serve`: open the contest's storage, bring it in line with the package
(accounts, and the events for whatever changed in the configuration since the last start: site/claims.py),
and compose the parts the services receive (each domain's ``context.py`` Protocol; ``Server`` has them all;
the optional idle queues: site/idle_parts.py; sharing the database with other processes: site/shared.py).
No service imports this module. No globals: `judge serve` and the tests each build a ``Server`` and pass it
to ``create_app``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from argon2 import PasswordHasher

from judge.cluster.workers import ClusterWorker
from judge.languages.table import Language
from judge.runner.printer import send_to_printer
from judge.serve.model.contest import Contest, ContestError, People
from judge.serve.model.roster import Roster, taking_part
from judge.serve.model.times import Clock, SystemClock
from judge.serve.model.viewer import Viewer
from judge.serve.services.board.board import first_change
from judge.serve.services.board.boardcache import BoardCache
from judge.serve.services.core.coursework import Coursework
from judge.serve.services.core.events import EventBus, EventLog
from judge.serve.services.core.outage import Outage
from judge.serve.services.core.standing import Standing
from judge.serve.services.core.timeline import Timeline
from judge.serve.services.desk.print_queue import Printer, PrintQueue
from judge.serve.services.desk.printing import send_next
from judge.serve.services.judging.course_feedback import publish_switched
from judge.serve.services.judging.idle import IdleQueue, LedIdle
from judge.serve.services.judging.judge_fn import JudgeFn
from judge.serve.services.judging.pool import JudgingPool
from judge.serve.services.judging.preview_queue import PreviewQueue
from judge.serve.services.judging.queue import JobQueue, JudgingSetup
from judge.serve.services.judging.similarity_queue import QueueSetup as SimilaritySetup
from judge.serve.services.judging.similarity_queue import SimilarityQueue
from judge.serve.services.judging.versions import NO_TOOLS, CurrentPackages, VersionTools, restore
from judge.serve.services.lti.client import LtiHttp
from judge.serve.services.people.accounts import (
    ARGON2_AT_ONCE,
    Authenticator,
    LoginLimits,
    password_hasher,
    rehashed,
)
from judge.serve.services.people.live_roster import LiveRoster, stored_roster
from judge.serve.services.people.login_failures import StoredFailures
from judge.serve.services.people.reveal import Reveals
from judge.serve.services.people.session_cache import SessionCache
from judge.serve.services.people.site_people import SitePeople
from judge.serve.services.problems.statements import Statements, Typeset, cache_dir
from judge.serve.site.claims import claim_contest, claim_people, on_phase_change, on_statement, publish_configuration
from judge.serve.site.idle_parts import explain_queue, explaining, fuzz_queue
from judge.serve.site.shared import heard, lease_terms
from judge.serve.storage import DB_NAME, SQLITE, Engine, Storage, contest_schema
from judge.serve.visibility import Sight, contest_viewer

if TYPE_CHECKING:  # live fuzzing and counterexamples load the fuzzer (Hypothesis) only when they are on
    from judge.serve.services.judging.explain_jobs import ExplainQueue
    from judge.serve.services.judging.explain_plan import LiveExplain
    from judge.serve.services.judging.fuzz_jobs import FuzzQueue, LiveFuzz, OnCounterexample


@dataclass(frozen=True)
class Server:
    """The running contest: what the handlers call into, and the background parts' lifecycle."""

    package: Contest  # as loaded from disk; ``contest`` is it with the admins' changes of the schedule
    languages: Mapping[str, Language]
    storage: Storage
    clock: Clock
    timeline: Timeline
    bus: EventBus
    people: SitePeople  # the site's people: their storage, logins, sessions (a single contest's own: issue 44)
    judging: JobQueue
    pool: JudgingPool  # a site's one pool, shared by its contests (``owns_pool`` False then)
    log: Callable[[str], None]
    roster: LiveRoster = field(default_factory=LiveRoster)  # the contest's teams and accounts in force (live_roster.py)
    printer: Printer = send_to_printer  # how a print-out reaches contest.yaml's print_command (desk/printing.py)
    print_queue: PrintQueue = field(default_factory=PrintQueue)  # sends the queued print-outs (desk/print_queue.py)
    boards: BoardCache = field(default_factory=BoardCache)
    reveals: Reveals = field(default_factory=Reveals)  # passwords a page shows once (people/reveal.py)
    stopping: threading.Event = field(default_factory=threading.Event)
    versions: CurrentPackages = field(default_factory=CurrentPackages)  # each problem's package in force (issue 33)
    tools: VersionTools = NO_TOOLS  # how new package versions reach the judge (judging/versions.py)
    previews: PreviewQueue | None = None  # the rejudge previews the pool runs when idle (judging/preview_queue.py)
    _threads: list[threading.Thread] = field(default_factory=list)  # the clock, while started
    _contest: list[tuple[tuple[object, ...], Contest]] = field(default_factory=list)  # the last ``contest`` made
    fuzz: FuzzQueue | None = None  # live fuzzing's queue (issue 33; None: off)
    # the problems' PDF statements and attachments; missing PDFs typeset in a thread (issue 43)
    statements: Statements = field(default_factory=lambda: Statements(None))
    similarity: SimilarityQueue | None = None  # similar submissions' reports (issue 49; None: read-only)
    owns_pool: bool = True  # starts and stops ``pool`` (a site's contests share the site's: issue 44)
    standing: Standing = field(default_factory=Standing)  # archived by a site's admin: read-only (issue 44)
    explain: ExplainQueue | None = None  # counterexamples for rejected submissions (issue 46; None: none searched)
    course: Coursework = field(default_factory=Coursework)  # a course's assignment (issue 45; None: not one)

    @property
    def auth(self) -> Authenticator:
        """The logins (the site's: one login for every contest)."""
        return self.people.auth

    @property
    def session_cache(self) -> SessionCache:
        """The pages' sessions found (the site's)."""
        return self.people.session_cache

    def idle_queues(self) -> list[IdleQueue]:
        """The idle work of this contest, in its order: rejudge previews, counterexamples for rejected
        submissions (a team waits for them), similar submissions, live fuzzing."""
        queues: list[IdleQueue] = [] if self.previews is None else [self.previews]
        queues += [q for q in (self.explain, self.similarity, self.fuzz) if q is not None]
        return [LedIdle(q, self.storage.leads) for q in queues]  # one process at a time (issue 51: --shared)

    def viewer_in(self, viewer: Viewer) -> Viewer:
        """``viewer`` (the site's account) as this contest sees them (visibility.contest_viewer): a team that
        does not take part is the public here."""
        return contest_viewer(viewer, viewer.team_id is not None and self.contest.team(viewer.team_id) is not None)

    @property
    def contest(self) -> Contest:
        """The contest as it is now: the package with the times, teams and accounts an admin changed. Made
        once per change of those (a page of 500 board rows asks for it per row: issue 32), not per call."""
        roster = self.roster.current
        if roster is None:
            return self.package
        info, generation = self.timeline.phase.info, self.versions.generation
        memo = self._contest[-1] if self._contest else None
        if memo is not None and memo[0][0] is roster and memo[0][1] is info and memo[0][2] == generation:
            return memo[1]
        contest = self.contest_with(roster)
        self._contest[:] = [
            ((roster, info, generation), contest)
        ]  # one list item, replaced at once: safe across threads
        return contest

    def contest_with(self, roster: Roster) -> Contest:
        """The contest as it is with ``roster``'s teams and accounts."""
        info = self.timeline.phase.info
        contest = replace(self.package, info=info, teams=roster.teams, accounts=roster.accounts)
        contest = replace(contest, groups=roster.groups, organizations=roster.organizations)
        return self.versions.of(contest)

    def sight(self, viewer: Viewer, now: float) -> Sight:
        """What ``viewer`` may see now (visibility.py)."""
        return Sight(viewer, self.timeline.phase, now, self.course.view(self.contest))

    def start(self) -> None:
        """The background parts: the judging pool (unless the site's), the print queue, the clock that publishes
        phase changes, the typesetting."""
        if self.owns_pool:
            self.pool.start()
        self.print_queue.start(lambda: send_next(self), self.stopping, self.log)
        self.statements.start()
        if self.similarity is not None:
            self.similarity.start(self.stopping)  # a thread of its own only when the pool lends no idle slots
        ticker = threading.Thread(target=self._tick_loop, name="contest-clock", daemon=True)
        self._threads.append(ticker)
        ticker.start()

    def tick(self) -> None:
        """The clock's tick: the phases (timeline.py), and what a course's switch time passing shows a student
        (issue 45: services/judging/course_feedback.py); the leases of the jobs this process judges, when it
        shares the database with others (issue 51: JobQueue.renew_leases)."""
        self.judging.renew_leases()
        self.timeline.tick()
        publish_switched(self, self.clock.now())

    def _tick_loop(self) -> None:
        # an outage of the database is logged once, and its end once (services/core/outage.py)
        outage = Outage("contest clock", self.log, self.clock.now, probe=self._reach_storage)
        while not self.stopping.wait(1.0):
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - keep serving; say why
                outage.failed(exc)
            else:
                outage.ok()

    def _reach_storage(self) -> None:
        """A read transaction: raises StorageUnavailable while the database cannot be reached."""
        with self.storage.read():
            pass

    def begin_stop(self) -> None:
        """The server begins to stop (`judge serve` on SIGTERM or Ctrl-C, as uvicorn takes no more connections,
        before it waits for the open ones): the open event feeds send what was published and end, as
        responses do (uvicorn would wait its graceful timeout for them, then cut them); the background parts
        finish what they do. Non-blocking: on the event loop."""
        self.stopping.set()
        self.bus.wake()  # waiting feeds see it and end

    def stop(self) -> None:
        self.begin_stop()
        for ticker in self._threads:
            ticker.join()
        self.statements.stop()
        self.print_queue.stop()
        if self.similarity is not None:
            self.similarity.join()
        if self.owns_pool:
            self.pool.stop()

    def changed_packages(self) -> list[str]:
        """Problems whose package changed since some of their submissions were judged (a rejudge may be due)."""
        out = []
        with self.storage.read() as r:
            for p in self.contest.problems:
                if self.versions.version(p.id) > 1:
                    continue  # a version made while serving: its applied preview judged every judgement (issue 33)
                stale = r.stale_judgements(p.id, p.problem.content_hash)
                if stale:
                    out.append(f"{p.id} ({stale} judgement(s) made with another version)")
        return out

    def close(self) -> None:
        """Close the contest's database (a single contest's is also its people's)."""
        self.storage.close()


@dataclass(frozen=True)
class ServeOptions:
    workers: int = 1  # threads that judge
    capacity: Callable[[], int] | None = None  # how many of them may judge now (a cluster's slots)
    hasher: PasswordHasher | None = None  # argon2 parameters (default: accounts.password_hasher; tests: cheap ones)
    verify_at_once: int = ARGON2_AT_ONCE  # argon2 verifications at once (`judge serve`: its cores)
    clock: Clock | None = None
    log: Callable[[str], None] = lambda line: None
    login_limits: LoginLimits = LoginLimits()  # --account-lockout, --address-lockout
    read_only: bool = False  # `judge contest export`: read the database as it is (no sync, nothing published)
    cluster_workers: Callable[[], list[ClusterWorker]] | None = None  # a cluster's judge workers (judges page)
    tools: VersionTools = NO_TOOLS  # new package versions (issue 33): versions.local_tools when judging here
    board_interval_s: float = 0.0  # at most one new board per this long (`judge serve --board-interval`; board.py)
    feed_interval_s: float = 0.0  # open feeds woken at most once per this long (`judge serve --feed-interval`)
    fuzz: LiveFuzz | None = None  # live fuzzing (`judge serve --fuzz`, issue 33): None, off
    on_counterexample: OnCounterexample | None = None  # told of each counterexample stored (the pages' notice)
    typeset: Typeset | None = None  # a PDF statement from a package without one (problem2pdf; statements.py)
    # counterexamples for rejected submissions (issue 46): how to search, for the contests whose policy is not
    # off (contest.yaml's ``counterexamples``); None: nothing is searched (a cluster, an export)
    explain: LiveExplain | None = None
    # why this server runs no search whatever the policy (`judge serve --cluster`: explain_plan.ON_A_CLUSTER): the
    # open ones are cancelled at the start with it (explain_plan.withdraw); None: searched as the policy says
    unsearched: str | None = None
    # LTI 1.3 (issue 48): how the tool reaches the LMS (None: the standard library's, with timeouts; tests: the
    # emulated platform)
    lti_http: LtiHttp | None = None
    engine: Engine = SQLITE  # where the databases are (`judge serve --database`: PostgreSQL; issue 51)
    # with ``engine.shared`` (several processes on one database): how long a claimed job is this process's
    # without a renewal (`judge serve --lease`); a killed process's jobs are judged by another after it
    lease_s: float = 30.0


def open_people(storage: Storage, package: People, roster: Roster, options: ServeOptions) -> SitePeople:
    """The people's part over ``storage`` (claimed: ``claim_people``): the logins, the roster in force."""
    clock = options.clock or SystemClock()
    hasher = options.hasher or password_hasher()

    def store_rehash(account_id: str, old: str, new: str) -> None:
        if not options.read_only:
            with storage.write() as w:
                rehashed(w, account_id, old, new)

    with storage.read() as r:
        accounts = r.accounts()
    limits = options.login_limits
    # every process's failed logins count (issue 51: one database, several processes with --shared)
    failures = (
        None if options.read_only else StoredFailures(storage, max(limits.account.window_s, limits.address.window_s))
    )
    auth = Authenticator(
        accounts, hasher, clock, limits, roster.disabled, options.verify_at_once, store_rehash, failures
    )
    # several processes on one database (issue 51): no sessions kept in memory, a logout anywhere ends one here
    people = SitePeople(storage, package, auth, session_cache=SessionCache(enabled=not options.engine.shared))
    people.roster.set(roster)
    # another process on the database (issue 51, --shared) changed the people: read them again
    storage.on_change(people.reload)
    return people


def open_server(
    contest: Contest, languages: Mapping[str, Language], judge_fn: JudgeFn, options: ServeOptions = ServeOptions()
) -> Server:
    """Open (or create, or upgrade) CONTEST_DIR/contest.sqlite for ``contest``, a contest folder served alone:
    a site of one whose database is both the contest's and its people's. Raises ContestError,
    StorageError."""
    hasher = options.hasher or password_hasher()
    storage = options.engine.open(contest.root / DB_NAME, contest_schema(contest.info.id))
    if options.read_only:
        with storage.read() as r:
            owner = r.get_meta("contest_id")
            roster = stored_roster(contest.people, r)
        if owner != contest.info.id:
            raise ContestError(f"{storage.where} holds contest {owner!r}, but contest.yaml says {contest.info.id!r}")
    else:
        with storage.write() as w:
            claim_contest(w, contest, storage)
            roster = claim_people(w, contest.people, hasher)
    people = open_people(storage, contest.people, roster, options)
    server = open_contest(contest, languages, judge_fn, options, people, storage)
    people.contests = lambda: (server,)
    return server


def open_site_contest(
    contest: Contest,
    languages: Mapping[str, Language],
    judge_fn: JudgeFn,
    options: ServeOptions,
    people: SitePeople,
    pool: JudgingPool,
) -> Server:
    """A contest of a site (issue 44): its own database CONTEST_DIR/contest.sqlite (opened, created or
    upgraded, and claimed), the site's people, the site's judging pool."""
    storage = options.engine.open(contest.root / DB_NAME, contest_schema(contest.info.id))
    try:
        if not options.read_only:
            with storage.write() as w:
                claim_contest(w, contest, storage)
        return open_contest(contest, languages, judge_fn, options, people, storage, pool)
    except BaseException:
        storage.close()
        raise


def open_contest(
    contest: Contest,
    languages: Mapping[str, Language],
    judge_fn: JudgeFn,
    options: ServeOptions,
    people: SitePeople,
    storage: Storage,
    pool: JudgingPool | None = None,
) -> Server:
    """Compose a contest's parts over its claimed ``storage``: the timeline, event bus, judging queue (and its
    own pool, unless the site's ``pool`` is given), the idle queues, the caches; publish what changed in its
    configuration since the last start."""
    clock = options.clock or SystemClock()
    for lang, _ in contest.info.time_factors:
        if lang not in languages:
            options.log(f"contest.yaml languages: {lang!r} is not a language of this server: its time_factor is unused")
    versions = CurrentPackages()
    with storage.read() as r:
        for line in restore(r, contest, versions, options.tools):
            options.log(line)
    bus = EventBus(EventLog(storage), wake_interval_s=options.feed_interval_s)
    timeline = Timeline(contest.info, storage, clock, bus)
    live = None if options.read_only else options.fuzz
    fuzzable = frozenset[str]()
    if live is not None:
        from judge.serve.services.judging.fuzz_jobs import fuzzable_problems

        fuzzable = fuzzable_problems(contest, options.log)
    after, explainable = explaining(contest, options, lambda: server.contest, storage, clock.now())
    setup = JudgingSetup(
        contest,
        languages,
        judge_fn,
        options.log,
        fuzzable=fuzzable,
        current=versions.problem,
        accounts=lambda: server.contest.accounts,
        after=after,
        course=lambda: server.course.view(server.contest),  # a course's feedback rules (issue 45)
        # several processes on one database (issue 51): claims are leases in it, this process's own token
        leases=lease_terms(options, clock),
    )
    queue = JobQueue(storage, timeline, bus, setup)
    previews = PreviewQueue(storage, queue, versions, options.tools, options.log)
    fuzz = None if live is None else fuzz_queue(live, storage, queue, options, lambda: server.contest)
    explain = None
    if explainable and options.explain is not None:
        explain = explain_queue(options.explain, storage, queue, options, lambda: server.contest)
    similarity = None
    if not options.read_only:  # similar submissions (issue 49): idle work too, or its own thread on a cluster
        similarity_setup = SimilaritySetup(
            storage, lambda: server.contest, lambda: timeline.phase, clock.now, options.log
        )
        # on a cluster its own thread, which (as the pool's idle queues) only the lead process runs (issue 51)
        similarity = SimilarityQueue(similarity_setup, own_thread=options.capacity is not None, leads=storage.leads)
    idle: list[IdleQueue] = [previews]
    idle += [q for q in (explain, similarity, fuzz) if q is not None]
    owns_pool = pool is None
    if pool is None:
        pool = JudgingPool(
            queue,
            workers=options.workers,
            capacity=options.capacity,
            log=options.log,
            cluster=options.cluster_workers,
            # rejudge previews, counterexamples, similar submissions, live fuzzing (judging/idle.py); with several
            # processes on the database (issue 51, --shared), by one at a time
            idle=[LedIdle(q, storage.leads) for q in idle],
        )
    boards = BoardCache(interval_s=options.board_interval_s, clock=clock.now, since=first_change(bus))
    typeset = None if options.read_only else options.typeset
    statements = Statements(cache_dir(contest.root), typeset, options.log)
    server = Server(
        contest, languages, storage, clock, timeline, bus, people, queue, pool, options.log, versions=versions,
        tools=options.tools, previews=previews, boards=boards, fuzz=fuzz, statements=statements,
        similarity=similarity, owns_pool=owns_pool, explain=explain,
    )  # fmt: skip
    server.roster.set(taking_part(people.current(), contest.info))
    statements.on_ready = on_statement(server)
    statements.prepare(p.problem for p in server.contest.problems)  # queued: typeset once the server starts
    timeline.on_change(on_phase_change(server))
    if not options.read_only:
        with storage.write() as w:
            publish_configuration(w, server, clock.now())
        timeline.tick()
    bus.notify()  # the event log's copy in memory reads what is there
    storage.on_change(heard(server, options.tools))
    return server
