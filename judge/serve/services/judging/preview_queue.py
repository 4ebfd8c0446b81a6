"""The rejudge previews' queue (issue 33; previews.py makes and applies them): an idle queue of the judging
pool (idle.py) that prepares each preview (add-test: the new test's answer and the version's files) and
runs it, one submission at a time, storing each result as a ``preview_runs`` row."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.verdict import Verdict
from judge.package.problem import PackageError, Problem, load_problem
from judge.serve.model.records import PreviewRecord, PreviewRun, ProblemVersion, SubmissionRecord
from judge.serve.services.judging.idle import IdleJob
from judge.serve.services.judging.queue import Claimed, JobQueue
from judge.serve.services.judging.versions import (
    CurrentPackages,
    NewTestRefused,
    VersionTools,
    copy_package,
    remove_version,
)
from judge.serve.storage import Reader, Storage

OPEN = ("preparing", "running")  # what the preview queue still has to do
STALE = "the package changed; preview again"


def test_name(counterexample_id: int) -> str:
    return f"secret/fuzz-{counterexample_id}"


def version_of(r: Reader, p: PreviewRecord) -> ProblemVersion:
    return next(v for v in r.problem_versions(p.problem_id) if v.version == p.version)


@dataclass(frozen=True)
class Judged:
    """A counted submission with its current finished judgement."""

    submission: SubmissionRecord
    verdict: str
    score: float
    failing_test: str | None  # the first test it fails (None: accepted, or no test decided it: CE, JE)


def judged_now(r: Reader, problem_id: str) -> list[Judged]:
    """The problem's counted submissions with a current finished judgement, in the order made."""
    subs = {s.id: s for s in r.submissions(problem_id=problem_id) if not s.ignored}
    judgements = [j for j in r.judgements(submission_ids=list(subs), current=True) if j.end_s is not None and j.verdict]
    first_failed: dict[int, str] = {}
    for run in sorted(r.runs(judgement_ids=[j.id for j in judgements]), key=lambda x: (x.judgement_id, x.ordinal)):
        if run.verdict != Verdict.AC.value:
            first_failed.setdefault(run.judgement_id, run.name)
    out = [
        Judged(subs[j.submission_id], str(j.verdict), float(j.score or 0.0), first_failed.get(j.id)) for j in judgements
    ]
    return sorted(out, key=lambda t: t.submission.id)


def new_test_may_change(j: Judged, order: dict[str, int], new_test: str) -> bool:
    """Whether a new test can change the verdict: the submission is accepted, or the first test it fails
    comes after the new test in judging order (it may now fail earlier, in another way)."""
    if j.verdict == Verdict.AC.value:
        return True
    return j.failing_test is not None and order.get(j.failing_test, -1) > order.get(new_test, len(order))


def single_test(problem: Problem, name: str) -> Problem:
    """The package with only test ``name`` (in its group, no samples), a hash of its own."""
    test = next((t for t in problem.tests() if t.name == name), None)
    if test is None:
        raise PackageError(f"{problem.id}: the new test {name} is not in the package")
    secret = replace(problem.secret, tests=(test,), subgroups=())
    return replace(problem, sample=None, secret=secret, content_hash=f"{problem.content_hash}+{name}")


class PreviewQueue:
    """The idle queue of previews to prepare and run (idle.IdleQueue), oldest first."""

    def __init__(
        self,
        storage: Storage,
        judging: JobQueue,
        versions: CurrentPackages,
        tools: VersionTools,
        log: Callable[[str], None],
    ) -> None:
        self.storage = storage
        self.judging = judging
        self.versions = versions
        self.tools = tools
        self.log = log

    def claim_idle(self, limit: int, busy: Collection[str]) -> list[IdleJob]:
        with self.storage.read() as r:
            # a rejudging set (issue 47: kind "rejudge") is judged by the judging queue itself, not here
            todo = [p.id for p in r.previews(OPEN) if p.kind != "rejudge"]
        jobs: list[IdleJob] = [PreviewJob(self, pid) for pid in todo]
        return [j for j in jobs if j.key not in busy][:limit]

    def run_pending(self, rounds: int = 100) -> int:
        """Run the open previews to their end in this thread (tests, tools); returns the jobs run."""
        n = 0
        while n < rounds and (jobs := self.claim_idle(1, ())):
            jobs[0].run(lambda: False)
            n += 1
        return n


