"""Results of judging: per test and per submission. Frozen records and their JSON form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judge.judging.verdict import Verdict


@dataclass(frozen=True)
class PassDetail:
    """What one pass of a test left for the jury to read (issue 47), kept only when the caller asks
    (``JudgeOptions.keep_bytes`` > 0): the program's output and stderr (their first ``keep_bytes``, with
    the sizes written), how it ended, and what the validator said. An interactive pass has no output here
    (its traffic is the test's transcript); a multi-pass test's later passes carry their input (the
    previous pass's ``nextpass.in``)."""

    n: int  # the pass, from 1
    verdict: Verdict
    output: bytes
    output_bytes: int  # what the program wrote (more than ``output`` holds when it was cut)
    stderr: bytes
    stderr_bytes: int
    exit_code: int | None  # None: killed by a signal, or it did not run
    signal: int | None
    time_s: float
    wall_time_s: float
    memory_kib: int
    judge_message: str = ""  # the validator's judgemessage.txt (this pass's part of it)
    team_message: str = ""  # teammessage.txt
    input: bytes | None = None  # a later pass's input (multi-pass), its first ``keep_bytes``; None: the test's .in
    input_bytes: int = 0


@dataclass(frozen=True)
class CaseResult:
    name: str  # "secret/group1/003"
    group: str  # "secret/group1"
    verdict: Verdict
    fraction: float  # of the test's maximum, in [0, 1]; 0 unless AC
    time_s: float  # CPU time (max over passes)
    wall_time_s: float
    memory_kib: int
    message: str = ""  # for the contestant and the organizer (judgemessage / why it failed)
    metric: float | None = None  # from the validator's metric.txt
    transcript: str = ""  # interactive problems: the first lines of the traffic
    passes: int = 1
    # beyond where judging stops (an earlier test of its group was rejected, on_reject: break): such tests are
    # normally not run; `judge verify --all-tests` runs them, and then they count for nothing
    skipped: bool = False
    details: tuple[PassDetail, ...] = ()  # per pass, when the caller asked to keep them (issue 47)

    def to_json(self, score: float) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "verdict": self.verdict.value,
            "score": round(score, 6),
            "time_s": round(self.time_s, 4),
            "memory_kib": self.memory_kib,
            "message": self.message,
        }


@dataclass(frozen=True)
class GroupScore:
    name: str
    score: float
    max_score: float
    verdict: Verdict


@dataclass(frozen=True)
class SubmissionResult:
    problem: str
    source: str
    language: str
    verdict: Verdict
    score: float
    max_score: float
    time_s: float  # max CPU time over the tests
    memory_kib: int  # max peak memory over the tests
    compile_message: str = ""
    tests: tuple[CaseResult, ...] = ()
    test_scores: tuple[float, ...] = ()  # absolute score of each test, same order as tests
    groups: tuple[GroupScore, ...] = ()
    metric: float | None = None
    metric_name: str | None = None
    sandbox_warnings: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        """The stable `judge run --json` object (scripts depend on these keys)."""
        return {
            "problem": self.problem,
            "source": self.source,
            "language": self.language,
            "verdict": self.verdict.value,
            "score": round(self.score, 6),
            "max_score": round(self.max_score, 6),
            "time_s": round(self.time_s, 4),
            "memory_kib": self.memory_kib,
            "compile_message": self.compile_message,
            "tests": [t.to_json(s) for t, s in zip(self.tests, self.test_scores, strict=True)],
            "metric": None if self.metric is None else {"name": self.metric_name, "value": self.metric},
            "groups": [
                {"name": g.name, "score": round(g.score, 6), "max_score": g.max_score, "verdict": g.verdict.value}
                for g in self.groups
            ],
            "sandbox_warnings": list(self.sandbox_warnings),
        }
