"""Why a run failed (issue 47): what one run's passes printed (kept per judgement by the judging queue,
within contest.yaml's ``output_storage``), the test's input and answer (from the package version the
judgement was judged against), and the diff of the output against the answer; and the downloads of each
whole. Who sees what of it is visibility.py's (``sees_run_output``, ``sees_run_messages``): the jury all;
a team, of its own runs, as contest.yaml's ``team_outputs`` says (the sample tests' by default)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge.package.problem import PackageError, Problem, load_problem
from judge.package.testgroups import TestCase
from judge.serve.model.apijson import run_id, submission_of
from judge.serve.model.errors import Refused
from judge.serve.model.records import JudgementRecord, RunDetail, RunRecord, SubmissionRecord
from judge.serve.model.textdiff import LIMIT_BYTES, TextDiff, diff_text
from judge.serve.services.judging import results
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.submissions import submission_views
from judge.serve.storage import Reader
from judge.serve.visibility import Sight, sees_run_messages, sees_run_output, sees_runs

SHOW_BYTES = LIMIT_BYTES  # what a page shows of each file (the downloads give the whole)
FILES = ("output", "stderr", "input", "answer")  # what a run's downloads are of


@dataclass(frozen=True)
class Shown:
    """A file's first ``SHOW_BYTES`` as a page shows them, and its whole size."""

    head: bytes
    size: int  # as written (a program's output: more than was kept when it was cut)

    @property
    def text(self) -> str:
        return self.head.decode("utf-8", errors="replace")

    @property
    def cut(self) -> bool:
        return self.size > len(self.head)


def _shown(data: bytes | None, size: int | None = None) -> Shown | None:
    if data is None:
        return None
    return Shown(data[:SHOW_BYTES], len(data) if size is None else max(size, len(data)))


@dataclass(frozen=True)
class PassOutput:
    """One pass of the run: how it ended and what it printed (None: not kept, the contest's cap was
    reached), the diff of its output against the test's answer (None: interactive, or nothing to compare)."""

    detail: RunDetail
    output: Shown | None
    stderr: Shown | None
    input: Shown | None  # a later pass's own input (multi-pass)
    diff: TextDiff | None

    @property
    def kept(self) -> bool:
        return self.detail.output is not None or self.detail.stderr is not None


@dataclass(frozen=True)
class RunOutput:
    submission: SubmissionRecord
    judgement: JudgementRecord
    run: RunRecord
    passes: tuple[PassOutput, ...]  # none: nothing was kept of this judgement (judged before, or a cap of 0)
    input: Shown | None  # the test's input (None: the package version is gone, or a static validation case)
    answer: Shown | None
    interactive: bool
    messages: bool  # the validator's judgemessage.txt (the jury's); a team reads teammessage.txt only


# --------------------------------------------------------------------------------------------- the package


def package_of(server: ServedJudging, r: Reader, problem_id: str, package_hash: str | None) -> Problem | None:
    """The package version a judgement was judged against (by its hash; the current one when the judgement
    names none); None: no such version is on disk any more."""
    cp = server.versions.problem(server.contest, problem_id)
    first = server.contest.problem(problem_id)
    known = [p.problem for p in (cp, first) if p is not None]
    if not package_hash:
        return known[0] if known else None
    for p in known:
        if p.content_hash == package_hash:
            return p
    for v in r.problem_versions(problem_id):
        if v.state == "discarded":
            continue
        try:
            p = load_problem(Path(v.path))
        except PackageError:
            continue
        if p.content_hash == package_hash:
            return p
    return None


def _test(problem: Problem | None, name: str) -> TestCase | None:
    if problem is None:
        return None
    return next((t for t in problem.tests() if t.name == name and not t.static), None)


def _read(path: Path | None, limit: int | None) -> tuple[bytes, int] | None:
    if path is None:
        return b"", 0
    try:
        with path.open("rb") as f:
            return (f.read() if limit is None else f.read(limit)), path.stat().st_size
    except OSError:
        return None


# --------------------------------------------------------------------------------------------- finding the run


@dataclass(frozen=True)
class FoundRun:
    submission: SubmissionRecord
    judgement: JudgementRecord
    run: RunRecord


def _staff_run(server: ServedJudging, sight: Sight, judgement_id: int | None, ordinal: int | None) -> FoundRun:
    """The jury's: any judgement (a held one of a rejudging set too), by its number in the database."""
    with server.storage.read() as r:
        js = r.judgements(ids=[judgement_id], held=None) if judgement_id is not None else []
        runs = r.runs(judgement_ids=[js[0].id], held=None) if js else []
        subs = r.submissions(ids=[js[0].submission_id]) if js else []
    run = next((x for x in runs if x.ordinal == ordinal), None)
    if not js or not subs or run is None or not sees_runs(sight, subs[0], js[0]):
        raise Refused(404, f"no run {ordinal} of judgement {judgement_id}")
    return FoundRun(subs[0], js[0], run)


