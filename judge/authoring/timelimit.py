"""The time limit and the example submissions (2025-09 "Timelimit inference", `judge verify`).

A submission that must not get TLE on some tests (its folder or a ``permitted`` rule without TLE; or
``use_for_time_limit: lower``) bounds the time limit from below: ``T_ac * ac_to_time_limit <= time_limit``,
``T_ac`` its slowest test among those. Without ``time_limit`` (and without a legacy ``.timelimit``) the
limit is the smallest multiple of ``time_resolution`` that satisfies this: `judge verify` first judges those
submissions with a generous limit, finds it, judges everything with it and says so (write it into
problem.yaml: `judge grade` and `judge serve` use ``time_resolution`` otherwise). With a given limit, it
checks the inequality and warns when it fails. ``use_for_time_limit: false`` leaves a submission out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from judge.authoring.expectations import Expectation
from judge.authoring.submissionsyaml import glob_matches
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.package.limits import ProblemLimits

GENEROUS_LIMIT_S = 10.0  # what the lower-bound submissions get while the limit is being found (at least)


def lower_scopes(exp: Expectation) -> tuple[str | None, ...]:
    """The test scopes (a test glob; None: every test) on which the expectation forbids TLE."""
    out: list[str | None] = []
    if exp.results is not None:
        if Verdict.TLE not in exp.results:
            out.append(None)
    elif exp.folder_rule is not None and exp.folder_rule.verdicts is not None:
        if Verdict.TLE not in exp.folder_rule.verdicts:
            out.append(None)
    out.extend(r.tests for r in exp.rules if r.permitted is not None and "TLE" not in r.permitted)
    return tuple(out)


def slowest_test_s(result: SubmissionResult, scopes: Sequence[str | None]) -> float:
    """The CPU time of the submission's slowest judged test within ``scopes``."""
    times = [
        t.time_s
        for t in result.tests
        if not t.skipped and any(scope is None or glob_matches(scope, t.name) for scope in scopes)
    ]
    return max(times, default=0.0)


def spec_time_limit(slowest_s: float, limits: ProblemLimits) -> float:
    """The smallest multiple of ``time_resolution`` at least ``slowest_s * ac_to_time_limit`` (one step at least)."""
    step = limits.time_resolution_s
    steps = max(1, math.ceil(slowest_s * limits.ac_to_time_limit / step - 1e-9))
    return round(steps * step, 6)


def generous(limits: ProblemLimits) -> float:
    """The time limit while the lower-bound submissions are judged to find the real one."""
    return max(GENEROUS_LIMIT_S, 10 * limits.time_resolution_s)


@dataclass(frozen=True)
class Bound:
    """What the lower-bound submissions say: the slowest of them, and on which test time."""

    slowest_s: float = 0.0
    submission: str = ""


def lower_bound(judged: Sequence[tuple[str, Expectation, SubmissionResult | None]]) -> Bound:
    """The slowest lower-bound submission among ``judged`` (name, expectation, result)."""
    best = Bound()
    for name, exp, result in judged:
        scopes = lower_scopes(exp)
        if result is None or not scopes or result.verdict is Verdict.CE:
            continue
        t = slowest_test_s(result, scopes)
        if t > best.slowest_s:
            best = Bound(t, name)
    return best


def check_given(bound: Bound, limits: ProblemLimits) -> str:
    """A line about a given time limit and the slowest lower-bound submission."""
    if not bound.submission:
        return f"time limit {limits.time_s:g} s; no submission bounds it from below"
    needed = bound.slowest_s * limits.ac_to_time_limit
    verdict = "ok" if needed <= limits.time_s + 1e-9 else "WARNING: too tight for the spec"
    return (
        f"time limit {limits.time_s:g} s; slowest lower-bound submission {bound.submission}: {bound.slowest_s:.2f} s "
        f"x ac_to_time_limit {limits.ac_to_time_limit:g} = {needed:.2f} s: {verdict}"
    )


def inferred_note(bound: Bound, limits: ProblemLimits, time_limit_s: float) -> str:
    """A line about a time limit found by the spec's rule."""
    if not bound.submission:
        return f"time limit: none given, and no submission bounds it: {time_limit_s:g} s (time_resolution)"
    return (
        f"time limit: none given; the spec's rule gives {time_limit_s:g} s (slowest lower-bound submission "
        f"{bound.submission}: {bound.slowest_s:.2f} s x ac_to_time_limit {limits.ac_to_time_limit:g}, rounded up "
        f"to a multiple of time_resolution {limits.time_resolution_s:g} s); judged with it. `judge grade` and "
        f"`judge serve` use {limits.time_s:g} s unless problem.yaml says `time_limit: {time_limit_s:g}`"
    )
