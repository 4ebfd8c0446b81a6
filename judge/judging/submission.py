"""Judging a submission against a problem: build, run the tests in order, score."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path

from judge.judging.build import Build, Program, build, detect_language, package_program, trusted_program
from judge.judging.environment import Environment
from judge.judging.problemtypes import Context, judge_test
from judge.judging.problemtypes.program import fresh_box
from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.scoring import aggregate_metric, score_submission
from judge.judging.verdict import Verdict
from judge.languages.table import Language
from judge.package.problem import Problem, TestCase
from judge.runner.workdirs import HeldDir, held_or_given


@dataclass(frozen=True)
class Prepared:
    """A problem with its validators built, ready to judge many submissions."""

    problem: Problem
    validator: Program | None
    error: str | None  # the package's validator cannot be built: every submission gets JE
    static_validator: Program | None = None  # 2025-09 static_validator/


def prepare(problem: Problem, env: Environment, workdir: Path) -> Prepared:
    """Build the problem's output validator (and static validator) once, in ``workdir``."""
    static = None
    if problem.static_validator is not None:
        built = trusted_program(problem.static_validator, env.languages, env.tools, env.runner, workdir / "static")
        if built.program is None:
            return Prepared(problem, None, f"static validator: {built.message}")
        static = built.program
    if problem.output_validator is None:
        return Prepared(problem, None, None, static)
    built = package_program(problem, problem.output_validator, env, workdir / "validator")
    if built.program is None:
        return Prepared(problem, None, f"output validator: {built.message}")
    return Prepared(problem, built.program, None, static)


def unjudged(
    problem: Problem, source: str, language: str, verdict: Verdict, message: str, warnings: tuple[str, ...] = ()
) -> SubmissionResult:
    """A result without a run: a compile error, or the judge's (or the package's) failure."""
    return SubmissionResult(
        problem=problem.id,
        source=source,
        language=language,
        verdict=verdict,
        score=0.0,
        max_score=problem.secret.max_score,
        time_s=0.0,
        memory_kib=0,
        compile_message=message,
        metric_name=problem.metric.name if problem.metric else None,
        sandbox_warnings=warnings,
    )


def _failed_build(problem: Problem, source: Path, built: Build, warnings: tuple[str, ...]) -> SubmissionResult:
    assert built.verdict is not None
    return unjudged(problem, str(source), built.language, built.verdict, built.message, warnings)


def _tests_to_run(problem: Problem) -> list[TestCase]:
    return list(problem.judged_cases())


def _blocked(problem: Problem, test: TestCase, results: dict[str, CaseResult]) -> bool:
    """2025-09 ``require_pass``: a test of a group (or of ``secret``) that requires groups not all accepted
    (a test of theirs rejected, or not judged) is not judged; it counts as not accepted."""
    names = [test.group]
    if test.group.startswith("secret/"):
        names.append("secret")
    required = [r for name in names for r in problem.group(name).require_pass]
    for name in required:
        for t in problem.group(name).judged_cases():
            r = results.get(t.name)
            if r is None or r.skipped or r.verdict is not Verdict.AC:
                return True
    return False


@dataclass(frozen=True)
class JudgeOptions:
    """How to judge a submission, beyond the problem, the source and the environment."""

    language: Language | None = None  # None: the one the source's extension names
    # also judge the tests that the contest would not (after a rejection in a group with ``on_reject: break``);
    # they are marked ``skipped`` and count for nothing (`judge verify --all-tests`)
    all_tests: bool = False
    # stop at the first test that fails, whatever the problem and its groups say: the verdict is then known
    # (a pass-fail contest's lazy judging; the score is only what the tests run so far earned)
    stop_at_failure: bool = False
    workdir: Path | None = None  # None: a temporary folder, removed afterwards
    on_test: Callable[[CaseResult], None] | None = None  # called with each test's result as soon as it is known
    entry_point: str | None = None  # the file (or class) a folder submission runs (2025-09 ``entrypoint``)
    # keep each pass's output and stderr for the jury, their first this many bytes (0: none; issue 47:
    # `judge serve` keeps them per judgement, `judge grade` does not)
    keep_bytes: int = 0


