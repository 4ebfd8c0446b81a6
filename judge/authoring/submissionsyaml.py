"""``submissions/submissions.yaml`` (2025-09): what it says about each example submission.

Keys are globs over submission paths; values are requirements on the verdicts of the test cases
(``permitted``, ``required``, ``score``, ``message``, also under a test-group glob) and facts about the
submission (``language``, ``entrypoint``, ``authors``, ``model_solution``, ``use_for_time_limit``).
Reading and checking it is here; what a submission must then meet is expectations.py. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.package.errors import PackageError
from judge.package.metadata import is_persons
from judge.package.testgroups import read_yaml

# The verdicts a 2025-09 `permitted` / `required` list may name: the spec's four, and ours as extensions.
TEST_VERDICTS = {"AC", "WA", "TLE", "RTE", "MLE", "OLE", "PV"}


@dataclass(frozen=True)
class CaseRule:
    """A 2025-09 requirement on the test cases of one submission (all of them, or those under ``tests``)."""

    origin: str  # "submissions.yaml: accepted/*" or "submissions.yaml: x.py, secret/group1"
    tests: str | None = None  # a test case / group glob relative to data/ (None: every test)
    permitted: frozenset[str] | None = None
    required: frozenset[str] | None = None
    score: tuple[float, float] | None = None
    message: str | None = None


# The 2025-09 defaults for these directories (the spec's "Default directories").
DEFAULT_DIRECTORY_RULES: dict[str, tuple[frozenset[str] | None, frozenset[str] | None]] = {
    "accepted": (frozenset({"AC"}), None),
    "rejected": (None, frozenset({"RTE", "TLE", "WA"})),
    "wrong_answer": (frozenset({"AC", "WA"}), frozenset({"WA"})),
    "time_limit_exceeded": (frozenset({"AC", "TLE"}), frozenset({"TLE"})),
    "run_time_error": (frozenset({"AC", "RTE"}), frozenset({"RTE"})),
    "brute_force": (frozenset({"AC", "RTE", "TLE"}), frozenset({"RTE", "TLE"})),
}
SUBMISSION_KEYS = {"language", "entrypoint", "authors", "model_solution", "use_for_time_limit"}
RULE_KEYS = {"permitted", "required", "score", "message", "use_for_time_limit"}


@dataclass(frozen=True)
class SubmissionsYaml:
    entries: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    def matching(self, rel: str) -> list[tuple[str, Mapping[str, Any]]]:
        return [(pattern, body) for pattern, body in self.entries if glob_matches(pattern, rel)]

    def language(self, rel: str) -> str | None:
        """The `language` a matching entry gives the submission (the last one that gives one), or None."""
        return self._last(rel, "language")

    def entrypoint(self, rel: str) -> str | None:
        """The `entrypoint` a matching entry gives the submission (the last one that gives one), or None."""
        return self._last(rel, "entrypoint")

    def for_time_limit(self, rel: str) -> bool:
        """Whether the submission counts in `judge verify`'s time limit check (``use_for_time_limit: false``
        in a matching entry leaves it out)."""
        return not any(body.get("use_for_time_limit") is False for _, body in self.matching(rel))

    def _last(self, rel: str, key: str) -> str | None:
        found = [str(body[key]) for _, body in self.matching(rel) if key in body]
        return found[-1] if found else None


def load_submissions_yaml(problem_path: Path) -> SubmissionsYaml:
    path = problem_path / "submissions" / "submissions.yaml"
    if not path.is_file():
        return SubmissionsYaml()
    raw = read_yaml(path)
    entries: list[tuple[str, Mapping[str, Any]]] = []
    for pattern, body in raw.items():
        if not isinstance(body, dict):
            raise PackageError(f"{path}: {pattern!r} must map to a mapping of requirements")
        for key, value in body.items():
            if key in RULE_KEYS or key in SUBMISSION_KEYS:
                _check_key(path, str(pattern), str(key), value)
            elif isinstance(value, dict):
                for k2, v2 in value.items():
                    if k2 not in RULE_KEYS:
                        raise PackageError(f"{path}: {pattern} / {key}: unknown key {k2!r}")
                    _check_key(path, f"{pattern} / {key}", str(k2), v2)
                _check_consistent(path, f"{pattern} / {key}", value)
            else:
                raise PackageError(f"{path}: {pattern}: unknown key {key!r} (test group keys map to requirements)")
        _check_consistent(path, str(pattern), body)
        entries.append((str(pattern), body))
    return SubmissionsYaml(tuple(entries))


def _check_consistent(path: Path, where: str, body: Mapping[str, Any]) -> None:
    if "permitted" in body and "required" in body:
        extra = {str(v).upper() for v in body["required"]} - {str(v).upper() for v in body["permitted"]}
        if extra:
            raise PackageError(f"{path}: {where}: required {sorted(extra)} is not permitted: no submission can meet it")


def _check_key(path: Path, where: str, key: str, value: Any) -> None:
    if key in ("permitted", "required"):
        if not isinstance(value, list) or not value:
            raise PackageError(f"{path}: {where}: {key} must be a non-empty list of verdicts")
        bad = [v for v in value if str(v).upper() not in TEST_VERDICTS]
        if bad:
            raise PackageError(f"{path}: {where}: {key}: unknown verdict {bad[0]!r} (AC, WA, TLE, RTE)")
    elif key == "score":
        if isinstance(value, bool) or not (
            isinstance(value, int | float)
            or (isinstance(value, list) and len(value) == 2 and all(isinstance(x, int | float) for x in value))
        ):
            raise PackageError(f"{path}: {where}: score must be a number or a list of two numbers")
    elif key == "message" and not isinstance(value, str):
        raise PackageError(f"{path}: {where}: message must be a string")
    elif key in ("language", "entrypoint") and not (isinstance(value, str) and value.strip()):
        raise PackageError(f"{path}: {where}: {key} must be a non-empty string")
    elif key == "authors" and not is_persons(value):
        raise PackageError(f"{path}: {where}: authors must be a person or a list of persons")
    elif key == "model_solution" and not isinstance(value, bool):
        raise PackageError(f"{path}: {where}: model_solution must be true or false")
    elif key == "use_for_time_limit" and value not in (True, False, "lower", "upper"):
        raise PackageError(f"{path}: {where}: use_for_time_limit must be true, false, lower or upper")


def _expand_braces(pattern: str) -> list[str]:
    """``a{b,c}`` -> ``ab``, ``ac`` (spaces around an alternative do not count: ``{ 4 }`` is ``4``, as
    BAPCtools reads it)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if m is None:
        return [pattern]
    out: list[str] = []
    for alt in m.group(1).split(","):
        out.extend(_expand_braces(pattern[: m.start()] + alt.strip() + pattern[m.end() :]))
    return out


