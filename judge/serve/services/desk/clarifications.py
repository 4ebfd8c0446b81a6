"""Clarifications: a team asks the jury (the spec's post_clar from a team account; the API and the team's
page alike), the jury answers (the asking team, chosen teams or groups, or everyone) or announces (a
judge's or admin's post_clar), and reading them back as visibility.py allows: the API's documents, the
event feed (each version of a clarification one event, its audience from visibility.clarification_audiences),
the pages, a team's unread ones and the jury's unanswered questions.

Limits (contest.yaml's ``clarification_limits``): the text's length, a team's questions per time window,
and questions only while the contest runs (answers and announcements at any time). Every refusal is a
``Refused`` (4xx, one line) before anything is stored.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judge.serve.model.clarification import ClarificationRequest, checked_text, clarification_json
from judge.serve.model.errors import Refused
from judge.serve.model.records import ClarificationRecord, NewClarification
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.core.events import publish
from judge.serve.services.people import access
from judge.serve.storage import Reader, Writer
from judge.serve.visibility import Sight, clarification_audiences, clarification_shape, sees_clarification

KIND = "clarifications"  # the event feed's type


@dataclass(frozen=True)
class ClarView:
    """A clarification as one viewer sees it."""

    clarification: ClarificationRecord
    reply_to: str | None  # the answered clarification's id, when the viewer sees that one
    quote: str | None  # the answered question's text, put before the answer (an answer to everyone)
    replied_text: str | None  # the answered one's text, when the viewer may read it (linked or quoted)
    teams: tuple[str, ...] | None  # the to_team_ids shown (None: as sent)
    sent_by: str | None  # the account that sent it: staff only

    @property
    def id(self) -> str:
        return self.clarification.public_id

    def json(self, server: Served) -> dict[str, Any]:
        return clarification_json(
            self.clarification, server.contest.info, reply_to=self.reply_to, quote=self.quote, teams=self.teams
        )


def _view(sight: Sight, c: ClarificationRecord, replied: ClarificationRecord | None) -> ClarView:
    shape = clarification_shape(sight, c, replied)
    readable = replied is not None and (shape.link or shape.quote)
    return ClarView(
        clarification=c,
        reply_to=replied.public_id if replied is not None and shape.link else None,
        quote=replied.text if replied is not None and shape.quote else None,
        replied_text=replied.text if readable and replied is not None else None,
        teams=shape.teams,
        sent_by=c.account_id if sight.staff else None,
    )


def _with_replied(r: Reader, found: list[ClarificationRecord]) -> dict[int, ClarificationRecord]:
    wanted = {c.reply_to_id for c in found if c.reply_to_id is not None}
    return {c.id: c for c in (r.clarifications(ids=wanted) if wanted else [])}


def views(
    server: Served, sight: Sight, ids: Sequence[str] | None = None, *, after_id: int | None = None
) -> list[ClarView]:
    """The clarifications the viewer sees (``ids``: the API's ids, only those; ``after_id``: only those
    sent after that database id), in the order sent."""
    with server.storage.read() as r:
        return _views(r, sight, ids, after_id)


def _views(r: Reader, sight: Sight, ids: Sequence[str] | None, after_id: int | None) -> list[ClarView]:
    found = r.clarifications(public_ids=ids, after_id=after_id)
    replied = _with_replied(r, found)
    out = []
    for c in found:
        if sees_clarification(sight, c):
            out.append(_view(sight, c, replied.get(c.reply_to_id) if c.reply_to_id is not None else None))
    return out


# --------------------------------------------------------------------------------------------- sending


def post(server: Served, viewer: Viewer, read_request: Callable[[], ClarificationRequest], now: float) -> ClarView:
    """The spec's POST (post_clar): a team's question, or a judge's or admin's answer or announcement.
    ``read_request`` is called once the viewer may post (a body is not even parsed before)."""
    access.authenticated(viewer, "send clarifications")
    return send(server, viewer, read_request(), now)


def send(server: Served, viewer: Viewer, request: ClarificationRequest, now: float) -> ClarView:
    """Check everything, then store the clarification and its events in one transaction."""
    access.authenticated(viewer, "send clarifications")
    server.standing.refuse_if_archived("clarifications")
    text = checked_text(request.text, server.contest.info.clarifications.text_chars)
    if viewer.role is Role.TEAM:
        _check_question(server, viewer, request, now)
    else:
        _check_jury(server, request, now)
    recipients = _recipients(server, request)
    with server.storage.write() as w:
        replied = _replied(w, server.sight(viewer, now), request.reply_to_id)
        if viewer.role is Role.TEAM:
            assert viewer.team_id is not None
            _rate_limit(w, server, viewer.team_id, now)
        chosen = recipients is not None
        new = NewClarification(
            public_id=_fresh_id(w),
            from_team_id=viewer.team_id if viewer.role is Role.TEAM else None,
            to_team_ids=(request.to_team_ids or ()) if chosen else None,
            to_group_ids=(request.to_group_ids or ()) if chosen else None,
            recipients=recipients,
            reply_to_id=None if replied is None else replied.id,
            problem_id=request.problem_id,
            text=text,
            time_s=now,
            account_id=viewer.account_id,
        )
        c = w.add_clarification(new)
        _publish(w, server, c, replied, now)
    server.bus.notify()
    return _view(server.sight(viewer, now), c, replied)


def republish_since(w: Writer, server: Served, since_s: float, now: float) -> None:
    """Publish again, in every version, the clarifications sent since ``since_s`` (their contest_time
    changed: a removed interval, services/lifecycle/control.py)."""
    found = [c for c in w.clarifications() if c.time_s >= since_s]
    replied = _with_replied(w, found)
    for c in found:
        _publish(w, server, c, replied.get(c.reply_to_id) if c.reply_to_id is not None else None, now)


def _publish(
    w: Writer, server: Served, c: ClarificationRecord, replied: ClarificationRecord | None, now: float
) -> None:
    info = server.contest.info
    for audience, shape in clarification_audiences(c, replied):
        data = clarification_json(
            c,
            info,
            reply_to=replied.public_id if replied is not None and shape.link else None,
            quote=replied.text if replied is not None and shape.quote else None,
            teams=shape.teams,
        )
        publish(w, KIND, c.public_id, data, now=now, audience=audience)


def _fresh_id(r: Reader) -> str:
    """A random id no clarification has (an id tells nothing of how many others there are)."""
    while True:
        candidate = secrets.token_hex(5)
        if not r.clarifications(public_ids=[candidate]):
            return candidate


def _check_question(server: Served, viewer: Viewer, request: ClarificationRequest, now: float) -> None:
    """A team asks: as itself, the jury only, while the contest runs, about a problem it sees (or none)."""
    if request.from_team_id is not None and request.from_team_id != viewer.team_id:
        raise Refused(403, f"you are team {viewer.team_id}: you cannot ask as team {request.from_team_id}")
    if request.to_team_ids is not None or request.to_group_ids is not None:
        raise Refused(403, "teams cannot send clarifications to other teams or groups (only to the jury)")
    access.while_running(server.timeline.phase, now, "questions")
    _check_problem(server, request.problem_id, now)


def _check_jury(server: Served, request: ClarificationRequest, now: float) -> None:
    if request.from_team_id is not None:
        raise Refused(400, "`from_team_id` must not be provided by a judge: the jury's clarifications are from no team")
    _check_problem(server, request.problem_id, now)


def _check_problem(server: Served, problem_id: str | None, now: float) -> None:
    """A clarification may be about a problem once everyone sees the problems (from the start)."""
    if problem_id is None:
        return
    if server.contest.problem(problem_id) is None:
        raise Refused(400, f"unknown problem_id {problem_id!r}")
    if not server.timeline.phase.started(now):
        raise Refused(400, "problems are secret until the contest starts: send it without a problem_id")


def _recipients(server: Served, request: ClarificationRequest) -> tuple[str, ...] | None:
    """The teams a jury's clarification goes to (its teams and its groups' teams, now); None: everyone."""
    if request.to_team_ids is None and request.to_group_ids is None:
        return None
    contest = server.contest
    teams, groups = request.to_team_ids or (), set(request.to_group_ids or ())
    unknown = [t for t in teams if contest.team(t) is None]
    unknown += [g for g in sorted(groups) if g not in {str(x["id"]) for x in contest.groups}]
    if unknown:
        raise Refused(400, f"unknown to_team_ids or to_group_ids: {', '.join(unknown)}")
    reached = [t.id for t in contest.teams if t.id in teams or groups & set(t.group_ids)]
    if not reached:
        raise Refused(400, "no team would get it: name teams or groups with teams (or neither, for everyone)")
    return tuple(reached)


def _replied(r: Reader, sight: Sight, reply_to_id: str | None) -> ClarificationRecord | None:
    """The clarification answered; one the sender does not see is as unknown as one that does not exist."""
    if reply_to_id is None:
        return None
    found = r.clarifications(public_ids=[reply_to_id])
    if not found or not sees_clarification(sight, found[0]):
        raise Refused(400, f"unknown reply_to_id {reply_to_id!r}")
    return found[0]


def _rate_limit(r: Reader, server: Served, team_id: str, now: float) -> None:
    limits = server.contest.info.clarifications
    count, earliest = r.recent_questions(team_id, now - limits.seconds)
    if count >= limits.questions and earliest is not None:
        wait = max(1, int(earliest + limits.seconds - now + 0.999))
        raise Refused(
            429,
            f"too many questions: at most {limits.questions} per {limits.seconds:g} s; try again in {wait} s",
            {"Retry-After": str(wait)},
        )


# --------------------------------------------------------------------------------------------- the pages


@dataclass(frozen=True)
class Notice:
    """What the header of every page says: a team's unread answers and announcements (and the newest of
    them), the jury's unanswered questions."""

    count: int
    latest: ClarView | None = None


