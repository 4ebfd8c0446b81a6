"""How a contest is graded: ``GradeOptions``, ``GradeFuzzOptions`` and the defaults `judge grade` shows.

It imports nothing heavy, so that the command line's argument tree can read the defaults without loading
the grader (judge/commands/defaults.py says why).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

GRADE_DB_NAME = "grade.sqlite"  # `judge grade`: OUT/grade.sqlite
FUZZ_SEED = 1  # `judge grade --fuzz-seed`: fixed, so that the same contest gives the same board
PENALTY_MINUTES = 20.0  # `judge grade --scoreboard pass-fail --penalty-minutes`: the ICPC's


@dataclass(frozen=True)
class GradeOptions:
    """How the submissions are judged (``schedule.grade``)."""

    jobs: int = 1  # submissions judged at once by this machine's threads (a cluster has its own slots)
    rejudge: bool = False  # judge everything again, ignoring stored results


@dataclass(frozen=True)
class GradeFuzzOptions:
    """`judge grade --fuzz N` (``fuzzing.fuzz_contest``): N examples per submission with the full score."""

    examples: int
    seed: int = FUZZ_SEED
    jobs: int = 1  # submissions fuzzed at once
    refuzz: bool = False  # fuzz again, ignoring stored outcomes


@dataclass(frozen=True)
class PassFailSettings:
    """`judge grade --scoreboard pass-fail`: the penalty of a rejected attempt, and when each submission was
    made (contest seconds by ``<contestant>/<file>``: grade/times.py)."""

    penalty_s: float = PENALTY_MINUTES * 60
    times: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class BoardOptions:
    """How the board names things and ranks (``report.build_board``)."""

    title: str = "Scoreboard"
    problems_dir: Path = Path("problems")  # the packages' folder, for the `judge fuzz` command lines shown
    pass_fail: PassFailSettings | None = None  # None: ranked by score
