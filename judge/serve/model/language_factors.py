"""Languages' time factors changed while the contest runs (issue 43): an admin's PATCH of a language's
``time_factor`` (DOMjudge's property), kept in the database's ``meta`` as an override of contest.yaml's
``languages`` (the package on disk stays the organizer's input), and the ``ContestInfo`` it makes. Pure.

A factor applies to what is judged after the change: the submissions waiting, those made later, and every
rejudge; a judgement already made keeps the limits it was judged under (docs/serve.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from judge.serve.model.contest import ContestInfo
from judge.serve.model.contest_values import FACTOR_MAX, FACTOR_MIN
from judge.serve.model.errors import Refused

META_KEY = "time_factors"


def loads(text: str | None) -> dict[str, float]:
    """The stored overrides, language id -> factor."""
    return {str(k): float(v) for k, v in json.loads(text).items()} if text else {}


def dumps(factors: Mapping[str, float]) -> str:
    return json.dumps(dict(sorted(factors.items())))


def applied(info: ContestInfo, overrides: Mapping[str, float]) -> ContestInfo:
    """contest.yaml's factors with the admins' over them (a factor of 1 is kept as one: it overrides too)."""
    if not overrides:
        return info
    factors = dict(info.time_factors) | dict(overrides)
    return replace(info, time_factors=tuple(sorted(factors.items())))


def parse_factor(body: Any, language_id: str) -> float:
    """The PATCH body ``{"id": <language id>, "time_factor": <number>}`` (``id`` optional). Raises Refused."""
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"id": "java", "time_factor": 1.5}')
    unknown = sorted(set(body) - {"id", "time_factor"})
    if unknown:
        raise Refused(400, f"{', '.join(unknown)}: cannot be changed (only time_factor)")
    if "id" in body and body["id"] != language_id:
        raise Refused(409, f"the body's id {body['id']!r} is not this language's ({language_id!r})")
    if "time_factor" not in body:
        raise Refused(400, "`time_factor` is required")
    factor = body["time_factor"]
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not FACTOR_MIN <= factor <= FACTOR_MAX:
        raise Refused(400, f"time_factor must be a number from {FACTOR_MIN:g} to {FACTOR_MAX:g}, got {factor!r}")
    return float(factor)
