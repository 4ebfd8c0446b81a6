"""A counterexample for a rejected submission (issue 46, docs/explain.md): the frozen result, its JSON form,
which verdicts are explained, and which inputs are never shown (those of the package's own tests).

Pure, and light: no Hypothesis (the boards and `judge serve`'s model read these records without loading
the fuzzer). The search itself is ``judge.fuzz.explain``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from judge.fuzz.options import ExplainBudget
from judge.fuzz.outcome import bytes_from_json, json_bytes
from judge.judging.verdict import Verdict
from judge.package.problem import Problem

# The submissions searched: rejected with these (TLE too where fuzz.py says EXPLAIN_TLE).
EXPLAINED = (Verdict.WA, Verdict.RTE, Verdict.PV)
# What a counterexample may show the program doing (TLE too where fuzz.py says EXPLAIN_TLE). A time-out
# otherwise is not one: it may be the machine's load, and a counterexample must fail every time.
SHOWN = (Verdict.WA, Verdict.PV, Verdict.RTE, Verdict.MLE, Verdict.OLE)


def explained(verdict: Verdict, *, explain_tle: bool) -> bool:
    """Whether a submission rejected with ``verdict`` is searched."""
    return verdict in EXPLAINED or (explain_tle and verdict is Verdict.TLE)


def shown(verdict: Verdict, *, explain_tle: bool) -> bool:
    """Whether an input on which the program gets ``verdict`` is a counterexample to show."""
    return verdict in SHOWN or (explain_tle and verdict is Verdict.TLE)


class ExplainStatus(StrEnum):
    FOUND = "found"  # an input the program fails on, shrunk, not one of the package's tests
    WITHHELD = "withheld"  # the program failed only on inputs equal to one of the package's tests: not shown
    NOT_FOUND = "not_found"  # the budget was spent without a counterexample
    NOT_BUILT = "not_built"  # the program did not build (a compile error is its own explanation)
    UNAVAILABLE = "unavailable"  # not searched: the problem has no fuzz.py, or the verdict is not explained
    CANCELLED = "cancelled"  # the caller stopped the search (`judge serve`: rejudged meanwhile)
    ERROR = "error"  # the package's fuzz.py or validators failed, or the judge did: never the contestant's fault


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _tokens(data: bytes) -> bytes:
    return b" ".join(data.split())


@dataclass(frozen=True)
class KnownInputs:
    """The inputs of a package's tests (samples and secret), by digest: a counterexample equal to one byte
    for byte, or with the same whitespace-separated tokens (what a program reading tokens, or taking them as
    arguments, cannot tell apart), is withheld."""

    exact: frozenset[bytes] = frozenset()
    tokens: frozenset[bytes] = frozenset()

    def holds(self, test_input: bytes) -> bool:
        return _digest(test_input) in self.exact or _digest(_tokens(test_input)) in self.tokens

    @classmethod
    def of(cls, inputs: Iterable[bytes]) -> KnownInputs:
        data = list(inputs)
        return cls(frozenset(map(_digest, data)), frozenset(_digest(_tokens(d)) for d in data))


def known_inputs(problem: Problem) -> KnownInputs:
    """The package's test inputs (every sample and secret test; a static validation case has none)."""
    return KnownInputs.of(_read(t.input_path) for t in problem.tests() if not t.static)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""  # judging reports an unreadable test; here it can only be withheld by nothing


@dataclass(frozen=True)
class Explanation:
    """What the search for one rejected submission found (FOUND: the counterexample's fields are set)."""

    status: ExplainStatus
    problem: str
    verdict: Verdict  # the submission's, the one explained
    budget: ExplainBudget
    seed: int
    input: bytes | None = None  # the shrunk input (.in): valid by the package's input validators
    answer: bytes | None = None  # the reference's answer to it (.ans)
    output: bytes | None = None  # what the program wrote (None: it crashed or ran out first)
    failure: Verdict | None = None  # what the program got on the input (WA, RTE, ...)
    message: str = ""  # the output validator's message, or how the program failed
    transcript: str = ""  # interactive and multi-pass problems: the exchange, as the package's validator made it
    examples: int = 0  # inputs tried before the first failure (all of them when none was found)
    withheld: int = 0  # failures seen on inputs equal to a test's (never shown)
    elapsed_s: float = 0.0  # the whole search: build, examples, shrinking, confirming
    found_after_s: float = 0.0  # FOUND: from the start (the build included) to the first failing input judged
    note: str = ""  # why not (UNAVAILABLE, NOT_BUILT, ERROR, NOT_FOUND)

    @property
    def found(self) -> bool:
        return self.status is ExplainStatus.FOUND

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "problem": self.problem,
            "verdict": self.verdict.value,
            "budget": self.budget.to_json(),
            "seed": self.seed,
            **json_bytes("input", self.input),
            **json_bytes("answer", self.answer),
            **json_bytes("output", self.output),
            "failure": None if self.failure is None else self.failure.value,
            "message": self.message,
            "transcript": self.transcript,
            "examples": self.examples,
            "withheld": self.withheld,
            "elapsed_s": round(self.elapsed_s, 3),
            "found_after_s": round(self.found_after_s, 3),
            "note": self.note,
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> Explanation:
        """The inverse of ``to_json`` (what `judge grade` stores). Raises KeyError or ValueError on a bad one."""
        budget = doc["budget"]
        failure = doc.get("failure")
        return cls(
            status=ExplainStatus(doc["status"]),
            problem=str(doc["problem"]),
            verdict=Verdict(doc["verdict"]),
            budget=ExplainBudget(int(budget["examples"]), float(budget["seconds"])),
            seed=int(doc["seed"]),
            input=bytes_from_json(doc, "input"),
            answer=bytes_from_json(doc, "answer"),
            output=bytes_from_json(doc, "output"),
            failure=None if failure is None else Verdict(failure),
            message=str(doc.get("message", "")),
            transcript=str(doc.get("transcript", "")),
            examples=int(doc.get("examples", 0)),
            withheld=int(doc.get("withheld", 0)),
            elapsed_s=float(doc.get("elapsed_s", 0.0)),
            found_after_s=float(doc.get("found_after_s", 0.0)),
            note=str(doc.get("note", "")),
        )
