"""contest.yaml's ``counterexamples`` (issue 46, docs/explain.md): who is shown an input a rejected submission
fails on, with what budget per search, and how many a team may be shown; problems.yaml may set who per
problem. Read and checked here (a wrong value is one ``ContestError`` line naming the key); `judge serve`
does not search yet (docs/serve.md, "Counterexamples (coming)").

    counterexamples: team                 # short form: off | jury | team
    counterexamples:
      show: team                          # off (default) | jury | team
      examples: 1000                      # per search, at most (default: judge grade --explain's)
      seconds: 60                         # per search, at most, the build and the shrinking included
      per_team: 20                        # the most counterexamples one team is shown in the contest
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from judge.fuzz.options import ExplainBudget
from judge.serve.model.contest_values import ContestError

PER_TEAM = 20  # default per-team limit: enough to learn from, too few to map a problem's input space with
KEYS = ("show", "examples", "seconds", "per_team")


class CounterexampleView(StrEnum):
    """Who sees a rejected submission's counterexample: nobody (no search at all), the jury, or the jury and
    the submitting team."""

    OFF = "off"
    JURY = "jury"
    TEAM = "team"


@dataclass(frozen=True)
class CounterexamplePolicy:
    show: CounterexampleView = CounterexampleView.OFF  # the contest's; a problem of problems.yaml may differ
    budget: ExplainBudget = field(default_factory=ExplainBudget)
    per_team: int = PER_TEAM  # counterexamples shown to one team over the contest at most (the jury sees all)

    def view(self, problem_override: CounterexampleView | None) -> CounterexampleView:
        """Who sees the counterexamples of a problem whose problems.yaml entry says ``problem_override``."""
        return self.show if problem_override is None else problem_override

    def to_json(self) -> dict[str, Any]:
        return {"show": self.show.value, **self.budget.to_json(), "per_team": self.per_team}


def _show(value: Any, where: str) -> CounterexampleView:
    if value is False:  # YAML 1.1 reads an unquoted `off` as false
        return CounterexampleView.OFF
    try:
        return CounterexampleView(value)
    except ValueError:
        raise ContestError(f"{where}: expected off, jury or team, got {value!r}") from None


def counterexample_view(value: Any, where: str) -> CounterexampleView | None:
    """problems.yaml's ``counterexamples: off | jury | team`` (None: absent, the contest's)."""
    return None if value is None else _show(value, where)


def counterexample_policy(data: Any, where: str) -> CounterexamplePolicy:
    """contest.yaml's ``counterexamples``: absent is off; a word is who sees them, with the defaults; a
    mapping says more (``show``, ``examples``, ``seconds``, ``per_team``, each optional)."""
    if data is None:
        return CounterexamplePolicy()
    if not isinstance(data, Mapping):
        return CounterexamplePolicy(show=_show(data, where))
    unknown = sorted(str(k) for k in data if k not in KEYS)
    if unknown:
        raise ContestError(f"{where}: unknown key {unknown[0]!r} (expected {', '.join(KEYS)})")
    default = ExplainBudget()
    examples = data.get("examples", default.examples)
    if isinstance(examples, bool) or not isinstance(examples, int) or examples < 1:
        raise ContestError(f"{where}.examples: expected a positive whole number, got {examples!r}")
    seconds = data.get("seconds", default.seconds)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= 3600:
        raise ContestError(f"{where}.seconds: expected more than 0 and at most 3600 seconds, got {seconds!r}")
    per_team = data.get("per_team", PER_TEAM)
    if isinstance(per_team, bool) or not isinstance(per_team, int) or per_team < 0:
        raise ContestError(f"{where}.per_team: expected a whole number, 0 or more, got {per_team!r}")
    show = _show(data.get("show", CounterexampleView.OFF.value), f"{where}.show")
    return CounterexamplePolicy(show, ExplainBudget(examples, float(seconds)), per_team)
