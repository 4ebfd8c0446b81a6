"""How the jury's pages show live fuzzing (issue 33, docs/live-fuzzing.md): a counterexample's row, its bytes
(as text when they are text, else a hex dump; long ones cut, with a download link), and the header's notice
of counterexamples found since the judge last looked (web.py asks ``notice_context`` on every page: None for
anyone but the jury, so a team's or the public's page holds nothing of it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.serve.model.records import Counterexample
from judge.serve.model.times import format_reltime
from judge.serve.services.judging import fuzzing

if TYPE_CHECKING:
    from judge.serve.http.pages.web import Page

TEXT_CHARS = 8192  # a text shown in the page up to this many characters, the rest by download
HEX_BYTES = 512  # bytes that are not text: a hex dump of the first ones
_CONTROL = frozenset(chr(c) for c in range(32)) - {"\n", "\r", "\t"}


def _as_text(data: bytes) -> str | None:
    """The bytes as text: UTF-8 without control characters (but line ends and tabs), else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if any(ch in _CONTROL or ch == "\x7f" for ch in text) else text


def _hex_dump(data: bytes) -> str:
    """``xxd``'s layout: offset, 16 bytes in hex, the printable ones as ASCII."""
    lines = []
    for at in range(0, len(data), 16):
        chunk = data[at : at + 16]
        ascii_ = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{at:08x}  {chunk.hex(' '):<47}  {ascii_}")
    return "\n".join(lines)


def shown_bytes(data: bytes | None) -> dict[str, Any] | None:
    """What the page shows of an input, output or answer (None: there is none)."""
    if data is None:
        return None
    text = _as_text(data)
    if text is not None:
        return {"kind": "text", "text": text[:TEXT_CHARS], "truncated": len(text) > TEXT_CHARS, "size": len(data)}
    return {"kind": "hex", "text": _hex_dump(data[:HEX_BYTES]), "truncated": len(data) > HEX_BYTES, "size": len(data)}


def _contest_time(page: Page, t: float) -> str:
    return format_reltime(page.server.contest.info.contest_time_s(t)).split(".")[0]


def counterexample_row(page: Page, c: Counterexample, team_id: str | None) -> dict[str, Any]:
    """A counterexample as the Fuzzing page's list and its own page show it."""
    team = page.server.contest.team(team_id) if team_id else None
    cp = page.server.contest.problem(c.problem_id)
    return {
        "id": c.id,
        "found": _contest_time(page, c.found_s),
        "problem_id": c.problem_id,
        "problem": f"{cp.label}: {cp.name}" if cp else c.problem_id,
        "label": cp.label if cp else c.problem_id,
        "team_id": team_id,
        "team": (team.display_name or team.name) if team else team_id,
        "submission_id": c.submission_id,
        "verdict": c.verdict,
        "css": c.verdict.lower(),  # rows.verdict_class's
        "message": c.message,
        "confirmed": c.confirmed,
        "added_as": c.added_as,  # the test it became (package versions, slice 4)
    }


def notice_context(page: Page) -> dict[str, Any] | None:
    """The header's Fuzzing link and its notice: None for everyone but the jury."""
    found = fuzzing.notice(page.server, page.sight)
    if found is None:
        return None
    contest = page.server.contest
    labels = [(cp.label if (cp := contest.problem(p)) else p) for p in found.problem_ids]
    return {"count": found.count, "problems": labels}
