"""Wiring a site of contests (issue 44), at the edge of `judge serve`: the site database and its people, one
``Server`` per contest over its own database, the one judging pool, and the contests' registry.

- ``SITE/site.sqlite`` holds the people (the site's files with the admins' changes over them), the pages'
  sessions, the site's audit log and the registry (``site_contests``: hidden, archived, an admin's judging
  priority). Each contest keeps ``SITE/contests/<cid>/contest.sqlite``: its submissions, judgements, event
  log, clarifications... (docs/design.md says why).
- Each contest's ``Server`` gets the site's people (``SitePeople``: the logins, the sessions, the roster;
  its own roster is the site's taken part by its ``teams:``) and the site's pool (a ``Lane`` each).
- The registry (``Site.contests``) is a tuple replaced as a whole on each change: read without a lock.
- Who sees which contest is visibility.py's (``sees_contest``), asked by ``Site.seen_by`` and
  ``Site.resolve``: a contest hidden from the viewer is exactly as unknown (the same 404).

A contest folder (contest.yaml) is a site of one (``Site.single``): its one database is both the contest's
and the site's, and `judge serve` serves it exactly as before sites (today's URLs: http/app.create_app).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from judge.languages.table import Language
from judge.package.problem import Problem
from judge.serve.model.contest import Contest, ContestError
from judge.serve.model.errors import Refused
from judge.serve.model.lti import LTI_FILE, LtiConfigError, load_config
from judge.serve.model.records import SiteContestRecord
from judge.serve.model.site import CONTESTS_DIR, SiteSpec, assignments_of, check_problems, load_site_contest
from judge.serve.model.times import Clock, SystemClock
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.coursework import stored_state
from judge.serve.services.judging.judge_fn import JudgeFn
from judge.serve.services.judging.pool import JudgingPool, Lane
from judge.serve.services.judging.versions import NO_TOOLS, VersionTools
from judge.serve.services.lifecycle.contest_upload import read_upload, write_upload
from judge.serve.services.lifecycle.registry import (
    GENERATION,
    ContestChange,
    NewContest,
    change_contest,
    register_contest,
    remove_contest_folder,
    write_new_contest,
)
from judge.serve.services.lti.client import UrlHttp
from judge.serve.services.lti.grades import GradeSync, SyncReport, sync_grades
from judge.serve.services.lti.nrps import members_csv
from judge.serve.services.lti.tool import LtiTool, open_tool
from judge.serve.services.people import access
from judge.serve.services.people.accounts import password_hasher
from judge.serve.services.people.live_roster import stored_roster
from judge.serve.services.people.site_people import SitePeople
from judge.serve.site.claims import claim_people
from judge.serve.site.server import ServeOptions, Server, open_people, open_server, open_site_contest
from judge.serve.storage import SITE_SCHEMA, Storage, StorageError
from judge.serve.visibility import sees_contest

SITE_DB = "site.sqlite"


@dataclass(frozen=True)
class SiteContest:
    """A contest of the site: its server and what the site's admins set of it (the registry's record)."""

    server: Server
    record: SiteContestRecord

    @property
    def id(self) -> str:
        return self.server.package.info.id

    @property
    def hidden(self) -> bool:
        return self.record.hidden

    @property
    def archived(self) -> bool:
        return self.record.archived

    @property
    def priority(self) -> int:
        """Its judging priority: the admin's, else contest.yaml's ``judging_priority``."""
        chosen = self.record.judging_priority
        return self.server.package.info.judging_priority if chosen is None else chosen

    def lane(self, now: float) -> Lane:
        server = self.server
        running = server.timeline.phase.running(now)
        return Lane(self.id, server.judging, self.priority, running, tuple(server.idle_queues()))


class Site:
    """The running site: its people, its contests (in the site's order), its judging pool."""

    def __init__(
        self,
        spec: SiteSpec,
        storage: Storage,
        people: SitePeople,
        clock: Clock,
        log: Callable[[str], None],
        contests: tuple[SiteContest, ...] = (),
    ) -> None:
        self.spec = spec
        self.storage = storage
        self.people = people
        self.clock = clock
        self.log = log
        self._contests = contests
        self._lock = threading.Lock()  # one registry change at a time (readers take the tuple as it is)
        self.pool: JudgingPool | None = None  # a site's (None: the single contest's own, in its Server)
        self._opening: Callable[[Contest], Server] | None = None  # how a contest added live is opened
        self._started = False
        self._packages: dict[Path, Problem] = {}  # the problem packages loaded (a contest added shares them)
        self._tools: VersionTools = NO_TOOLS  # how a problem new to the judge reaches it (judging/versions.py)
        self._judged: set[str] = set()  # the ids of the problems the judge knows (its contests')
        self.lti: LtiTool | None = None  # LTI 1.3 (issue 48): the site's lti.yaml, its keys (None: no LMS)
        self._grade_sync: GradeSync | None = None
        # several processes on the site's database (issue 51, --shared; ``reload``): the registry's generation
        # read last, the entries of contests registered but not served when this process started (a folder
        # taken away), the contests added elsewhere that this process could not open (said once in the log)
        self._generation: str | None = None
        self._passed: dict[str, SiteContestRecord] = {}
        self._said: set[str] = set()
        self._stopped = False

    @property
    def single(self) -> bool:
        return self.spec.single

    @property
    def name(self) -> str:
        return self.spec.name

    def contests(self) -> tuple[SiteContest, ...]:
        return self._contests

    def contest(self, contest_id: str) -> SiteContest | None:
        return next((c for c in self._contests if c.id == contest_id), None)

    def seen_by(self, viewer: Viewer) -> list[SiteContest]:
        """The contests ``viewer`` may see (visibility.sees_contest), in the site's order."""
        return [c for c in self._contests if sees_contest(viewer, c.hidden)]

    def resolve(self, contest_id: str | None, viewer: Viewer) -> Server:
        """The server of ``contest_id`` for ``viewer`` (the site's account); a contest hidden from them is a
        404 exactly as an unknown id."""
        found = None if contest_id is None else self.contest(contest_id)
        if found is None or not sees_contest(viewer, found.hidden):
            raise Refused(404, f"no contest {contest_id!r}")
        return found.server

    def lanes(self) -> list[Lane]:
        """The judging pool's lanes, one per contest (pool.py's fair order)."""
        now = self.clock.now()
        return [c.lane(now) for c in self._contests]

    def change(self, viewer: Viewer, contest_id: str, what: ContestChange) -> SiteContestRecord:
        """An admin hides, shows, archives, restores a contest or sets its judging priority: stored in the
        site database and audited there (services/lifecycle/registry.py), in force at once."""
        with self._lock:
            found = self.contest(contest_id)
            if found is None:
                raise Refused(404, f"no contest {contest_id!r}")
            record = change_contest(self.storage, viewer, found.record, what, self.clock.now())
            self._contests = tuple(replace(c, record=record) if c.id == contest_id else c for c in self._contests)
            found.server.standing.archived = record.archived
        if self.pool is not None:
            self.pool.wake()  # a priority changed: the next claim sees it
        return record

    def problem_ids(self) -> list[str]:
        """The site's problem packages (SITE/problems/<id>/), by id: what a contest made here may use."""
        folder = self.spec.root / "problems"
        return sorted(p.name for p in folder.iterdir() if (p / "problem.yaml").is_file()) if folder.is_dir() else []

    def _may_add(self, viewer: Viewer) -> None:
        access.admin(viewer, "add contests")
        if self.single or self._opening is None:
            raise Refused(409, "a contest folder served alone is one contest: make a site to add contests")

    def _taken(self, contest_id: str) -> None:
        if self.contest(contest_id) is not None:
            raise Refused(409, f"{contest_id!r}: the site has a contest of that id already")

    def add_new(self, viewer: Viewer, new: NewContest) -> SiteContest:
        """An admin makes a contest from the site's problems and teams, live: its folder written, loaded as at
        the start, its database opened, its server started, registered (audited) and judged by the pool.
        Nothing is left behind when it fails (a 400 with one line)."""
        self._may_add(viewer)
        with self._lock:
            self._taken(new.id)
            folder = write_new_contest(self.spec.root / CONTESTS_DIR, self.problem_ids(), new)
            added = self._add_folder(viewer, folder, {"from": "form"})
        if self.pool is not None:
            self.pool.wake()
        return added

    def add_upload(self, viewer: Viewer, data: bytes, contest_id: str | None = None) -> SiteContest:
        """An admin adds a contest from an uploaded zip (services/lifecycle/contest_upload.py: a contest package,
        or an archive `judge contest export` wrote; ``contest_id``: under another id), live as ``add_new``.
        Nothing is left behind when it fails (a 400, 409 or 413 with one line)."""
        self._may_add(viewer)
        upload = read_upload(data, contest_id)
        with self._lock:
            self._taken(upload.contest_id)
            folder = write_upload(self.spec.root / CONTESTS_DIR, upload)
            how = {"from": "export" if upload.from_export else "package", "bytes": len(data)}
            added = self._add_folder(viewer, folder, how)
        if self.pool is not None:
            self.pool.wake()
        return added

    def _add_folder(self, viewer: Viewer, folder: Path, how: Mapping[str, object]) -> SiteContest:
        """The contest of ``folder`` (just written) loaded, opened, registered and started; the folder removed
        when any of it fails. The caller holds the lock."""
        try:
            server, packages, new = self._open_folder(folder)
        except ContestError as exc:
            remove_contest_folder(folder)
            raise Refused(400, str(exc).replace(f"{self.spec.root}/", "")) from None  # the site's paths: its own
        except BaseException:
            remove_contest_folder(folder)
            raise
        try:
            record = register_contest(self.storage, viewer, server.package.info.id, self.clock.now(), how)
        except BaseException:
            server.close()
            remove_contest_folder(folder)
            raise
        return self._in_force(server, record, packages, new)

    def _open_folder(self, folder: Path) -> tuple[Server, dict[Path, Problem], list[Problem]]:
        """The contest of ``folder`` loaded (its problems checked against the site's), its database opened and
        its course's rules in force (issue 45); with the problem packages then loaded, and those new to the
        judge. Raises ContestError, Refused, StorageError. The caller holds the lock."""
        assert self._opening is not None
        packages = dict(self._packages)  # kept only when the contest is added (a folder removed leaves nothing)
        contest = load_site_contest(self.spec.root, folder, self.people.package, packages)
        check_problems([*(c.server.package for c in self._contests), contest])
        new = [p.problem for p in contest.problems if p.id not in self._judged]
        if new and self._tools is NO_TOOLS:
            names = ", ".join(p.id for p in new)
            raise Refused(
                409,
                f"problem(s) {names}: this server judges on a cluster with the packages it started with; put the "
                "contest in contests/ and restart it (and its workers) to add new problems",
            )
        assignment = assignments_of((contest,), self.people.package, self.spec.root)
        server = self._opening(contest)
        try:
            with_course(server, replace(self.spec, assignments=assignment))
        except BaseException:
            server.close()
            raise
        return server, packages, new

    def _in_force(
        self, server: Server, record: SiteContestRecord, packages: dict[Path, Problem], new: list[Problem]
    ) -> SiteContest:
        """A contest opened (``_open_folder``) and registered: judged, started, in the site's order and in its
        course's list of contests. The caller holds the lock."""
        for problem in new:  # the judge knows them from now on (a site's problem id is one package: checked)
            self._tools.register(problem)
            self._judged.add(problem.id)
        self._packages = packages
        _lms_hooks(self, server)
        added = SiteContest(server, record)
        server.standing.archived = record.archived
        if self._started:
            server.start()
        self._contests = tuple(sorted((*self._contests, added), key=lambda c: self.spec.place(c.id)))
        _course_of(self)  # the course's gradebook has every contest of the site, this one too
        return added

    def reload(self) -> bool:
        """Another process on the site's database (issue 51, ``--shared``: called when it commits) changed the
        registry: a contest it added is opened here from its folder (SITE/contests/<id>/: on shared storage when
        the processes run on several machines; a folder this machine cannot read is said once in the log), one
        it hid, archived or re-prioritized is so here. One ``meta`` read when the registry did not change.
        Whether it did."""
        if self.single or self._opening is None:
            return False
        with self._lock:
            if self._stopped:
                return False
            with self.storage.read() as r:
                generation = r.get_meta(GENERATION)
                if generation == self._generation:
                    return False
                records = r.site_contests()
            self._generation = generation
            for record in records:
                found = self.contest(record.id)
                if found is not None:
                    if found.record != record:
                        self._contests = tuple(replace(c, record=record) if c is found else c for c in self._contests)
                        found.server.standing.archived = record.archived
                elif self._passed.get(record.id) != record:  # not one registered before and not served here
                    self._open_live(record)
        if self.pool is not None:
            self.pool.wake()
        return True

    def _open_live(self, record: SiteContestRecord) -> None:
        """A contest another process added: opened, started and judged here too (its registry entry is
        ``record``); when it cannot be, one line in the log (once per contest), and tried again at the
        registry's next change. The caller holds the lock."""
        cid = record.id
        folder = self.spec.root / CONTESTS_DIR / cid
        if not folder.is_dir():
            self._cannot(
                cid,
                f"contest {cid!r} was added by another process, but its folder {folder} is not on this machine: "
                f"not served here (keep {self.spec.root / CONTESTS_DIR} on storage shared by every machine of the "
                "site: docs/deploy.md; it is opened at the site's next change once it is there, or at a restart)",
            )
            return
        try:
            server, packages, new = self._open_folder(folder)
        except (ContestError, Refused, StorageError) as exc:
            message = exc.message if isinstance(exc, Refused) else str(exc)
            self._cannot(cid, f"contest {cid!r} was added by another process, but cannot be opened here: {message}")
            return
        self._in_force(server, record, packages, new)
        self.log(f"contest {cid!r} added by another process: served here too")

    def _cannot(self, contest_id: str, line: str) -> None:
        if contest_id not in self._said:
            self._said.add(contest_id)
            self.log(line)

    def sync_grades(self, sleep: Callable[[float], None] = time.sleep) -> SyncReport:
        """LTI's AGS (issue 48): the published assignments' scores that changed, sent to the LMS."""
        if self.lti is None:
            return SyncReport()
        contests = {c.id: c.server for c in self._contests}
        return sync_grades(self.lti, self.storage, contests, self.clock.now(), sleep)

    def wake_grade_sync(self) -> None:
        """The grades changed (published, an override): the sync thread compares them now (not at its next turn)."""
        if self._grade_sync is not None:
            self._grade_sync.wake()

    def start(self) -> None:
        self._started = True
        if self.pool is not None:
            self.pool.start()
        for c in self._contests:
            c.server.start()
        if self.lti is not None:
            self._grade_sync = GradeSync(self.sync_grades, self.lti.config.sync_s, self.log)
            self._grade_sync.start()

    def begin_stop(self) -> None:
        """Every contest's ``Server.begin_stop`` (its open feeds end). Non-blocking: on the event loop."""
        for c in self._contests:
            c.server.begin_stop()

    def stop(self) -> None:
        with self._lock:  # a contest another process adds from now on is not opened here (``reload``)
            self._stopped = True
        if self._grade_sync is not None:
            self._grade_sync.stop()
        for c in self._contests:
            c.server.stop()
        if self.pool is not None:
            self.pool.stop()

    def close(self) -> None:
        for c in self._contests:
            c.server.close()
        if not self.single:
            self.storage.close()


def with_course(server: Server, spec: SiteSpec) -> Server:
    """``server`` with its assignment's rules in force, when its contest is a course's (issue 45), and where
    the course is (the site's folder; its contests: this one, until ``_course_of`` says the site's). A contest
    folder served alone (`judge serve CONTEST_DIR`, ``open_server``) goes through here too. Raises
    ContestError."""
    served = spec.assignments.get(server.package.info.id)
    if served is not None:
        with server.storage.read() as r:
            server.course.set(stored_state(served, r))
    server.course.root = spec.root
    server.course.contests = lambda: [server]
    return server


def _course_of(site: Site) -> None:
    """Every contest's course part knows the course's contests: the site's (issue 45)."""
    for c in site.contests():
        c.server.course.contests = lambda: [x.server for x in site.contests()]


def _lms_hooks(site: Site, server: Server) -> None:
    """A contest of a course in an LMS (issue 48): its roster page reads the LMS's roster (NRPS), and publishing
    the grades or setting overrides wakes the grade sync (AGS)."""
    tool = site.lti
    if tool is None:
        return
    root, storage = site.spec.root, site.storage
    server.course.lms_roster = lambda now: members_csv(tool, storage, root, now)
    server.course.grades_changed = site.wake_grade_sync


def _lti_of(spec: SiteSpec, storage: Storage, options: ServeOptions) -> LtiTool | None:
    """The site's LTI tool when it has an lti.yaml (its key made on the first start). Raises ContestError."""
    try:
        config = load_config(spec.root)
        if config is None:
            return None
        return open_tool(spec.root, config, storage, options.lti_http or UrlHttp(), options.log)
    except LtiConfigError as exc:
        raise ContestError(str(exc)) from None
    except OSError as exc:
        raise ContestError(f"{spec.root}: the LTI tool's key: {exc}") from None


def _records(storage: Storage, ids: list[str]) -> dict[str, SiteContestRecord]:
    with storage.read() as r:
        stored = {rec.id: rec for rec in r.site_contests()}
    return {cid: stored.get(cid, SiteContestRecord(cid)) for cid in ids}


def open_site(
    spec: SiteSpec, languages: Mapping[str, Language], judge_fn: JudgeFn, options: ServeOptions | None = None
) -> Site:
    """Open a site: a contest folder (``spec.single``: ``open_server``, as before sites), or SITE/site.sqlite
    with the people, then each contest's own database (opened, created or upgraded), one judging pool.
    Raises ContestError, StorageError."""
    options = options if options is not None else ServeOptions()
    clock = options.clock or SystemClock()
    if spec.single:
        if (spec.root / LTI_FILE).is_file():
            raise ContestError(f"{spec.root / LTI_FILE}: LTI 1.3 serves a course folder (a site: `judge course init`)")
        server = with_course(open_server(spec.contests[0], languages, judge_fn, options), spec)
        records = _records(server.storage, [server.package.info.id])
        one = SiteContest(server, records[server.package.info.id])
        single = Site(spec, server.storage, server.people, clock, options.log, (one,))
        _course_of(single)
        return single
    if not spec.contests:
        raise ContestError(
            f"{spec.root}: a site without contests: add one in contests/<id>/ (contest.yaml, problems.yaml)"
        )
    storage = options.engine.open(spec.root / SITE_DB, SITE_SCHEMA)
    opened: list[Server] = []
    try:
        if options.read_only:
            with storage.read() as r:
                roster = stored_roster(spec.people, r)
        else:
            with storage.write() as w:
                if w.get_meta("contest_id") is not None:
                    raise ContestError(f"{storage.where} is a contest's database, not a site's: move it away")
                w.set_meta("site", spec.name)
                roster = claim_people(w, spec.people, options.hasher or password_hasher())
        people = open_people(storage, spec.people, roster, options)
        site = Site(spec, storage, people, clock, options.log)
        pool = JudgingPool(
            lanes=site.lanes,
            workers=options.workers,
            capacity=options.capacity,
            log=options.log,
            cluster=options.cluster_workers,
            now=clock.now,
        )
        site.pool = pool
        site._opening = lambda contest: open_site_contest(contest, languages, judge_fn, options, people, pool)
        site._packages = {p.problem.path: p.problem for c in spec.contests for p in c.problems}
        site._tools = options.tools
        site._judged = {p.id for c in spec.contests for p in c.problems}
        for contest in spec.contests:
            opened.append(with_course(site._opening(contest), spec))
        records = _records(storage, [s.package.info.id for s in opened])
        site._contests = tuple(SiteContest(s, records[s.package.info.id]) for s in opened)
        with storage.read() as r:
            site._generation = r.get_meta(GENERATION)
            site._passed = {rec.id: rec for rec in r.site_contests() if rec.id not in records}
        for c in site._contests:
            c.server.standing.archived = c.archived
        people.contests = lambda: [c.server for c in site.contests()]
        _course_of(site)
        site.lti = _lti_of(spec, storage, options)
        for c in site.contests():
            _lms_hooks(site, c.server)
        # another process on the site's database (issue 51, --shared) added, hid, archived a contest: so here too
        storage.on_change(site.reload)
        return site
    except BaseException:
        for s in opened:
            s.close()
        storage.close()
        raise
