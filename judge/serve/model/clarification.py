"""Clarifications as the Contest API has them (JSON_Format.md, "Clarification"; Contest_API.md, "Modifying
clarifications"): the POST body read into a typed request, the text's checks, and the object's JSON for
one viewer (visibility.clarification_shape says how much of it). Pure.

Ids are strings of ours (random, ``public_id``); a null property is left out, except that a clarification
sent to chosen teams or groups has both ``to_team_ids`` and ``to_group_ids`` (arrays, one maybe empty:
``null`` would mean "to everyone").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from judge.serve.model.apijson import compact
from judge.serve.model.contest import ContestInfo
from judge.serve.model.errors import Refused
from judge.serve.model.records import ClarificationRecord
from judge.serve.model.times import format_reltime, format_time

PROPERTIES = (
    "id",
    "from_team_id",
    "to_team_ids",
    "to_group_ids",
    "reply_to_id",
    "problem_id",
    "text",
    "time",
    "contest_time",
)
SERVER_SET = ("id", "time", "contest_time")  # the server determines them (post_clar)
# C0 control characters but tab and newline (\r\n and \r are turned into \n first), DEL, and the C1 controls
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class ClarificationRequest:
    """A POSTed clarification, each property of the right type (what it may say is the service's to check)."""

    text: str
    problem_id: str | None = None
    reply_to_id: str | None = None  # the API's id
    from_team_id: str | None = None
    to_team_ids: tuple[str, ...] | None = None
    to_group_ids: tuple[str, ...] | None = None


def _id(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise Refused(400, f"`{key}` must be an ID (a string) or null, got {value!r}")
    return value


def _ids(body: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Refused(400, f"`{key}` must be an array of IDs (strings) or null, got {value!r}")
    return tuple(dict.fromkeys(value))  # in order, once each


def parse_clarification(body: Any) -> ClarificationRequest:
    """The POST body's properties, typed. Raises Refused (400)."""
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"text": "...", "problem_id": "..."}')
    unknown = sorted(set(body) - set(PROPERTIES))
    if unknown:
        raise Refused(400, f"unknown properties: {', '.join(unknown)} (a clarification has {', '.join(PROPERTIES)})")
    given = [k for k in SERVER_SET if body.get(k) is not None]
    if given:
        raise Refused(400, f"{', '.join(f'`{k}`' for k in given)}: set by the server, must not be provided")
    text = body.get("text")
    if not isinstance(text, str):
        raise Refused(400, "`text` (a string) is required")
    return ClarificationRequest(
        text=text,
        problem_id=_id(body, "problem_id"),
        reply_to_id=_id(body, "reply_to_id"),
        from_team_id=_id(body, "from_team_id"),
        to_team_ids=_ids(body, "to_team_ids"),
        to_group_ids=_ids(body, "to_group_ids"),
    )


def checked_text(text: str, max_chars: int) -> str:
    """The text as stored: newlines as ``\\n``, without surrounding blanks. Raises Refused (400) when it is
    empty, longer than ``max_chars`` characters, or holds control characters (tabs and newlines are fine)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise Refused(400, "the text is empty")
    if len(text) > max_chars:
        raise Refused(400, f"the text is {len(text):,} characters long: at most {max_chars:,}")
    if _CONTROL.search(text):
        raise Refused(400, "the text holds control characters (only tabs and newlines are allowed)")
    return text


def quoted(text: str) -> str:
    """A question's text quoted before an answer, as in an email: each line after ``> ``."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def clarification_json(
    c: ClarificationRecord,
    info: ContestInfo,
    *,
    reply_to: str | None,
    quote: str | None,
    teams: tuple[str, ...] | None,
) -> dict[str, Any]:
    """The clarification as one viewer sees it: ``reply_to`` the answered one's id (None: not shown),
    ``quote`` the answered question's text to put before the answer, ``teams`` the to_team_ids shown
    (None: all)."""
    to_teams = None if c.to_team_ids is None else list(c.to_team_ids if teams is None else teams)
    return compact(
        {
            "id": c.public_id,
            "from_team_id": c.from_team_id,
            "to_team_ids": to_teams,
            "to_group_ids": None if c.to_group_ids is None else list(c.to_group_ids),
            "reply_to_id": reply_to,
            "problem_id": c.problem_id,
            "text": c.text if quote is None else f"{quoted(quote)}\n\n{c.text}",
            "time": format_time(c.time_s),
            "contest_time": format_reltime(info.contest_time_s(c.time_s)),
        }
    )
