"""What the scoreboard is made from: plain frozen records, filled in by `judge grade` (or a test)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.fuzz.explanation import Explanation
from judge.fuzz.outcome import FuzzOutcome
from judge.judging.results import SubmissionResult
from judge.package.constants import Constants
from judge.scoreboard.passfail import Standings


@dataclass(frozen=True)
class BoardProblem:
    id: str
    name: str
    max_score: float
    metric_name: str | None = None
    metric_better: str = "lower"  # lower | higher
    interactive: bool = False
    statement: Path | None = None  # statement/problem.en.md (legacy: problem_statement/; or .tex)
    package_hash: str = ""
    tests: int = 0
    constants: Constants = field(default_factory=Constants)  # 2025-09: substituted into the statement


@dataclass(frozen=True)
class BoardFuzz:
    """What fuzzing an accepted submission found (`judge grade --fuzz N`). Changes no score or rank."""

    outcome: FuzzOutcome
    max_examples: int  # N: the examples asked for (``outcome.examples``: the ones tried)
    fuzzed_at: str = ""
    fuzz_version: str = ""
    reproduce: str = ""  # a `judge fuzz` command line that finds the same outcome


@dataclass(frozen=True)
class BoardExplanation:
    """The counterexample searched for a rejected submission (`judge grade --explain`, docs/explain.md)."""

    explanation: Explanation
    explained_at: str = ""
    version: str = ""  # the fuzzer's version and the package's fuzz.py it was searched with


@dataclass(frozen=True)
class ExplainSettings:
    """The board was graded with ``--explain``, with this budget per rejected submission."""

    examples: int
    seconds: float


@dataclass(frozen=True)
class FuzzSettings:
    """The board was graded with ``--fuzz examples --fuzz-seed seed``."""

    examples: int
    seed: int


@dataclass(frozen=True)
class BoardRun:
    """The current result of one contestant on one problem."""

    contestant: str
    problem: str
    source: str  # "<contestant>/<file>" inside the contest folder
    result: SubmissionResult
    judge_version: str = ""
    package_hash: str = ""
    source_hash: str = ""
    judged_at: str = ""
    seeds: Mapping[str, Any] = field(default_factory=dict)
    fuzz: BoardFuzz | None = None  # only with --fuzz, for a submission with full score that was fuzzed
    explanation: BoardExplanation | None = None  # only with --explain, for a rejected submission searched


@dataclass(frozen=True)
class Notice:
    """Something not judged (unknown problem, unknown language, unreadable file, ...): shown on the board."""

    kind: str
    path: str
    reason: str
    contestant: str | None = None


@dataclass(frozen=True)
class PassFailBoard:
    """A board ranked the ICPC way (`judge grade --scoreboard pass-fail`, scoreboard/passfail.py); the
    board's ``runs`` then hold, per cell, the attempt that decided it (its first accepted one, else its last)."""

    standings: Standings
    penalty_s: float
    attempts: Mapping[tuple[str, str], int]  # (contestant, problem id) -> how many attempts were judged


@dataclass(frozen=True)
class CellCredit:
    """What a cell counts on an assignment's board (`judge grade --assignment`, docs/course.md): the counted
    submission's score after the late penalty, and in words why (the cell's run is that submission, or the
    last one when none counts)."""

    score: float  # after the penalty: what the total adds up
    raw: float  # the run's own score
    percent: float  # the credit applied (100 on time; 0: the submission does not count)
    minutes_late: int
    note: str  # "on time", "late 61 min: 80 %", "after the close: practice", "extension 2d: on time"


@dataclass(frozen=True)
class AssignmentView:
    """An assignment's board: each cell's credit (a cell without one has no submission) and its rules in words."""

    credits: Mapping[tuple[str, str], CellCredit]
    rules: str  # "due 2026-09-08T23:59:00+00:00; 80 % for 1 d after, then 50 % until ...; counts the last"
    gradebook: str = ""  # the gradebook CSV's file name beside the board ("" none written)


@dataclass(frozen=True)
class Board:
    title: str
    problems: tuple[BoardProblem, ...]
    contestants: tuple[str, ...]
    runs: Mapping[tuple[str, str], BoardRun]  # (contestant, problem id) -> run
    notices: tuple[Notice, ...] = ()
    judge_version: str = ""
    sandbox_warnings: tuple[str, ...] = ()
    fuzz: FuzzSettings | None = None  # None: graded without --fuzz (the board shows nothing of it)
    pass_fail: PassFailBoard | None = None  # None: ranked by score (scoreboard/ranking.py)
    assignment: AssignmentView | None = None  # an assignment's board: totals after the late penalty
    explain: ExplainSettings | None = None  # None: graded without --explain


_SAFE = re.compile(r"[^A-Za-z0-9_-]")


def slug(name: str) -> str:
    """A file name for any contestant name: safe characters only; a short hash keeps different names apart."""
    cleaned = _SAFE.sub("_", name)[:40]
    if cleaned == name and cleaned:
        return cleaned
    return f"{cleaned or 'x'}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"