def unanswered(all_seen: Sequence[ClarView]) -> list[ClarView]:
    """Questions no judge has answered yet (the oldest first)."""
    answered = {v.clarification.reply_to_id for v in all_seen if not v.clarification.question}
    return [v for v in all_seen if v.clarification.question and v.clarification.id not in answered]


def notice(server: Served, sight: Sight) -> Notice | None:
    """None for the public. (On every page and every few seconds: only what is new is read.)"""
    viewer = sight.viewer
    if viewer.staff:
        with server.storage.read() as r:
            return Notice(r.unanswered_questions())
    if viewer.role is not Role.TEAM or viewer.account_id is None:
        return None
    with server.storage.read() as r:
        last = r.clarifications_read(viewer.account_id)
        new = [v for v in _views(r, sight, None, last) if _unread(v, viewer, last)]
    return Notice(len(new), new[-1] if new else None)


def _unread(v: ClarView, viewer: Viewer, last_read: int) -> bool:
    return v.clarification.id > last_read and v.clarification.from_team_id != viewer.team_id


@dataclass(frozen=True)
class TeamList:
    views: list[ClarView]  # the newest first
    new: frozenset[str]  # the ids the team had not read before


def read_list(server: Served, sight: Sight) -> TeamList:
    """A team's clarifications, newest first; it has read them all now (they are on its screen)."""
    viewer = sight.viewer
    seen = views(server, sight)
    if viewer.account_id is None:
        return TeamList(seen[::-1], frozenset())
    with server.storage.write() as w:
        last = w.clarifications_read(viewer.account_id)
        if seen:
            w.mark_clarifications_read(viewer.account_id, max(v.clarification.id for v in seen))
    return TeamList(seen[::-1], frozenset(v.id for v in seen if _unread(v, viewer, last)))


@dataclass(frozen=True)
class Thread:
    """A clarification with the answers to it, for the jury's page."""

    clarification: ClarView
    replied: ClarView | None  # what it answers
    replies: list[ClarView]  # the jury's answers, and the team's follow-ups

    @property
    def answered(self) -> bool:
        return any(not v.clarification.question for v in self.replies)


def thread(server: Served, sight: Sight, public_id: str) -> Thread:
    access.staff(sight.viewer, "read the jury's clarifications")
    every = views(server, sight)
    found = [v for v in every if v.id == public_id]
    if not found:
        raise Refused(404, f"no clarification {public_id!r}")
    c = found[0].clarification
    replied = [v for v in every if v.clarification.id == c.reply_to_id]
    replies = [v for v in every if v.clarification.reply_to_id == c.id]
    return Thread(found[0], replied[0] if replied else None, replies)
