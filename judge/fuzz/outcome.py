"""Results of ``judge fuzz``: frozen records and their JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from judge.judging.verdict import Verdict


class FuzzStatus(StrEnum):
    PASSED = "passed"  # no disagreement in the examples run
    COUNTEREXAMPLE = "counterexample"  # the submission disagrees with the reference on some input
    NOT_BUILT = "not_built"  # compile error (or the judge could not build it)
    UNAVAILABLE = "unavailable"  # the package has no fuzz.py
    ERROR = "error"  # the package's fault (fuzz.py, validator): a judge error, not the contestant's
    CANCELLED = "cancelled"  # the caller's ``cancelled()`` turned true before the budget was spent (`judge serve`)


def show_bytes(data: bytes | None, limit: int = 2000, max_lines: int = 30) -> str:
    """Bytes as text for a report: UTF-8 when it decodes cleanly, else escaped; cut to a readable size."""
    if data is None:
        return "(none)"
    try:
        text = data.decode("utf-8")
        clean = not any(ord(c) < 32 and c not in "\n\t" for c in text)
    except UnicodeDecodeError:
        clean = False
    if not clean:
        text = repr(data)
    lines = text.splitlines()
    if len(lines) > max_lines:
        text = "\n".join(lines[:max_lines]) + f"\n... ({len(lines) - max_lines} more lines)"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text) - limit} more characters)"


def json_bytes(key: str, data: bytes | None) -> dict[str, str | None]:
    """``key``: the text (None when it is not UTF-8), ``key_hex``: the exact bytes."""
    if data is None:
        return {key: None, f"{key}_hex": None}
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return {key: text, f"{key}_hex": data.hex()}


def bytes_from_json(doc: Mapping[str, Any], key: str) -> bytes | None:
    """The inverse of ``json_bytes``."""
    hexed = doc.get(f"{key}_hex")
    return None if hexed is None else bytes.fromhex(hexed)


@dataclass(frozen=True)
class Counterexample:
    input: bytes  # the shrunk test input (.in)
    answer: bytes  # the reference's answer (.ans)
    output: bytes | None  # what the submission gave (None: it crashed / timed out first)
    verdict: Verdict
    message: str
    confirmed: bool  # the full judging path (the package's own output validator) gives the same rejection
    transcript: str = ""  # interactive and multi-pass problems: the exchange, as the package's validator made it

    def to_json(self) -> dict[str, Any]:
        return {
            **json_bytes("input", self.input),
            **json_bytes("answer", self.answer),
            **json_bytes("output", self.output),
            "verdict": self.verdict.value,
            "message": self.message,
            "confirmed": self.confirmed,
            "transcript": self.transcript,
        }


@dataclass(frozen=True)
class FuzzOutcome:
    problem: str
    source: str
    language: str
    status: FuzzStatus
    seed: int
    checker: str  # what judged the examples: "fuzz.py accepts()" or "output validator"
    examples: int = 0  # examples tried before the first disagreement (all of them when none; CANCELLED: so far)
    runs: int = 0  # of those, the ones that ran the program (the rest repeated an input already judged)
    elapsed_s: float = 0.0  # time spent on those examples
    shrink_runs: int = 0  # program runs spent shrinking the counterexample
    replayed: bool = False  # the counterexample came from the example database (an earlier failure)
    counterexample: Counterexample | None = None
    message: str = ""  # compile output (NOT_BUILT), the reason (ERROR, UNAVAILABLE)
    saved_as: tuple[str, ...] = ()  # files written by --save

    @property
    def examples_per_s(self) -> float:
        return self.runs / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def failed(self) -> bool:
        return self.status is FuzzStatus.COUNTEREXAMPLE

    def scoreboard_note(self) -> str:
        """One short line for a scoreboard cell (``judge grade --fuzz``)."""
        match self.status:
            case FuzzStatus.PASSED:
                return f"fuzz: {self.examples} ok"
            case FuzzStatus.COUNTEREXAMPLE:
                return "fuzz: counterexample"
            case FuzzStatus.NOT_BUILT:
                return "fuzz: not built"
            case FuzzStatus.UNAVAILABLE:
                return ""
        return "fuzz: judge error"

    def to_json(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "source": self.source,
            "language": self.language,
            "status": self.status.value,
            "seed": self.seed,
            "checker": self.checker,
            "examples": self.examples,
            "runs": self.runs,
            "elapsed_s": round(self.elapsed_s, 3),
            "examples_per_s": round(self.examples_per_s, 2),
            "shrink_runs": self.shrink_runs,
            "replayed": self.replayed,
            "counterexample": None if self.counterexample is None else self.counterexample.to_json(),
            "message": self.message,
            "saved_as": list(self.saved_as),
        }
