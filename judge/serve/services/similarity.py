"""Similar submissions in `judge serve` (issue 49, docs/similarity.md): per problem, the report of
judge.similarity over the teams' submissions, for the jury only (visibility.sees_similarity).

A report is asked for by a judge (the "Compute" button) or, after the contest's end, automatically for every
problem whose report is missing or older than its newest submission. It is computed as idle work of the
judging pool (services/idle.py: only when no submission waits, never on the event loop); a server that judges
on a Dask cluster lends no idle slots, so there a thread of its own computes it. The report is stored as
judge.similarity's JSON. "Mark reviewed" keeps who looked at a pair, with a note, in the same transaction as
the audit log's line of it. Nothing of it is published on the event feed.

Compared: the submissions of each team made during the contest and not ignored (an admin's tests before or
after it, and ignored submissions, count nowhere); a team's own submissions are never compared with each
other, and of two teams only their most similar pair of submissions is listed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.serve.model.errors import Refused
from judge.serve.model.similarity import PairReview, SimilarityRecord, SimilarityState
from judge.serve.model.upload import unpack
from judge.serve.model.viewer import Viewer
from judge.serve.services import access
from judge.serve.services.idle import IdleJob
from judge.serve.services.judging import UNPACK_LIMIT
from judge.serve.services.people import audit
from judge.serve.storage import Storage
from judge.serve.visibility import Sight, sees_similarity
from judge.similarity.model import Region, Settings, Source
from judge.similarity.render import marked_lines

if TYPE_CHECKING:
    from judge.serve.model.contest import Contest
    from judge.serve.model.phase import Phase
    from judge.serve.services.server import Server

AUTO = "contest end"  # who asked for a report made after the end by itself
MAX_NOTE_CHARS = 2000


def _allowed(server: Server, viewer: Viewer, now: float) -> None:
    access.authenticated(viewer, "see similar submissions")
    if not sees_similarity(Sight(viewer, server.timeline.phase, now)):
        raise Refused(403, "only judges and admins may see similar submissions")


def _problem(server: Server, problem_id: str) -> None:
    if server.contest.problem(problem_id) is None:
        raise Refused(404, "no such problem")


# ------------------------------------------------------------------------------------ computing a report


@dataclass(frozen=True)
class QueueSetup:
    storage: Storage
    contest: Callable[[], Contest]
    phase: Callable[[], Phase]
    now: Callable[[], float]
    log: Callable[[str], None] = lambda line: None
    settings: Settings = Settings()


def sources_of(setup: QueueSetup, problem_id: str) -> tuple[list[Source], int]:
    """The problem's submissions to compare (see the module's docstring), and its newest submission's id."""
    contest, phase = setup.contest(), setup.phase()
    out = []
    with setup.storage.read() as r:
        latest = r.latest_submission_ids().get(problem_id, 0)
        for s in r.submissions(problem_id=problem_id):
            if s.ignored or not phase.in_contest(s.time_s):
                continue
            data = r.submission_files(s.id)
            if data is None:
                continue
            try:
                files = unpack(data, UNPACK_LIMIT)
            except Refused:
                continue
            texts = tuple((f.name, f.data.decode("utf-8", errors="replace")) for f in files)
            team = contest.team(s.team_id)
            name = (team.display_name or team.name) if team else s.team_id
            out.append(Source(str(s.id), s.team_id, problem_id, texts, None, f"{name} #{s.id}"))
    return out, latest


@dataclass
class SimilarityJob:
    """One problem's report, as an idle job (services/idle.IdleJob)."""

    setup: QueueSetup
    problem_id: str

    @property
    def key(self) -> str:
        return f"similarity:{self.problem_id}"

    @property
    def label(self) -> str:
        return f"similar submissions of {self.problem_id}"

    def run(self, cancelled: Callable[[], bool]) -> None:
        from judge.similarity.run import problem_report  # loads copydetect (and matplotlib): when first needed

        storage, pid = self.setup.storage, self.problem_id
        with storage.write() as w:
            w.set_similarity_state(pid, SimilarityState.RUNNING)
        try:
            sources, latest = sources_of(self.setup, pid)
            if cancelled():  # a submission waits for this slot: computed later
                with storage.write() as w:
                    w.set_similarity_state(pid, SimilarityState.QUEUED)
                return
            cp = self.setup.contest().problem(pid)
            report = problem_report(cp.problem if cp else None, pid, sources, self.setup.settings)
            text = json.dumps(report.to_json(), ensure_ascii=False)
            with storage.write() as w:
                w.store_similarity(pid, text, len(sources), latest, self.setup.now())
        except Exception as exc:  # noqa: BLE001 - the judge's own failure: said on the page and in the log
            self.setup.log(f"similar submissions of {pid}: {type(exc).__name__}: {exc}")
            with storage.write() as w:
                w.set_similarity_state(pid, SimilarityState.FAILED, f"{type(exc).__name__}: {exc}")