@dataclass(frozen=True)
class PreviewJob:
    queue: PreviewQueue
    preview_id: int

    @property
    def key(self) -> str:
        return f"preview:{self.preview_id}"

    @property
    def label(self) -> str:
        return f"rejudge preview {self.preview_id}"

    def run(self, cancelled: Callable[[], bool]) -> None:
        q = self.queue
        with q.storage.read() as r:
            p = r.preview(self.preview_id)
            version = None if p is None else version_of(r, p)
        if p is None or version is None or p.state not in OPEN:
            return
        problem = self._prepare(p, version) if p.state == "preparing" else self._load(p, version)
        if problem is None:
            return
        target = single_test(problem, p.test_name) if p.kind == "add-test" and p.test_name else problem
        q.tools.register(target)
        order = {t.name: i for i, t in enumerate(problem.tests())}
        while not cancelled():
            if not self._run_next(p, target, order):
                return

    def _refuse(self, p: PreviewRecord, version: ProblemVersion, message: str) -> None:
        with self.queue.storage.write() as w:
            w.set_preview_state(p.id, "refused", message)
            w.set_version_state(p.problem_id, p.version, "discarded")
        remove_version(Path(version.path))
        self.queue.log(f"rejudge preview {p.id} of {p.problem_id}: refused: {message}")

    def _load(self, p: PreviewRecord, version: ProblemVersion) -> Problem | None:
        try:
            problem = load_problem(Path(version.path))
        except PackageError as exc:
            self._refuse(p, version, str(exc))
            return None
        self.queue.tools.register(problem)
        return problem

    def _prepare(self, p: PreviewRecord, version: ProblemVersion) -> Problem | None:
        """add-test: the new test's answer, checked input, and the new version's files."""
        q = self.queue
        base = q.judging.problem(p.problem_id)
        with q.storage.read() as r:
            found = None if p.counterexample_id is None else r.counterexample(p.counterexample_id)
        if base is None or found is None or q.versions.version(p.problem_id) != p.base_version or not p.test_name:
            self._refuse(p, version, STALE if base is not None and found is not None else "nothing to add")
            return None
        try:
            answer = q.tools.make_answer(base.problem, found.input)
        except NewTestRefused as exc:
            self._refuse(p, version, str(exc))
            return None
        dest = Path(version.path)
        copy_package(base.problem.path, dest)
        (dest / "data" / f"{p.test_name}.in").write_bytes(found.input)
        (dest / "data" / f"{p.test_name}.ans").write_bytes(answer)
        problem = self._load(p, version)
        if problem is None:
            return None
        note = "" if answer == found.answer else "the reference's answer now differs from the one stored; it is used"
        with q.storage.write() as w:
            kept = w.preview(p.id) == p  # not discarded meanwhile
            if kept:
                w.set_preview_state(p.id, "running", note)
        if not kept:
            remove_version(dest)  # discarded while its files were being made
            return None
        return problem

    def _todo(self, p: PreviewRecord, order: dict[str, int]) -> tuple[Judged | None, bytes | None]:
        """The next submission to run (add-test: those the new test may change) and its files."""
        with self.queue.storage.read() as r:
            done = {run.submission_id for run in r.preview_runs(p.id)}
            todo = [j for j in judged_now(r, p.problem_id) if j.submission.id not in done]
            if p.kind == "add-test" and p.test_name:
                todo = [j for j in todo if new_test_may_change(j, order, p.test_name)]
            return (todo[0], r.submission_files(todo[0].submission.id)) if todo else (None, None)

    def _run_next(self, p: PreviewRecord, target: Problem, order: dict[str, int]) -> bool:
        """Judge the next submission not run yet; False when none is left (the preview is ready)."""
        q = self.queue
        j, files = self._todo(p, order)
        if j is None or files is None:
            with q.storage.write() as w:
                now = w.preview(p.id)
                if now is not None and now.state in OPEN:
                    w.set_preview_state(p.id, "ready")
            return False
        result = q.judging.judge_against(Claimed(0, 0, j.submission, files), target.content_hash)
        if p.kind == "add-test":  # the new test only: it changes the verdict when it fails
            fails = result.verdict is not Verdict.AC
            after, score, failing = (result.verdict.value if fails else j.verdict), j.score, j.failing_test
            failing = p.test_name if fails else failing
        else:
            after, score = result.verdict.value, result.score
            failing = next((t.name for t in result.tests if not t.skipped and t.verdict is not Verdict.AC), None)
        run = PreviewRun(p.id, j.submission.id, j.verdict, after, j.score, score, failing, q.judging.now())
        with q.storage.write() as w:
            now = w.preview(p.id)
            if now is None or now.state not in OPEN:
                return False
            w.add_preview_run(run)
        return True
