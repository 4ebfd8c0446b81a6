"""`judge grade`'s reuse rule with a scripted FakeRunner: no root, no sandbox, no processes.

A stored result is reused while the submission's source, the package, the judge's version and the
language's toolchain are what it was judged under; a change to any of them judges it again. A stored JE
is judged again (it was the judge's failure, not the contestant's), and ``rejudge`` judges everything.
The program's runs are scripted, so every judging that happens is counted and none can go unnoticed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from pathlib import Path

import pytest
from conftest import fake_environment, put
from fakes import FakeRunner, Reply, make_package, ran

from judge.grade.discovery import discover, load_problems
from judge.grade.options import GradeOptions
from judge.grade.schedule import Grading, Summary, grade
from judge.grade.storage import Store
from judge.judging.jobs import JudgeJob
from judge.judging.judges import LocalJudges
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.package.problem import Problem
from judge.runner.spec import LimitHit

RIGHT, WRONG = ran(b"3\n"), ran(b"4\n")  # the one test's answer is 3


class ScriptedJudges:
    """This machine's judges (grade.judges.LocalJudges over the FakeRunner), under a judge version and a
    toolchain fingerprint the test chooses."""

    def __init__(self, problems: Mapping[str, Problem], env: Environment, version: str, toolchain: str) -> None:
        self._local = LocalJudges(problems, env)
        self.judge_version = version
        self.warnings: tuple[str, ...] = ()
        self._toolchain = toolchain

    def fingerprint(self, language: str) -> str:
        return self._toolchain

    def slots(self) -> int:
        return 1

    def judge(self, job: JudgeJob, toolchain: str) -> SubmissionResult:
        return self._local.judge(job, toolchain)

    def close(self) -> None:
        self._local.close()


class Contest:
    """A one-problem contest (``sum``: one test, answer 3) in ``tmp_path``, graded into one database."""

    def __init__(self, tmp_path: Path) -> None:
        self.problems = tmp_path / "problems"
        self.root = tmp_path / "contest"
        self.db = tmp_path / "grade.sqlite"
        make_package(self.problems / "sum", {"name": "Sum"}, {"secret/01": (b"1 2\n", b"3\n")}, validator=False)
        put(self.root, "ann", "sum.py", "print(3)\n")

    def grade(
        self, replies: Sequence[Reply] = (), *, version: str = "v1", toolchain: str = "t1", rejudge: bool = False
    ) -> tuple[Summary, FakeRunner]:
        """One `judge grade` whose program runs answer ``replies`` in turn (an unscripted run is a failure)."""
        runner = FakeRunner(programs=replies)
        env = fake_environment(runner)
        problems, issues = load_problems(self.problems)
        assert not issues
        grading = Grading(discover(self.root, problems, env.languages), problems, env)
        with Store(self.db) as store, closing(ScriptedJudges(problems, env, version, toolchain)) as judges:
            summary = grade(grading, store, GradeOptions(rejudge=rejudge), judges=judges)
        return summary, runner


def program_runs(runner: FakeRunner) -> int:
    return len(runner.stdins)


def verdicts(summary: Summary) -> dict[str, Verdict]:
    return {contestant: run.result.verdict for (contestant, _), run in summary.runs.items()}


@pytest.mark.parametrize(
    "reply, verdict", [(RIGHT, Verdict.AC), (WRONG, Verdict.WA), (ran(limit=LimitHit.CPU_TIME), Verdict.TLE)]
)
def test_a_stored_verdict_is_reused_while_nothing_it_depends_on_changes(
    tmp_path: Path, reply: Reply, verdict: Verdict
) -> None:
    contest = Contest(tmp_path)
    first, runner = contest.grade([reply])
    assert (first.judged, first.reused, program_runs(runner)) == (1, 0, 1)
    assert verdicts(first) == {"ann": verdict}
    again, runner = contest.grade()  # no run scripted: judging it again would fail the test
    assert (again.judged, again.reused, program_runs(runner)) == (0, 1, 0)
    assert verdicts(again) == {"ann": verdict}
    key = again.runs[("ann", "sum")].key
    assert (key.judge_version, key.toolchain_hash) == ("v1", "t1")


# Each change returns the judge version and toolchain fingerprint the next gradings run under.
def edit_source(contest: Contest) -> tuple[str, str]:
    put(contest.root, "ann", "sum.py", "print(1 + 2)\n")
    return "v1", "t1"


def edit_package(contest: Contest) -> tuple[str, str]:
    (contest.problems / "sum" / "data" / "secret" / "01.ans").write_text("3 \n")  # the same answer, other bytes
    return "v1", "t1"


def new_judge(contest: Contest) -> tuple[str, str]:
    return "v2", "t1"


def new_toolchain(contest: Contest) -> tuple[str, str]:
    return "v1", "t2"


@pytest.mark.parametrize("change", [edit_source, edit_package, new_judge, new_toolchain])
def test_a_change_to_what_a_verdict_depends_on_judges_again(
    tmp_path: Path, change: Callable[[Contest], tuple[str, str]]
) -> None:
    contest = Contest(tmp_path)
    assert contest.grade([WRONG])[0].judged == 1
    version, toolchain = change(contest)
    again, runner = contest.grade([RIGHT], version=version, toolchain=toolchain)
    assert (again.judged, again.reused, program_runs(runner)) == (1, 0, 1)
    assert verdicts(again) == {"ann": Verdict.AC}  # the new result, not the stored one
    steady, runner = contest.grade(version=version, toolchain=toolchain)
    assert (steady.judged, steady.reused, program_runs(runner)) == (0, 1, 0)
    assert verdicts(steady) == {"ann": Verdict.AC}


def test_only_the_edited_submission_is_judged_again(tmp_path: Path) -> None:
    contest = Contest(tmp_path)
    put(contest.root, "bob", "sum.py", "print(3)\n")
    first, _ = contest.grade([RIGHT, RIGHT])
    assert verdicts(first) == {"ann": Verdict.AC, "bob": Verdict.AC}
    put(contest.root, "bob", "sum.py", "print(4)\n")
    again, runner = contest.grade([WRONG])
    assert (again.judged, again.reused, program_runs(runner)) == (1, 1, 1)
    assert verdicts(again) == {"ann": Verdict.AC, "bob": Verdict.WA}


def test_a_stored_judge_error_is_judged_again(tmp_path: Path) -> None:
    contest = Contest(tmp_path)
    failed, _ = contest.grade([ran(sandbox_error="the launcher failed (scripted)")])
    assert verdicts(failed) == {"ann": Verdict.JE} and failed.judge_errors == 1
    again, runner = contest.grade([RIGHT])
    assert (again.judged, again.reused, program_runs(runner)) == (1, 0, 1)
    assert verdicts(again) == {"ann": Verdict.AC} and again.judge_errors == 0
    steady, _ = contest.grade()
    assert (steady.judged, steady.reused) == (0, 1)


def test_rejudge_judges_everything_again(tmp_path: Path) -> None:
    contest = Contest(tmp_path)
    contest.grade([WRONG])
    again, runner = contest.grade([RIGHT], rejudge=True)
    assert (again.judged, again.reused, program_runs(runner)) == (1, 0, 1)
    assert verdicts(again) == {"ann": Verdict.AC}
    with Store(contest.db) as store:
        assert store.counts()[0] == 1  # replaced under the same key, not stored twice
