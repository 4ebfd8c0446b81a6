"""Helpers for the tests of the jury's workbench (issue 47): a scripted JudgeFn whose results carry what
each test's pass printed (as judging/submission.py keeps it when a job asks: ``keep_bytes``), and a
contest written with the workbench's contest.yaml keys."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from serve_fixtures import FIXTURES, FakeClock, fake_result, make_server, write_contest

from judge.judging.jobs import JudgeJob
from judge.judging.results import CaseResult, PassDetail, SubmissionResult
from judge.package.problem import Problem
from judge.serve.model.contest import load_contest
from judge.serve.site.server import Server

WRONG_OUTPUT = b"-1\n"  # what SUM_WA prints, scripted: every test's
STDERR = b"debug: a=1 b=2\n"


def _detail(case: CaseResult, ok: bool, keep_bytes: int, output: bytes) -> PassDetail:
    out = output if not ok else b"3\n"
    return PassDetail(
        n=1,
        verdict=case.verdict,
        output=out[:keep_bytes],
        output_bytes=len(out),
        stderr=STDERR[:keep_bytes],
        stderr_bytes=len(STDERR),
        exit_code=0,
        signal=None,
        time_s=case.time_s,
        wall_time_s=case.wall_time_s,
        memory_kib=case.memory_kib,
        judge_message="" if ok else f"judge: wrong on {case.name}",
        team_message="" if ok else "team: look again",
    )


class DetailedJudge:
    """serve_fixtures.fake_result, with each test's pass printed as a program would have (``output``:
    what a wrong submission prints on every test), kept as the job asks."""

    def __init__(self, problems: Mapping[str, Problem], output: bytes = WRONG_OUTPUT, passes: int = 1) -> None:
        self.problems = problems
        self.output = output
        self.passes = passes  # a multi-pass problem's: each later pass with its own input
        self.calls: list[JudgeJob] = []
        self._lock = threading.Lock()

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        with self._lock:
            self.calls.append(job)
        result = fake_result(job, self.problems[job.problem])
        if job.keep_bytes <= 0:
            return result
        ok = result.verdict.value == "AC"
        tests = tuple(
            replace(
                t,
                details=tuple(
                    replace(
                        _detail(t, ok, job.keep_bytes, self.output),
                        n=n,
                        input=None if n == 1 else f"round {n}\n".encode(),
                        input_bytes=0 if n == 1 else 8,
                    )
                    for n in range(1, self.passes + 1)
                ),
            )
            for t in result.tests
        )
        return replace(result, tests=tests)


def workbench_server(
    tmp_path: Path, clock: FakeClock, *, extra: tuple[str, ...] = (), output: bytes = WRONG_OUTPUT, passes: int = 1
) -> tuple[Server, DetailedJudge]:
    root = write_contest(tmp_path / "contest", extra=extra)
    judge = DetailedJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems}, output, passes)
    return make_server(root, clock, judge), judge