class SimilarityQueue:
    """The reports to compute, as an idle.IdleQueue of the judging pool (``own_thread``: a thread of its own
    asks it instead, for a server judging on a cluster)."""

    def __init__(self, setup: QueueSetup, *, own_thread: bool = False) -> None:
        self.setup = setup
        self.own_thread = own_thread
        self._thread: threading.Thread | None = None

    def _auto(self, records: dict[str, SimilarityRecord]) -> None:
        """After the end: queue each problem whose report is missing or older than its newest submission."""
        phase, now = self.setup.phase(), self.setup.now()
        if phase.end_s is None or now < phase.end_s:
            return
        with self.setup.storage.read() as r:
            latest = r.latest_submission_ids()
        due = []
        for cp in self.setup.contest().problems:
            found = records.get(cp.id)
            if found is None or (
                found.state is SimilarityState.READY and found.latest_submission_id < latest.get(cp.id, 0)
            ):
                due.append(cp.id)
        if due:
            with self.setup.storage.write() as w:
                for pid in due:
                    w.request_similarity(pid, AUTO, now)

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        with self.setup.storage.read() as r:
            records = {x.problem_id: x for x in r.similarity_reports(with_report=False)}
        self._auto(records)
        with self.setup.storage.read() as r:
            records = {x.problem_id: x for x in r.similarity_reports(with_report=False)}
        open_ = (SimilarityState.QUEUED, SimilarityState.RUNNING)  # running, not in flight: a restart's
        jobs: list[IdleJob] = []
        for pid, found in sorted(records.items(), key=lambda kv: kv[1].requested_s):
            job = SimilarityJob(self.setup, pid)
            if found.state in open_ and job.key not in busy and len(jobs) < limit:
                jobs.append(job)
        return jobs

    def start(self, stopping: threading.Event) -> None:
        """With ``own_thread``: a thread that computes the queued reports, until ``stopping``."""
        if not self.own_thread or self._thread is not None:
            return

        def loop() -> None:
            while not stopping.wait(1.0):
                try:
                    for job in self.claim_idle(1, ()):
                        job.run(stopping.is_set)
                except Exception as exc:  # noqa: BLE001 - keep serving; say why
                    self.setup.log(f"similar submissions: {type(exc).__name__}: {exc}")

        self._thread = threading.Thread(target=loop, name="similarity", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


# ------------------------------------------------------------------------------------ the jury's use cases


@dataclass(frozen=True)
class ProblemStatus:
    problem_id: str
    record: SimilarityRecord | None
    pairs: int  # above the threshold
    reviewed: int


def overview(server: Server, viewer: Viewer, now: float) -> list[ProblemStatus]:
    """Per problem of the contest: its report's state, how many pairs, how many reviewed."""
    _allowed(server, viewer, now)
    with server.storage.read() as r:
        records = {x.problem_id: x for x in r.similarity_reports()}
        reviewed = {cp.id: {v.pair_key for v in r.similarity_reviews(cp.id)} for cp in server.contest.problems}
    out = []
    for cp in server.contest.problems:
        found = records.get(cp.id)
        keys = [p["key"] for p in json.loads(found.report)["pairs"]] if found and found.report else []
        out.append(ProblemStatus(cp.id, found, len(keys), len(reviewed[cp.id] & set(keys))))
    return out


@dataclass(frozen=True)
class ProblemView:
    record: SimilarityRecord | None
    report: dict[str, Any] | None  # judge.similarity's JSON of the problem (docs/similarity.md)
    reviews: dict[str, PairReview]  # by pair key


def problem_view(server: Server, viewer: Viewer, now: float, problem_id: str) -> ProblemView:
    _allowed(server, viewer, now)
    _problem(server, problem_id)
    with server.storage.read() as r:
        found = r.similarity_report(problem_id)
        reviews = {v.pair_key: v for v in r.similarity_reviews(problem_id)}
    report = json.loads(found.report) if found is not None and found.report else None
    return ProblemView(found, report, reviews)


def pair_view(server: Server, viewer: Viewer, now: float, problem_id: str, rank: int | None) -> dict[str, Any]:
    """One pair of the stored report, with both submissions' files marked where they match."""
    view = problem_view(server, viewer, now, problem_id)
    pairs = view.report["pairs"] if view.report else []
    if rank is None or not 1 <= rank <= len(pairs):
        raise Refused(404, "no such pair")
    pair = pairs[rank - 1]
    sides = []
    with server.storage.read() as r:
        for side in (pair["a"], pair["b"]):
            data = r.submission_files(int(side["id"]))
            files = [] if data is None else unpack(data, UNPACK_LIMIT)
            texts = [(f.name, f.data.decode("utf-8", errors="replace")) for f in files]
            regions = [Region(**reg) for reg in side["regions"]]
            sides.append({"side": side, "files": marked_lines(texts, regions)})
    return {"pair": pair, "sides": sides, "review": view.reviews.get(pair["key"])}


def request(server: Server, viewer: Viewer, now: float, problem_id: str | None) -> list[str]:
    """Queue the report of one problem (None: every problem); the problems queued (not those queued already)."""
    _allowed(server, viewer, now)
    ids = [cp.id for cp in server.contest.problems] if problem_id is None else [problem_id]
    if problem_id is not None:
        _problem(server, problem_id)
    with server.storage.write() as w:
        queued = [pid for pid in ids if w.request_similarity(pid, viewer.username or "?", now)]
    server.pool.wake()
    return queued


def mark_reviewed(server: Server, viewer: Viewer, now: float, problem_id: str, pair_key: str, note: str) -> None:
    """A judge looked at a pair: kept (replacing an earlier mark), and a line in the audit log."""
    _allowed(server, viewer, now)
    _problem(server, problem_id)
    if len(note) > MAX_NOTE_CHARS:
        raise Refused(400, f"the note is longer than {MAX_NOTE_CHARS} characters")
    with server.storage.write() as w:
        found = w.similarity_report(problem_id)
        keys = {p["key"] for p in json.loads(found.report)["pairs"]} if found and found.report else set()
        if pair_key not in keys:
            raise Refused(404, "no such pair in the problem's report")
        w.put_pair_review(PairReview(problem_id, pair_key, viewer.username or "?", note, now))
        audit(w, viewer, now, "similarity-reviewed", {"problem_id": problem_id, "pair": pair_key, "note": note})
