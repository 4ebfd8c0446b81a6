"""contest.yaml's values, each checked on its own: a wrong one is a ``ContestError`` of one line naming the
file and the key (model/contest.py reads the files and puts the values together)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.scoreboard.awards import Medals
from judge.scoreboard.passfail import DEFAULT_PENALTY_S, ScoreboardType
from judge.serve.model.times import TimeError, parse_reltime


class ContestError(Exception):
    """The contest package is incomplete or malformed (one line)."""


@dataclass(frozen=True)
class ClarLimits:
    """contest.yaml's ``clarification_limits`` (ours): the longest text, and how many questions a team may
    ask within ``seconds``."""

    text_chars: int = 2000
    questions: int = 5
    seconds: float = 300.0


def text(entry: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = entry.get(key, default)
    if value is None:
        raise ContestError(f"{where}: `{key}` is required")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ContestError(f"{where}: `{key}` must be a string, got {value!r}")
    return str(value)


def positive_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ContestError(f"{where}: expected a positive integer, got {value!r}")
    return value


def scoreboard_type(data: Mapping[str, Any], where: str) -> ScoreboardType:
    """The spec's default when the key is absent: pass-fail."""
    kind = data.get("scoreboard_type", ScoreboardType.PASS_FAIL.value)
    try:
        return ScoreboardType(kind)
    except ValueError:
        raise ContestError(f"{where}: scoreboard_type {kind!r} is not `pass-fail` or `score`") from None


def penalty_s(value: Any, where: str, duration_s: float) -> float:
    """``penalty_time``: a RELTIME ("0:20:00"), or a number of minutes (as older packages write it)."""
    if value is None:
        return DEFAULT_PENALTY_S
    if isinstance(value, bool):
        raise ContestError(f'{where}: penalty_time must be a duration like "0:20:00" or minutes, got {value!r}')
    try:
        minutes = isinstance(value, int | float)
        penalty = float(value) * 60 if minutes else parse_reltime(value, f"{where}: penalty_time")
    except TimeError as exc:
        raise ContestError(str(exc)) from None
    if not 0 <= penalty <= duration_s:
        raise ContestError(
            f"{where}: penalty_time {value!r} is not between 0 and the contest's duration (a number is minutes; "
            'write a duration quoted, "0:20:00": unquoted, YAML reads 1:00:00 as the number 3600)'
        )
    return penalty