def judge_submission(
    prepared: Prepared, source: Path, env: Environment, *, options: JudgeOptions = JudgeOptions()
) -> SubmissionResult:
    """Judge one submission. Raises build.SkipLanguage for an unknown language or a missing toolchain.
    Callers: jobs.judge_job (and tests)."""
    problem = prepared.problem
    lang = options.language or detect_language(source, env.languages)
    warnings = _sandbox_warnings(problem, env)
    # both held (flocked) while they exist: a judge started after this one was killed removes them (workdirs.py)
    with ExitStack() as folders:
        work = folders.enter_context(held_or_given("judge-", options.workdir))
        # owner-only (issue 43): the submission's source, its build and the tests' data and outputs are inside.
        # The sandbox's unprivileged uid never walks this path: the namespace backends give it the box as a
        # mount (bwrap's bind, the box server's detached mount); the rlimits fallback opens the path to others
        # itself (runner/osutil.let_others_traverse)
        work.chmod(0o700)
        # the tests' folders (what the judge and the validators write), on a tmpfs when there is one: the
        # program's own files stay in ``work`` (Context.program_dir)
        scratch = folders.enter_context(HeldDir("judge-", env.scratch)) if env.scratch is not None else None
        if prepared.error is not None:
            je = Build(None, Verdict.JE, prepared.error, lang.id)
            return _failed_build(problem, source, je, warnings)
        built = build(source, lang, env, problem=problem, workdir=work, entry_point=options.entry_point)
        if built.program is None:
            return _failed_build(problem, source, built, warnings)
        # a program that may not write its box gets the same (sealed) box in every run: none can change it
        sealed = None if problem.allow_file_writing else fresh_box(built.program, work / "box")
        ctx = Context(
            problem,
            built.program,
            prepared.validator,
            env.runner,
            work,
            prepared.static_validator,
            keep_bytes=options.keep_bytes,
            sealed_box=sealed,
        )
        results = _judge_tests(ctx, options, scratch)
        scored = score_submission(problem, results)
        ordered = tuple(results[t.name] for t in problem.judged_cases() if t.name in results)
        return SubmissionResult(
            problem=problem.id,
            source=str(source),
            language=lang.id,
            verdict=scored.verdict,
            score=scored.score,
            max_score=scored.max_score,
            time_s=max((r.time_s for r in ordered if not r.skipped), default=0.0),
            memory_kib=max((r.memory_kib for r in ordered if not r.skipped), default=0),
            compile_message=built.message,
            tests=ordered,
            test_scores=tuple(scored.test_scores.get(r.name, 0.0) for r in ordered),
            groups=scored.groups,
            metric=aggregate_metric(problem.metric, ordered),
            metric_name=problem.metric.name if problem.metric else None,
            sandbox_warnings=warnings,
        )


def _sandbox_warnings(problem: Problem, env: Environment) -> tuple[str, ...]:
    """The sandbox's warnings, and what they mean for this problem."""
    warnings = tuple(env.runner.info.warnings)
    if problem.multi_pass and not env.runner.info.isolated:
        warnings += (
            "multi-pass without a namespace sandbox: passes share /tmp and the file system, "
            "so a program can carry data from one pass to the next",
        )
    return warnings


def _judge_tests(ctx: Context, options: JudgeOptions, scratch: Path | None = None) -> dict[str, CaseResult]:
    """Judge the tests in order, each in a folder of its own inside ``scratch`` (and one for the program's own
    files inside ``ctx.workdir``), or inside ``ctx.workdir`` alone, until judging stops: at
    the first rejection of a pass-fail problem (or of any problem with ``options.stop_at_failure``), or of a
    group with ``on_reject: break`` (its other tests)."""
    problem = ctx.problem
    results: dict[str, CaseResult] = {}
    stopped_groups: set[str] = set()
    stop_all = False
    for i, test in enumerate(_tests_to_run(problem)):
        beyond = stop_all or any(test.group == g or test.group.startswith(g + "/") for g in stopped_groups)
        beyond = beyond or _blocked(problem, test, results)
        if beyond and not options.all_tests:
            continue
        test_dir = (scratch or ctx.workdir) / f"t{i:04d}"
        test_dir.mkdir()
        own = ctx.workdir / f"t{i:04d}" if scratch is not None else None
        if own is not None:
            own.mkdir()
        result = judge_test(replace(ctx, workdir=test_dir, program_dir=own), test)
        shutil.rmtree(test_dir, ignore_errors=True)
        if own is not None:
            shutil.rmtree(own, ignore_errors=True)
        if beyond:
            result = replace(result, skipped=True)
        results[test.name] = result
        if options.on_test is not None:
            options.on_test(result)
        if beyond:
            continue
        if result.verdict is not Verdict.AC and (options.stop_at_failure or problem.group(test.group).on_reject_break):
            if options.stop_at_failure or not problem.scoring:
                stop_all = True
            else:
                stopped_groups.add(test.group)
    return results
