"""How one submission is fuzzed: ``FuzzOptions`` and the defaults `judge fuzz` shows.

It imports nothing heavy (no Hypothesis), so that the command line's argument tree can read the defaults
without loading the fuzzer (judge/commands/defaults.py says why).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FUZZ_EXAMPLES = 100  # examples per fuzzing run, unless told (`judge fuzz --examples` shows its own default)
FUZZ_SHRINK_TIME_S = 120.0  # after this, inputs not judged yet count as passing: shrinking ends quickly
LIVE_FUZZ_EXAMPLES = 200  # `judge serve --fuzz`: examples per accepted submission (--fuzz-examples)
LIVE_FUZZ_SECONDS = 60.0  # `judge serve --fuzz`: seconds per accepted submission, counted while fuzzing runs
EXPLAIN_EXAMPLES = 1000  # counterexamples for rejected submissions (docs/explain.md): examples per submission
EXPLAIN_SECONDS = 60.0  # and seconds per submission, the build and the shrinking included
EXPLAIN_SEED = 1  # fixed: the same submission and package give the same search


@dataclass(frozen=True)
class FuzzOptions:
    """The settings of one fuzzing run (``fuzz_submission``), built at the edge (`judge fuzz`, `judge grade --fuzz`).

    ``jobs``: submission runs under way at once. ``pipeline``: one Hypothesis search more than ``jobs``, so
    that one search draws its next example while another's run is under way. The outcome depends on
    ``seed``, ``jobs`` and ``pipeline``, not on timing.
    """

    examples: int = FUZZ_EXAMPLES
    seed: int | None = None  # None: a random one (the outcome says which)
    jobs: int = 1
    pipeline: bool = True
    use_database: bool = True  # replay and record failures in Hypothesis' example database
    database_dir: Path | None = None  # that database (None: ``<cache>/hypothesis``, see engine.default_cache_dir)
    use_accepts: bool = True  # judge examples with fuzz.py's accepts() where it has one (else the validator)
    check_inputs: bool = False  # run the input validators on every example (else on the counterexample only)
    shrink_time_s: float = FUZZ_SHRINK_TIME_S
    language: str | None = None  # the submission's language id (None: from the source's name, as `judge fuzz`)
    entry_point: str | None = None  # the file (or class) a folder submission runs, as judging is told


@dataclass(frozen=True)
class ExplainBudget:
    """What the search for one rejected submission's counterexample may spend (docs/explain.md): at most
    ``examples`` generated inputs and ``seconds`` of wall time, the build and the shrinking included (give or
    take the one run under way when time is up)."""

    examples: int = EXPLAIN_EXAMPLES
    seconds: float = EXPLAIN_SECONDS

    def __post_init__(self) -> None:
        if isinstance(self.examples, bool) or not isinstance(self.examples, int) or self.examples < 1:
            raise ValueError(f"examples must be a positive whole number, not {self.examples!r}")
        number = isinstance(self.seconds, int | float) and not isinstance(self.seconds, bool)
        if not number or not 0 < self.seconds < math.inf:
            raise ValueError(f"seconds must be a positive number, not {self.seconds!r}")

    def to_json(self) -> dict[str, Any]:
        return {"examples": self.examples, "seconds": self.seconds}
