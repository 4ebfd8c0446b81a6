"""Two submissions compared (issue 47), for the jury: their sources as diffs (file by file, matched by name)
and their tests' verdicts side by side (each submission's current judgement, matched by test); and a
submission's previous try (the same team's last submission of the same problem before it)."""

from __future__ import annotations

from dataclasses import dataclass

from judge.serve.model.records import RunRecord
from judge.serve.model.textdiff import TextDiff, diff_text
from judge.serve.services.judging import results
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.results import JudgementDetail, StaffDetail
from judge.serve.services.people import access
from judge.serve.visibility import Sight

SOURCE_BYTES = 256 * 1024  # what is compared of each file (a submission is at most code_limit KiB)
SOURCE_LINES = 5000
SOURCE_CONTEXT = 4


@dataclass(frozen=True)
class FileDiff:
    name: str
    diff: TextDiff
    only: str | None  # "a" or "b": the file is in one submission only


@dataclass(frozen=True)
class TestPair:
    """One test of either current judgement: its run in each (None: not run there)."""

    name: str
    a: RunRecord | None
    b: RunRecord | None

    @property
    def differs(self) -> bool:
        return (self.a.verdict if self.a else None) != (self.b.verdict if self.b else None)


@dataclass(frozen=True)
class Comparison:
    a: StaffDetail
    b: StaffDetail
    files: list[FileDiff]
    tests: list[TestPair]


def _current(d: StaffDetail) -> JudgementDetail | None:
    return next((j for j in d.judgements if j.judgement.current), None)


def _tests(a: JudgementDetail | None, b: JudgementDetail | None) -> list[TestPair]:
    runs_a = {r.name: r for r in a.runs} if a else {}
    runs_b = {r.name: r for r in b.runs} if b else {}
    order = sorted(
        set(runs_a) | set(runs_b), key=lambda n: (min(r.ordinal for r in (runs_a.get(n), runs_b.get(n)) if r), n)
    )
    return [TestPair(n, runs_a.get(n), runs_b.get(n)) for n in order]


def _files(a: StaffDetail, b: StaffDetail) -> list[FileDiff]:
    texts_a = {f.name: f.text for f in a.files}
    texts_b = {f.name: f.text for f in b.files}
    out = []
    for name in [*texts_a, *(n for n in texts_b if n not in texts_a)]:
        left, right = texts_a.get(name, ""), texts_b.get(name, "")
        diff = diff_text(
            left.encode(),
            right.encode(),
            limit_bytes=SOURCE_BYTES,
            max_lines=SOURCE_LINES,
            context=SOURCE_CONTEXT,
        )
        only = "a" if name not in texts_b else "b" if name not in texts_a else None
        out.append(FileDiff(name, diff, only))
    return out


def compare(server: ServedJudging, sight: Sight, a: int | None, b: int | None, *, what: tuple[str, str]) -> Comparison:
    """Submissions ``a`` and ``b`` side by side (any two the jury sees; ``what``: their ids as asked)."""
    access.staff(sight.viewer, "compare submissions")
    da = results.staff_detail(server, sight, a, what=what[0])
    db = results.staff_detail(server, sight, b, what=what[1])
    return Comparison(da, db, _files(da, db), _tests(_current(da), _current(db)))


def previous_try(server: ServedJudging, sight: Sight, submission_id: int) -> int | None:
    """The same team's last submission of the same problem before ``submission_id`` (the jury's)."""
    access.staff(sight.viewer, "compare submissions")
    with server.storage.read() as r:
        subs = r.submissions(ids=[submission_id])
        if not subs:
            return None
        mine = r.submissions(team_id=subs[0].team_id, problem_id=subs[0].problem_id)
    earlier = [s.id for s in mine if s.id < submission_id]
    return max(earlier) if earlier else None
