"""The closed set of verdicts.

JE (judge error) is the judge's or the package's own failure and is never
charged to a contestant.
"""

from __future__ import annotations

from enum import StrEnum


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
