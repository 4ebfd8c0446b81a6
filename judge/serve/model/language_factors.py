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


def parse_language_change(body: Any, language_id: str) -> tuple[float | None, bool | None]:
    """The PATCH body ``{"id": <language id>, "time_factor": <number>, "allow_submit": <bool>}`` (``id``
    optional; at least one of the others): (the factor, whether it takes submissions; None: unchanged).
    Raises Refused."""
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"id": "java", "time_factor": 1.5}')
    unknown = sorted(set(body) - {"id", "time_factor", "allow_submit"})
    if unknown:
        raise Refused(400, f"{', '.join(unknown)}: cannot be changed (only time_factor and allow_submit)")
    if "id" in body and body["id"] != language_id:
        raise Refused(409, f"the body's id {body['id']!r} is not this language's ({language_id!r})")
    if "time_factor" not in body and "allow_submit" not in body:
        raise Refused(400, "`time_factor` or `allow_submit` is required")
    allowed = body.get("allow_submit")
    if allowed is not None and not isinstance(allowed, bool):
        raise Refused(400, f"allow_submit must be true or false, got {allowed!r}")
    return (parse_factor(body, language_id) if "time_factor" in body else None), allowed


def parse_factor(body: dict[str, Any], language_id: str) -> float:
    """The body's ``time_factor``, checked. Raises Refused."""
    factor = body["time_factor"]
    if isinstance(factor, bool) or not isinstance(factor, int | float) or not FACTOR_MIN <= factor <= FACTOR_MAX:
        raise Refused(400, f"time_factor must be a number from {FACTOR_MIN:g} to {FACTOR_MAX:g}, got {factor!r}")
    return float(factor)
