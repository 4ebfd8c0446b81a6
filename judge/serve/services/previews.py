"""Rejudge previews (issue 33, docs/live-fuzzing.md): which submissions a new package version would change.

A preview is stored by a request ("add as test": a counterexample becomes ``data/secret/fuzz-<id>``, or a
package upload) and then run by ``PreviewQueue``, an idle queue of the judging pool (idle.py): only while
no real judging waits, before live fuzzing. Everything that runs a process (the input validators, the
reference's answer, the submissions) runs there, never in a request. A preview job:

1. *preparing* (add-test only): the input is checked and answered by the package of the version the
   preview was made on (``VersionTools.make_answer``); refused: the preview says why, its version is
   discarded and its files removed. Else the version's files are that package plus the new test;
2. *running*: for add-test, each submission of the problem whose current judgement is AC (or whose first
   failing test comes after the new test: it may now fail earlier) is run on the new test only; for a
   package, every submission with a current judgement is judged in full against the new version. Each
   result is a ``preview_runs`` row (never a judgement, an event or the board). A job cancelled between
   two submissions resumes later with those not run yet;
3. *ready*: the jury sees before → after per submission and the board's change (preview_view.py), and an
   admin applies (the version becomes current; exactly the submissions whose verdict changes are rejudged)
   or discards it (its version's files removed). Both audited.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from judge.judging.verdict import Verdict
from judge.package.problem import PackageError, Problem, load_problem
from judge.serve.model.errors import Refused
from judge.serve.model.records import PreviewRecord, PreviewRun, ProblemVersion, SubmissionRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services import access
from judge.serve.services.fuzzing import with_added
from judge.serve.services.idle import IdleJob
from judge.serve.services.judging import Claimed, JobQueue
from judge.serve.services.versions import (
    NO_TOOLS,
    CurrentPackages,
    NewTestRefused,
    VersionTools,
    copy_package,
    owner_only_dir,
    packages_root,
    remove_version,
    version_path_of,
)
from judge.serve.storage import Reader, Storage, Writer
from judge.serve.visibility import changes_packages, sees_previews

if TYPE_CHECKING:
    from judge.serve.services.server import Server

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


# --------------------------------------------------------------------------------------------- the queue


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
            todo = [p.id for p in r.previews(OPEN)]
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


# --------------------------------------------------------------------------------------------- use cases


def _may_see(server: Server, viewer: Viewer, now: float, what: str) -> None:
    access.authenticated(viewer, what)
    if not sees_previews(server.sight(viewer, now)):
        raise Refused(403, f"only judges and admins may {what}")


def _versions_here(server: Server) -> None:
    """New package versions need the judge on this machine (a cluster's workers hold their own packages)."""
    if server.tools is NO_TOOLS:
        raise Refused(409, "this server does not judge on this machine (a cluster): it makes no package versions")


def _may_change(server: Server, viewer: Viewer, now: float, what: str) -> None:
    _may_see(server, viewer, now, what)
    if not changes_packages(server.sight(viewer, now)):
        raise Refused(403, f"only admins may {what}")


def add_as_test(server: Server, viewer: Viewer, counterexample_id: int | None, now: float) -> int:
    """Start a preview of the counterexample as a new secret test; the preview's id (it runs later)."""
    from judge.serve.services.people import audit

    _may_see(server, viewer, now, "add a counterexample as a test")
    _versions_here(server)
    with server.storage.write() as w:
        found = None if counterexample_id is None else w.counterexample(counterexample_id)
        cp = None if found is None else server.contest.problem(found.problem_id)
        if found is None or cp is None:
            raise Refused(404, "no such counterexample")
        already = with_added([found, *w.counterexamples(found.problem_id)])[0].added_as
        already = already or a_test_with_input(cp.problem, found.input)
        if already is not None:
            raise Refused(409, f"counterexample {found.id}'s input is already the test {already}: nothing to add")
        pid, name = found.problem_id, test_name(found.id)
        path_of = version_path_of(packages_root(server.storage.path), pid)
        version = w.add_problem_version(pid, path_of, f"counterexample {found.id} as {name}", now)
        base = server.versions.version(pid)
        preview_id = w.add_preview(PreviewRecord(pid, version, base, "add-test", found.id, "preparing", "", now, name))
        audit(w, viewer, now, "preview", {"preview": preview_id, "problem": pid, "counterexample": found.id})
    return preview_id


def a_test_with_input(problem: Problem, data: bytes) -> str | None:
    """The test of ``problem`` (its current version) whose input is ``data``, by name; None: none is."""
    groups = [g for g in (problem.sample, problem.secret) if g is not None]
    for case in (c for g in groups for c in g.all_tests() if not c.static):
        path = case.input_path
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return case.name
    return None


def preview(
    server: Server, viewer: Viewer, preview_id: int | None, now: float
) -> tuple[PreviewRecord, list[PreviewRun]]:
    """A preview and what it judged so far; ``None`` (an id that is not a number) is a 404 like one not stored."""
    _may_see(server, viewer, now, "see rejudge previews")
    with server.storage.read() as r:
        p = None if preview_id is None else r.preview(preview_id)
        if p is None:
            raise Refused(404, "no such preview")
        return p, r.preview_runs(p.id)


def stale(server: Server, p: PreviewRecord) -> bool:
    """Made on a version that is no longer current."""
    return server.versions.version(p.problem_id) != p.base_version


def changed_runs(runs: list[PreviewRun]) -> list[PreviewRun]:
    return [run for run in runs if run.verdict_after != run.verdict_before]


def apply(server: Server, viewer: Viewer, preview_id: int | None, now: float) -> list[int]:
    """The preview's version becomes current; exactly the submissions whose verdict changes are rejudged
    (their old judgements kept, non-current). Returns the submissions queued."""
    from judge.serve.services.finalize import refuse_if_final
    from judge.serve.services.people import audit

    _may_change(server, viewer, now, "apply a rejudge preview")
    refuse_if_final(server)
    p, _ = preview(server, viewer, preview_id, now)
    with server.storage.read() as r:
        path = Path(version_of(r, p).path)
    if p.state != "ready":
        raise Refused(409, f"the preview is {p.state}, not ready")
    if stale(server, p):
        raise Refused(409, STALE)
    try:
        problem = load_problem(path)
    except PackageError as exc:
        raise Refused(409, f"version {p.version} cannot be read: {exc}") from None
    server.tools.register(problem)
    queued: list[int] = []
    with server.storage.write() as w:
        refusal = _not_now(w, server, p, {t.name: i for i, t in enumerate(problem.tests())})
        if refusal is None:
            queued = _apply_rows(w, p, changed_runs(w.preview_runs(p.id)), now)
            audit(w, viewer, now, "apply preview", {"preview": p.id, "problem": p.problem_id, "rejudged": queued})
            server.versions.set(problem, p.version)  # before the commit: the rejudges are claimed after it
    if refusal is not None:
        raise Refused(409, refusal)
    server.pool.wake()
    return queued


def _not_now(w: Writer, server: Server, p: PreviewRecord, order: dict[str, int]) -> str | None:
    """Why the preview cannot be applied now (None: it can). Applying must rejudge *exactly* the changed
    submissions, so no submission of the problem may be in judging (it would be judged with either
    version), and every one judged since the preview ran is previewed first: the preview runs again."""
    if w.preview(p.id) != p or stale(server, p):
        return STALE
    subs = w.submissions(problem_id=p.problem_id)
    busy = sum(1 for s in subs if w.has_open_job(s.id))
    if busy:
        return f"{busy} submission(s) of {p.problem_id} are being judged: apply when they are done"
    done = {run.submission_id for run in w.preview_runs(p.id)}
    todo = [j for j in judged_now(w, p.problem_id) if j.submission.id not in done]
    if p.kind == "add-test" and p.test_name:
        todo = [j for j in todo if new_test_may_change(j, order, p.test_name)]
    if todo:
        w.set_preview_state(p.id, "running")
        return f"{len(todo)} submission(s) were judged since the preview ran: it runs again on them; apply when ready"
    return None


def _apply_rows(writer: Writer, p: PreviewRecord, changed: list[PreviewRun], now: float) -> list[int]:
    if p.base_version > 1:
        writer.set_version_state(p.problem_id, p.base_version, "retired")
    writer.set_version_state(p.problem_id, p.version, "current")
    writer.set_preview_state(p.id, "applied")
    if p.counterexample_id is not None and p.test_name:
        writer.set_added_as(p.counterexample_id, p.test_name)
    queued = []
    for run in changed:
        if not writer.has_open_job(run.submission_id):
            writer.enqueue(run.submission_id, "rejudge", now)
            queued.append(run.submission_id)
    return queued


def discard(server: Server, viewer: Viewer, preview_id: int | None, now: float) -> None:
    """The preview's version is discarded and its files removed; nothing else changes."""
    from judge.serve.services.people import audit

    _may_change(server, viewer, now, "discard a rejudge preview")
    p, _ = preview(server, viewer, preview_id, now)
    if p.state in ("applied", "discarded"):
        raise Refused(409, f"the preview is {p.state} already")
    with server.storage.write() as w:
        path = Path(version_of(w, p).path)
        w.set_preview_state(p.id, "discarded")
        w.set_version_state(p.problem_id, p.version, "discarded")
        audit(w, viewer, now, "discard preview", {"preview": p.id, "problem": p.problem_id})
    remove_version(path)


# --------------------------------------------------------------------------------------------- upload

PACKAGE_LIMIT = 64 * 1024 * 1024  # an uploaded package zip, and what it unpacks to
PACKAGE_FILES = 10_000
NAME_BYTES = 255  # a file or folder name in the package (the file systems' limit)
PATH_CHARS = 1024  # a member's whole path


def _package_files(data: bytes) -> list[tuple[PurePosixPath, bytes]]:
    """The files of a package zip (a single top folder holding problem.yaml is taken off). Raises Refused."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
            if not infos or len(infos) > PACKAGE_FILES:
                raise Refused(400, f"the zip holds {len(infos)} files: a package has 1 to {PACKAGE_FILES}")
            if sum(i.file_size for i in infos) > PACKAGE_LIMIT:
                raise Refused(413, f"the package unpacks to more than {PACKAGE_LIMIT // 2**20} MiB")
            out = []
            for info in infos:
                name = PurePosixPath(info.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
                    raise Refused(400, f"the zip holds a file outside the package: {info.filename!r}")
                _check_name(info.filename, name)
                out.append((name, zf.read(info)))
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - zipfile raises many kinds
        raise Refused(400, f"not a readable zip archive ({type(exc).__name__}: {exc})") from None
    _check_tree([n for n, _ in out])
    tops = {n.parts[0] for n, _ in out}
    nested = all(len(n.parts) > 1 for n, _ in out) and any(n.parts[1:] == ("problem.yaml",) for n, _ in out)
    if len(tops) == 1 and nested:
        out = [(PurePosixPath(*n.parts[1:]), b) for n, b in out]
    return out


def _check_name(member: str, name: PurePosixPath) -> None:
    """A member's name the file system takes (issue 43: ``.``, a 300-character name were 500s): a name at all,
    each part at most ``NAME_BYTES``, the whole at most ``PATH_CHARS``. Raises Refused (400)."""
    if not name.parts:
        raise Refused(400, f"the zip holds a file without a name: {member[:100]!r}")
    long = next((p for p in name.parts if len(p.encode("utf-8", "surrogateescape")) > NAME_BYTES), None)
    if long is not None:
        raise Refused(400, f"the zip holds a name longer than {NAME_BYTES} bytes: {long[:60]!r}...")
    if len(member) > PATH_CHARS:
        raise Refused(400, f"the zip holds a path longer than {PATH_CHARS} characters: {member[:60]!r}...")


def _check_tree(names: list[PurePosixPath]) -> None:
    """The files can be made: no name twice, none both a file and a folder (``a`` and ``a/b``: issue 43)."""
    files: set[PurePosixPath] = set()
    for n in names:
        if n in files:
            raise Refused(400, f"the zip holds {n.as_posix()!r} twice")
        files.add(n)
    folders = {parent for n in names for parent in n.parents if parent.parts}
    both = sorted(files & folders)
    if both:
        raise Refused(400, f"the zip holds {both[0].as_posix()!r} both as a file and as a folder")


def upload_package(server: Server, viewer: Viewer, problem_id: str, data: bytes, now: float) -> int:
    """A new version of the problem's package from a zip, checked like a package (nothing stored when it
    is not one), previewed in full; the preview's id."""
    from judge.serve.services.people import audit

    _may_change(server, viewer, now, "upload a package")
    _versions_here(server)
    if server.contest.problem(problem_id) is None:
        raise Refused(404, f"no problem {problem_id!r}")
    files = _package_files(data)
    root = packages_root(server.storage.path)
    owner_only_dir(root / problem_id)
    staging = Path(tempfile.mkdtemp(prefix="upload-", dir=root / problem_id))
    try:
        for name, content in files:
            dest = staging / problem_id / Path(*name.parts)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(content)
        try:
            load_problem(staging / problem_id)
        except PackageError as exc:
            raise Refused(400, f"not a valid problem package: {exc}") from None
        with server.storage.write() as w:
            path_of = version_path_of(root, problem_id)
            version = w.add_problem_version(problem_id, path_of, "package upload", now)
            base = server.versions.version(problem_id)
            preview_id = w.add_preview(PreviewRecord(problem_id, version, base, "package", None, "running", "", now))
            audit(w, viewer, now, "upload package", {"preview": preview_id, "problem": problem_id, "bytes": len(data)})
            dest = Path(path_of.replace("{version}", str(version)))
            owner_only_dir(dest.parent)
            os.replace(staging / problem_id, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return preview_id
