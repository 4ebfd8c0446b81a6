"""The messages a page shows after an organizer's action (``?message=`` on the redirect): only those the server
itself issues, each a template of this table whose slots take a number, an id or a time (issue 27: any text
in the URL used to appear in the page's message area, so a link could make the admin page say anything; it
was escaped, but said what the link's author wanted). A message that matches no template is not shown.
"""

from __future__ import annotations

import re

SLOTS = {
    "n": r"[0-9]{1,6}",
    "id": r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,35}",
    "time": r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{2}:[0-9]{2}",
}
FROZEN = "the scoreboard is frozen"
THAWED = "the scoreboard is thawed"
THAWS_AT = "the scoreboard thaws at {time}"
NOT_FROZEN = "not frozen: {reason}"  # the reason is one of phase.freeze_refusal's, below
FINALIZED = "the results are final"
FINALIZED_FROZEN = "the results are final; the scoreboard stays frozen: run the resolver, then thaw it"
THAWED_FINAL = "the scoreboard is thawed: the final results and the awards are public, the event feed has ended"
CONFIRM = "not done: confirm it on this page"
UNFINALIZED = "the results are no longer final: rejudge, then finalize again"
NOT_FINALIZED = "not finalized: {reason}"  # the reason is one of phase.finalize_refusal's, below
RESCHEDULED = "the contest's times are changed"
TIME_FACTOR = "the time factor of {id} is changed: it applies to what is judged from now on"
IGNORED = "submission {id} is ignored: it counts nowhere"
UNIGNORED = "submission {id} counts again"
PAUSED = "judging is paused: submissions are accepted and wait in the queue until it resumes"
RESUMED = "judging is resumed: the queue is judged, oldest first"
HELD = "problem {id} is held: its submissions wait until it is released"
RELEASED = "problem {id} is released: its submissions are judged"
TEAM_SAVED = "team {id} saved"
TEAM_HIDDEN = "team {id} is hidden: off the scoreboard of the public and the teams"
TEAM_SHOWN = "team {id} is shown again"
OBJECT_SAVED = "{what} {id} saved"
ACCOUNT_SAVED = "account {id} saved"
ACCOUNT_DISABLED = "account {id} is disabled: it cannot log in, and its sessions ended"
ACCOUNT_ENABLED = "account {id} is enabled"
PASSWORD_RESET = "account {id} has a new password"
IMPORTED = "the file is imported"
REVIEWED = "the review of submission {id} is saved"
PRINTED = "print-out {n} queued"
ANNOUNCED = "clarification sent"
ANSWERED = "answer sent"
REJUDGED = "rejudge of {what} {id}: {n} submission(s) queued"
REJUDGING = "rejudging {id}: {n} submission(s) queued; their new verdicts count once you apply it"
REJUDGING_AUTO = "rejudging {id}: {n} submission(s) queued; it applies itself as they are judged"
REJUDGING_APPLIED = "rejudging {id} applied: {n} judgement(s) made current"
REJUDGING_CANCELLED = "rejudging {id} cancelled: nothing it judged counts"
ALLOWED = "language {id} takes submissions again"
FORBIDDEN = "language {id} takes no more submissions"
VERIFICATION_ON = "judgements now need a judge's verification before the teams see them"
VERIFICATION_OFF = "verification is no longer required: {n} judgement(s) that waited are shown"
REJUDGED_NONE = "rejudge of {what} {id}: 0 submission(s) queued (already being judged)"
TEMPLATES = (
    FROZEN,
    THAWED,
    THAWS_AT,
    RESCHEDULED,
    TIME_FACTOR,
    IGNORED,
    UNIGNORED,
    PAUSED,
    RESUMED,
    HELD,
    RELEASED,
    TEAM_SAVED,
    TEAM_HIDDEN,
    TEAM_SHOWN,
    *(OBJECT_SAVED.replace("{what}", what) for what in ("group", "organization")),
    ACCOUNT_SAVED,
    ACCOUNT_DISABLED,
    ACCOUNT_ENABLED,
    PASSWORD_RESET,
    IMPORTED,
    REVIEWED,
    PRINTED,
    ANNOUNCED,
    ANSWERED,
    "not frozen: the contest is not running: there is nothing to freeze",
    "not frozen: the scoreboard was thawed at {time}",
    "not frozen: the scoreboard is frozen since {time}",
    FINALIZED,
    FINALIZED_FROZEN,
    THAWED_FINAL,
    CONFIRM,
    UNFINALIZED,
    "not finalized: the contest has not ended yet (it ends at {time})",
    "not finalized: the contest has not ended yet",
    "not finalized: the contest was finalized at {time}",
    "not finalized: {n} submission(s) made during the contest are not judged yet: wait for them, then finalize",
    "not finalized: the contest is finalized: un-finalize it first (admin page, or POST .../unfinalize)",
    *(t.replace("{what}", what) for t in (REJUDGED, REJUDGED_NONE) for what in ("submission", "problem")),
    REJUDGING,
    REJUDGING_AUTO,
    REJUDGING_APPLIED,
    REJUDGING_CANCELLED,
    VERIFICATION_ON,
    VERIFICATION_OFF,
    ALLOWED,
    FORBIDDEN,
)


def _pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else f"(?:{SLOTS[p]})" for i, p in enumerate(parts)))


_PATTERNS = tuple(_pattern(t) for t in TEMPLATES)


def shown(text: str | None) -> str | None:
    """``text`` if the server issues such a message, else None (nothing is shown)."""
    if text is None or len(text) > 200:
        return None
    return text if any(p.fullmatch(text) for p in _PATTERNS) else None


def notice(template: str, **slots: object) -> str:
    """A message of the table, its slots filled in (what the redirect carries)."""
    return template.format(**slots)