def _glob_regex(pattern: str) -> re.Pattern[str]:
    alternatives = []
    for p in _expand_braces(pattern.strip("/")):
        alternatives.append("".join("[^/]*" if c == "*" else re.escape(c) for c in p))
    return re.compile("(?:" + "|".join(alternatives) + ")")


def glob_matches(pattern: str, path: str) -> bool:
    """The spec's globs: ``*`` within one name, ``{a,b}``; a path matches if it or a parent folder does."""
    rx = _glob_regex(pattern)
    parts = path.strip("/").split("/")
    return any(rx.fullmatch("/".join(parts[:i])) for i in range(1, len(parts) + 1))


def rule_from(origin: str, tests: str | None, body: Mapping[str, Any], base: CaseRule | None = None) -> CaseRule:
    def verdicts(key: str) -> frozenset[str] | None:
        if key in body:
            return frozenset(str(v).upper() for v in body[key])
        return getattr(base, key) if base is not None else None

    score = None
    if "score" in body:
        s = body["score"]
        score = (float(s), float(s)) if isinstance(s, int | float) else (float(s[0]), float(s[1]))
    permitted, required = verdicts("permitted"), verdicts("required")
    if body.get("use_for_time_limit") == "lower" and permitted is None:
        permitted = frozenset({"AC", "WA", "RTE"})
    if body.get("use_for_time_limit") == "upper" and required is None:
        required = frozenset({"TLE"})
    message = body.get("message")
    return CaseRule(origin, tests, permitted, required, score, str(message) if message is not None else None)
