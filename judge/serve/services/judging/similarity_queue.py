"""Computing the similar submissions' reports (issue 49; similarity.py is the jury's side): the queue of
problems whose report is asked for (or due after the end), an idle queue of the judging pool, or a thread of
its own on a cluster; a job compares a problem's sources with judge.similarity and stores the report."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass

from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.model.phase import Phase
from judge.serve.model.similarity import SimilarityRecord, SimilarityState
from judge.serve.model.upload import unpack
from judge.serve.services.judging.idle import IdleJob
from judge.serve.services.judging.queue import UNPACK_LIMIT
from judge.serve.storage import Storage
from judge.similarity.model import Settings, Source

AUTO = "contest end"  # who asked for a report made after the end by itself


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
    """One problem's report, as an idle job (services/judging/idle.IdleJob)."""

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

    def __init__(
        self, setup: QueueSetup, *, own_thread: bool = False, leads: Callable[[], bool] = lambda: True
    ) -> None:
        self.setup = setup
        self.own_thread = own_thread
        # several processes on one database (issue 51, --shared): its own thread computes only while this process
        # leads (``Storage.leads``), as the pool asks its idle queues (idle.LedIdle)
        self._leads = leads
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
                    self.run_once(stopping.is_set)
                except Exception as exc:  # noqa: BLE001 - keep serving; say why
                    self.setup.log(f"similar submissions: {type(exc).__name__}: {exc}")

        self._thread = threading.Thread(target=loop, name="similarity", daemon=True)
        self._thread.start()

    def run_once(self, cancelled: Callable[[], bool] = lambda: False) -> int:
        """Its own thread's turn: the most urgent queued report computed, if this process leads; how many."""
        if not self._leads():
            return 0
        jobs = self.claim_idle(1, ())
        for job in jobs:
            job.run(cancelled)
        return len(jobs)

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()
