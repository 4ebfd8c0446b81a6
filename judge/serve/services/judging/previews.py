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

import json
import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path, PurePosixPath

from judge.package.problem import PackageError, Problem, load_problem
from judge.serve.model import package_zip
from judge.serve.model.errors import Refused
from judge.serve.model.records import PreviewRecord, PreviewRun
from judge.serve.model.viewer import Viewer
from judge.serve.services.judging import rejudgings, set_rows
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.fuzzing import with_added
from judge.serve.services.judging.preview_queue import STALE, judged_now, new_test_may_change, test_name, version_of
from judge.serve.services.judging.versions import (
    NO_TOOLS,
    owner_only_dir,
    packages_root,
    remove_version,
    version_path_of,
)
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer
from judge.serve.visibility import changes_packages, sees_previews

# --------------------------------------------------------------------------------------------- use cases


def _may_see(server: ServedJudging, viewer: Viewer, now: float, what: str) -> None:
    access.authenticated(viewer, what)
    if not sees_previews(server.sight(viewer, now)):
        raise Refused(403, f"only judges and admins may {what}")


def _versions_here(server: ServedJudging) -> None:
    """New package versions need the judge on this machine (a cluster's workers hold their own packages)."""
    if server.tools is NO_TOOLS:
        raise Refused(409, "this server does not judge on this machine (a cluster): it makes no package versions")


def _may_change(server: ServedJudging, viewer: Viewer, now: float, what: str) -> None:
    _may_see(server, viewer, now, what)
    if not changes_packages(server.sight(viewer, now)):
        raise Refused(403, f"only admins may {what}")


def add_as_test(server: ServedJudging, viewer: Viewer, counterexample_id: int | None, now: float) -> int:
    """Start a preview of the counterexample as a new secret test; the preview's id (it runs later)."""
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
    server: ServedJudging, viewer: Viewer, preview_id: int | None, now: float
) -> tuple[PreviewRecord, list[PreviewRun]]:
    """A preview and what it judged so far; ``None`` (an id that is not a number) is a 404 like one not stored."""
    _may_see(server, viewer, now, "see rejudge previews")
    with server.storage.read() as r:
        p = None if preview_id is None else r.preview(preview_id)
        if p is None:
            raise Refused(404, "no such preview")
        return p, r.preview_runs(p.id)


def stale(server: ServedJudging, p: PreviewRecord) -> bool:
    """Made on a version that is no longer current (a rejudging set, issue 47, is made on none)."""
    return p.kind != "rejudge" and server.versions.version(p.problem_id) != p.base_version


def changed_runs(runs: list[PreviewRun]) -> list[PreviewRun]:
    return [run for run in runs if run.verdict_after != run.verdict_before]


def _rejudging(server: ServedJudging, preview_id: int | None) -> bool:
    """Whether the preview is a rejudging set (issue 47: rejudgings.py applies and cancels those)."""
    with server.storage.read() as r:
        found = None if preview_id is None else r.preview(preview_id)
    return found is not None and found.kind == "rejudge"


def apply(server: ServedJudging, viewer: Viewer, preview_id: int | None, now: float) -> list[int]:
    """The preview's version becomes current; exactly the submissions whose verdict changes are rejudged
    (their old judgements kept, non-current). Returns the submissions queued. A rejudging set (issue 47):
    its judgements become current (rejudgings.apply); the submissions whose judgement did."""
    if _rejudging(server, preview_id):
        return rejudgings.apply(server, viewer, preview_id, now).applied
    _may_change(server, viewer, now, "apply a rejudge preview")
    access.refuse_if_final(server.timeline.phase)
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
            queued = _apply_rows(w, p, changed_runs(w.preview_runs(p.id)), now, viewer.username or "")
            audit(w, viewer, now, "apply preview", {"preview": p.id, "problem": p.problem_id, "rejudged": queued})
            server.versions.set(problem, p.version)  # before the commit: the rejudges are claimed after it
    if refusal is not None:
        raise Refused(409, refusal)
    server.pool.wake()
    return queued


def _not_now(w: Writer, server: ServedJudging, p: PreviewRecord, order: dict[str, int]) -> str | None:
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


def _apply_rows(writer: Writer, p: PreviewRecord, changed: list[PreviewRun], now: float, by: str) -> list[int]:
    """The version current, and the changed submissions rejudged: a rejudging set (issue 47: the one
    mechanism of every rejudge) that applies itself, the preview having been reviewed already."""
    if p.base_version > 1:
        writer.set_version_state(p.problem_id, p.base_version, "retired")
    writer.set_version_state(p.problem_id, p.version, "current")
    writer.set_preview_state(p.id, "applied")
    if p.counterexample_id is not None and p.test_name:
        writer.set_added_as(p.counterexample_id, p.test_name)
    scope = json.dumps({"problem": p.problem_id})
    record = PreviewRecord(p.problem_id, 0, 0, "rejudge", None, "running", f"preview {p.id} applied", now)
    set_id = writer.add_preview(replace(record, scope=scope, auto_apply=True, created_by=by))
    queued = []
    for run in changed:
        if not writer.has_open_job(run.submission_id):
            writer.enqueue(run.submission_id, "rejudge", now, rejudging_id=set_id)
            queued.append(run.submission_id)
    made = writer.preview(set_id)
    if made is not None:
        set_rows.finish_if_done(writer, made)
    return queued


def discard(server: ServedJudging, viewer: Viewer, preview_id: int | None, now: float) -> None:
    """The preview's version is discarded and its files removed; nothing else changes. A rejudging set
    (issue 47) is cancelled (rejudgings.cancel)."""
    if _rejudging(server, preview_id):
        rejudgings.cancel(server, viewer, preview_id, now)
        return
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


def _package_files(data: bytes) -> list[tuple[PurePosixPath, bytes]]:
    """The files of a package zip (a single top folder holding problem.yaml is taken off). Raises Refused."""
    return package_zip.strip_top(package_zip.members(data, PACKAGE_LIMIT, PACKAGE_FILES), ("problem.yaml",))


def upload_package(server: ServedJudging, viewer: Viewer, problem_id: str, data: bytes, now: float) -> int:
    """A new version of the problem's package from a zip, checked like a package (nothing stored when it
    is not one), previewed in full; the preview's id."""
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