def _team_run(server: ServedJudging, sight: Sight, submission_id: int | None, ordinal: int | None) -> FoundRun:
    """A team's: a run of its own submission's current judgement, as the team is shown it."""
    what = f"no run {ordinal} of your submission {submission_id}"
    if submission_id is None or sight.viewer.team_id is None:
        raise Refused(404, what)
    views = submission_views(server, sight, team_id=sight.viewer.team_id, ids=[submission_id])
    j = views[0].judgement if views else None
    if j is None or not j.done:
        raise Refused(404, what)
    with server.storage.read() as r:
        run = next((x for x in r.runs(judgement_ids=[j.id]) if x.ordinal == ordinal), None)
    if run is None or not sees_runs(sight, views[0].submission, j):
        raise Refused(404, what)
    return FoundRun(views[0].submission, j, run)


def find_run(
    server: ServedJudging,
    sight: Sight,
    *,
    ordinal: int | None,
    judgement_id: int | None = None,
    submission_id: int | None = None,
) -> FoundRun:
    """The run ``ordinal`` of the judgement ``judgement_id`` (the jury's pages), or of the submission's
    current judgement (a team's pages, ``submission_id``): a 404 for anything the viewer does not see, and
    for any run whose output the viewer may not read (not even whether it exists)."""
    if sight.staff and judgement_id is not None:
        found = _staff_run(server, sight, judgement_id, ordinal)
    else:
        found = _team_run(server, sight, submission_id, ordinal)
    if not sees_run_output(sight, found.submission, found.judgement, found.run.name):
        raise Refused(404, f"the output of run {ordinal} is not shown to you")
    return found


def find_api_run(server: ServedJudging, sight: Sight, api_id: str) -> FoundRun:
    """The run of the API's id ``api_id`` (``12-5``, ``12-2-5``), of any judgement the viewer sees the runs
    of (results.runs), whose output the viewer may read; else a 404."""
    sid = submission_of(api_id)
    run = next((x for x in results.runs(server, sight, [sid]) if run_id(x) == api_id), None) if sid else None
    with server.storage.read() as r:
        js = r.judgements(ids=[run.judgement_id]) if run is not None else []
        subs = r.submissions(ids=[sid]) if sid is not None else []
    if run is None or not js or not subs or not sees_run_output(sight, subs[0], js[0], run.name):
        raise Refused(404, f"no run {api_id!r} whose output you may read")
    return FoundRun(subs[0], js[0], run)


# --------------------------------------------------------------------------------------------- reading


def _pass(d: RunDetail, answer: bytes | None, answer_size: int, interactive: bool) -> PassOutput:
    diff = None
    if not interactive and d.output is not None and answer is not None:
        diff = diff_text(d.output, answer, left_bytes=d.output_bytes, right_bytes=answer_size)
    return PassOutput(
        d,
        _shown(d.output, d.output_bytes),
        _shown(d.stderr, d.stderr_bytes),
        _shown(d.input, d.input_bytes),
        diff,
    )


def run_output(server: ServedJudging, sight: Sight, found: FoundRun) -> RunOutput:
    """What the run printed, the test's input and answer, and the diffs, for a run ``find_run`` gave."""
    j, run = found.judgement, found.run
    with server.storage.read() as r:
        details = r.run_details([j.id], run.ordinal)
        problem = package_of(server, r, found.submission.problem_id, j.package_hash)
    test = _test(problem, run.name)
    test_input = _read(test.input_path, SHOW_BYTES) if test is not None else None
    answer = _read(test.answer_path, SHOW_BYTES) if test is not None else None
    interactive = problem is not None and problem.interactive
    passes = tuple(
        _pass(d, None if answer is None else answer[0], 0 if answer is None else answer[1], interactive)
        for d in details
    )
    messages = sees_run_messages(sight)
    return RunOutput(
        found.submission,
        j,
        run,
        passes,
        None if test_input is None else Shown(*test_input),
        None if answer is None else Shown(*answer),
        interactive,
        messages,
    )


def run_file(server: ServedJudging, sight: Sight, found: FoundRun, which: str, pass_n: int) -> tuple[str, bytes]:
    """A download of the whole of one file of the run: its output or stderr (what was kept: the first
    ``output_storage.run_kib``), a later pass's input, or the test's input or answer; (file name, bytes)."""
    run = found.run
    base = f"s{found.submission.id}-{run.name.replace('/', '-')}"
    if which not in FILES:
        raise Refused(404, f"no file {which!r} of a run (one of {', '.join(FILES)})")
    with server.storage.read() as r:
        details = {d.pass_n: d for d in r.run_details([found.judgement.id], run.ordinal)}
        problem = package_of(server, r, found.submission.problem_id, found.judgement.package_hash)
    d = details.get(pass_n)
    if which in ("output", "stderr") or (which == "input" and pass_n > 1):
        data = None if d is None else {"output": d.output, "stderr": d.stderr, "input": d.input}[which]
        if data is None:
            raise Refused(404, f"the {which} of pass {pass_n} of run {run.ordinal} was not kept")
        return f"{base}-pass{pass_n}.{which}", data
    test = _test(problem, run.name)
    path = None if test is None else (test.input_path if which == "input" else test.answer_path)
    found_file = _read(path, None) if test is not None else None
    if found_file is None:
        raise Refused(404, f"the {which} of test {run.name} is no longer on the server (its package version is gone)")
    return f"{base}.{'in' if which == 'input' else 'ans'}", found_file[0]