def flag(data: Mapping[str, Any], key: str, where: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ContestError(f"{where}: `{key}` must be true or false, got {value!r}")
    return value


def shortname(data: Mapping[str, Any], where: str) -> str | None:
    if data.get("shortname") is None:
        return None
    value = text(data, "shortname", where)
    if not value.strip():
        raise ContestError(f"{where}: `shortname` must not be empty")
    return value


def medals(data: Any, where: str) -> Medals:
    """``medals: {gold: 4, silver: 4, bronze: 4}`` (each optional, 0 or more)."""
    if data is None:
        return Medals()
    if not isinstance(data, dict) or set(data) - {"gold", "silver", "bronze"}:
        raise ContestError(f"{where}: expected a mapping like {{gold: 4, silver: 4, bronze: 4}}")
    counts = {}
    for colour, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ContestError(f"{where}.{colour}: expected a whole number, 0 or more, got {value!r}")
        counts[colour] = value
    return Medals(**counts)


FACTOR_MIN, FACTOR_MAX = 0.1, 100.0  # a language's time_factor (contest.yaml's, or an admin's: language_factors.py)


def time_factors(data: Any, where: str) -> tuple[tuple[str, float], ...]:
    """``languages: [{id: java, time_factor: 1.5}, ...]`` (the ids are checked against the server's
    languages when it starts)."""
    if data is None:
        return ()
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise ContestError(f"{where}: expected a list like [{{id: java, time_factor: 1.5}}]")
    out = []
    for i, entry in enumerate(data, start=1):
        lang = text(entry, "id", f"{where} entry {i}")
        factor = entry.get("time_factor", 1.0)
        if isinstance(factor, bool) or not isinstance(factor, int | float) or not FACTOR_MIN <= factor <= FACTOR_MAX:
            raise ContestError(
                f"{where} entry {i}: time_factor must be a number from {FACTOR_MIN:g} to {FACTOR_MAX:g}, got {factor!r}"
            )
        out.append((lang, float(factor)))
    unique([lang for lang, _ in out], Path(where), "language id")
    return tuple(out)


def print_command(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    try:
        argv = tuple(shlex.split(value)) if isinstance(value, str) else ()
    except ValueError:
        argv = ()
    if not argv:
        raise ContestError(f'{where}: print_command must be a command like "lp -d lab", got {value!r}')
    return argv


def clar_limits(data: Any, where: str) -> ClarLimits:
    """``clarification_limits: {text_chars: 2000, questions: 5, seconds: 300}`` (each optional)."""
    if data is None:
        return ClarLimits()
    if not isinstance(data, dict) or set(data) - {"text_chars", "questions", "seconds"}:
        raise ContestError(f"{where}: expected a mapping like {{text_chars: 2000, questions: 5, seconds: 300}}")
    default = ClarLimits()
    return ClarLimits(
        text_chars=positive_int(data.get("text_chars", default.text_chars), f"{where}.text_chars"),
        questions=positive_int(data.get("questions", default.questions), f"{where}.questions"),
        seconds=float(positive_int(data.get("seconds", int(default.seconds)), f"{where}.seconds")),
    )


@dataclass(frozen=True)
class TeamChoice:
    """contest.yaml's ``teams:`` (ours, issue 44): which teams of the site take part in the contest. ``all``
    (the default), a list of team ids, or ``{groups: [group ids]}`` (the teams in any of them)."""

    team_ids: tuple[str, ...] | None = None  # a list of teams
    group_ids: tuple[str, ...] | None = None  # the teams of these groups

    @property
    def everyone(self) -> bool:
        return self.team_ids is None and self.group_ids is None

    def takes_part(self, team_id: str, group_ids: Sequence[str]) -> bool:
        if self.team_ids is not None:
            return team_id in self.team_ids
        if self.group_ids is not None:
            return any(g in self.group_ids for g in group_ids)
        return True

    def describe(self) -> str:
        if self.team_ids is not None:
            return f"teams {', '.join(self.team_ids) or '(none)'}"
        if self.group_ids is not None:
            return f"the teams of groups {', '.join(self.group_ids)}"
        return "all teams"


EVERYONE = TeamChoice()
PRIORITY_MIN, PRIORITY_MAX = -1000, 1000  # contest.yaml's judging_priority (and an admin's: the site's registry)


def team_choice(value: Any, where: str) -> TeamChoice:
    """``teams: all`` | ``teams: [team ids]`` | ``teams: {groups: [group ids]}`` (the ids are checked against
    the site's teams and groups by the loader)."""
    if value is None or value == "all":
        return EVERYONE
    how = "`all`, a list of team ids, or {groups: [group ids]}"
    if isinstance(value, list):
        if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
            raise ContestError(f"{where}: `teams` must be {how}, got {value!r}")
        ids = tuple(str(v) for v in value)
        unique(ids, Path(where), "team id in `teams`")
        return TeamChoice(team_ids=ids)
    if isinstance(value, dict) and set(value) == {"groups"} and isinstance(value["groups"], list):
        groups = value["groups"]
        if groups and all(isinstance(v, str | int) and not isinstance(v, bool) for v in groups):
            ids = tuple(str(v) for v in groups)
            unique(ids, Path(where), "group id in `teams`")
            return TeamChoice(group_ids=ids)
    raise ContestError(f"{where}: `teams` must be {how}, got {value!r}")


def judging_priority(value: Any, where: str) -> int:
    """``judging_priority``: an integer, higher judged first (default 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not PRIORITY_MIN <= value <= PRIORITY_MAX:
        raise ContestError(
            f"{where}: `judging_priority` must be a whole number from {PRIORITY_MIN} to {PRIORITY_MAX} "
            f"(higher is judged first), got {value!r}"
        )
    return value


def unique(values: Sequence[str], path: Path, what: str) -> None:
    seen: set[str] = set()
    for v in values:
        if v in seen:
            raise ContestError(f"{path}: {what} {v!r} appears twice")
        seen.add(v)


@dataclass(frozen=True)
class OutputStorage:
    """contest.yaml's ``output_storage: {run_kib: 64, contest_mib: 512}`` (ours, issue 47): what the database
    keeps of each run for the jury: each pass's output and stderr up to ``run_kib`` each, and all runs'
    together up to ``contest_mib`` (then only how they ended and the messages; 0: no output at all)."""

    run_kib: int = 64
    contest_mib: int = 512

    @property
    def run_bytes(self) -> int:
        return self.run_kib * 1024 if self.contest_mib > 0 else 0

    @property
    def contest_bytes(self) -> int:
        return self.contest_mib * 1024 * 1024


def output_storage(data: Any, where: str) -> OutputStorage:
    if data is None:
        return OutputStorage()
    if not isinstance(data, dict) or set(data) - {"run_kib", "contest_mib"}:
        raise ContestError(f"{where}: expected a mapping like {{run_kib: 64, contest_mib: 512}}")
    default = OutputStorage()
    values = {}
    for key in ("run_kib", "contest_mib"):
        value = data.get(key, getattr(default, key))
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 1024 * 1024:
            raise ContestError(f"{where}.{key}: expected a whole number from 0 to 1048576, got {value!r}")
        values[key] = value
    return OutputStorage(**values)


TEAM_OUTPUTS = ("none", "samples", "all")  # contest.yaml's team_outputs (issue 47): what a team sees of its runs


def team_outputs(data: Mapping[str, Any], where: str) -> str:
    """``team_outputs: samples`` (ours, issue 47): of its own runs a team sees the output, the diff against
    the answer, stderr and the validator's team message for the sample tests (default), none, or all
    tests (then the secret tests' input and answer too: a classroom's choice)."""
    value = data.get("team_outputs", "samples")
    if value not in TEAM_OUTPUTS:
        raise ContestError(f"{where}: team_outputs must be one of {', '.join(TEAM_OUTPUTS)}, got {value!r}")
    return str(value)


def forbidden_languages(data: Any, where: str) -> tuple[str, ...]:
    """The languages of ``languages: [{id: java, allow_submit: false}]`` (DOMjudge's property, issue 47) that
    take no submissions (the list is checked whole by ``time_factors``)."""
    if not isinstance(data, list):
        return ()
    out = []
    for i, entry in enumerate(data, start=1):
        if not isinstance(entry, dict):
            continue
        allowed = entry.get("allow_submit", True)
        if not isinstance(allowed, bool):
            raise ContestError(f"{where} entry {i}: allow_submit must be true or false, got {allowed!r}")
        if not allowed:
            out.append(text(entry, "id", f"{where} entry {i}"))
    return tuple(sorted(out))
