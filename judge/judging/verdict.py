"""The closed set of verdicts, and the verdict a run earns by itself (its limits, its exit).

JE (judge error) is the judge's or the package's own failure and is never
charged to a contestant.
"""

from __future__ import annotations

from enum import StrEnum

from judge.runner.spec import LimitHit, RunResult


class Verdict(StrEnum):
    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    TLE = "TLE"  # time limit exceeded (CPU or wall)
    MLE = "MLE"  # memory limit exceeded
    RTE = "RTE"  # run-time error (non-zero exit, signal)
    OLE = "OLE"  # output limit exceeded
    PV = "PV"  # protocol violation (interactive problems)
    CE = "CE"  # compile error
    JE = "JE"  # judge error: never the contestant's fault

    @property
    def charged(self) -> bool:
        """Whether this verdict counts against the contestant."""
        return self is not Verdict.JE


def limit_verdict(result: RunResult) -> Verdict | None:
    """The verdict a run earns by itself, before anyone looks at its output.

    None means "ran to completion with exit status 0".
    """
    if result.sandbox_error is not None:
        return Verdict.JE
    match result.limit_hit:
        case LimitHit.CPU_TIME | LimitHit.WALL_TIME:
            return Verdict.TLE
        case LimitHit.MEMORY:
            return Verdict.MLE
        case LimitHit.OUTPUT:
            return Verdict.OLE
        case LimitHit.PROCESSES:
            return Verdict.RTE
    if result.signal is not None or result.exit_code != 0:
        return Verdict.RTE
    return None
