"""Changing the contest while it runs: the thaw (the spec's PATCH of ``scoreboard_thaw_time``), the start
(the spec's PATCH of ``start_time`` and ``countdown_pause_time``), the duration and the freeze (ours, in the
same PATCH; model/schedule.py), the freeze now (an organizer's page action: the Contest API has no call
for it) and a language's time factor (ours, a PATCH of the language: model/language_factors.py), admins
only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judge.serve.model.apijson import language_json
from judge.serve.model.errors import Refused
from judge.serve.model.language_factors import parse_language_change
from judge.serve.model.schedule import SCHEDULE_KEYS, ScheduleError, parse_change, parse_removed
from judge.serve.model.times import TimeError, format_time, parse_time
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.core.events import publish_if_changed
from judge.serve.services.desk import clarifications
from judge.serve.services.judging import moderation
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer


def _check_body(server: Served, body: Any) -> dict[str, Any]:
    """A PATCH body of this contest with known keys. Raises Refused."""
    info = server.contest.info
    if not isinstance(body, dict):
        raise Refused(400, 'the body must be a JSON object like {"id": ..., "scoreboard_thaw_time": ...}')
    if "id" not in body:
        raise Refused(400, "`id` (the contest's) is required")
    if body["id"] != info.id:
        raise Refused(409, f"the body's id {body['id']!r} is not this contest's ({info.id!r})")
    unknown = sorted(set(body) - {"id", "scoreboard_thaw_time", *SCHEDULE_KEYS})
    if unknown:
        known = ", ".join(("scoreboard_thaw_time", *SCHEDULE_KEYS))
        raise Refused(400, f"{', '.join(unknown)}: cannot be changed (only {known})")
    if len(body) == 1:
        raise Refused(400, "nothing to change: give scoreboard_thaw_time, start_time, duration, ...")
    if "scoreboard_thaw_time" in body and len(body) > 2:
        raise Refused(400, "change the thaw in a PATCH of its own")
    return body


def _thaw_time(body: dict[str, Any]) -> float:
    try:
        return parse_time(body["scoreboard_thaw_time"], "scoreboard_thaw_time")
    except TimeError as exc:
        raise Refused(400, str(exc)) from None


def patch_contest(server: Served, viewer: Viewer, body: Callable[[], Any], now: float) -> dict[str, Any] | None:
    """The spec's PATCH of the contest (``body`` reads it, once the viewer may change the contest): the
    thaw, ``{"id": <contest id>, "scoreboard_thaw_time": <TIME>}``; the start, ``start_time`` (null: the
    countdown pauses, with ``countdown_pause_time`` left); and ours, ``duration`` and
    ``scoreboard_freeze_duration``. Returns the contest object, or None when a thaw is scheduled for later."""
    access.admin(viewer, "change the contest")
    checked = _check_body(server, body())
    if "scoreboard_thaw_time" not in checked:
        return reschedule(server, viewer, checked, now)
    thaw = _thaw_time(checked)
    info = server.contest.info
    refusal = thaw_refusal(server)
    if refusal is not None or info.end_s is None:
        raise Refused(403, refusal or "the contest has no start time yet: nothing to thaw")
    if thaw < info.end_s:
        raise Refused(403, f"the thaw time must not be before the contest ends ({format_time(info.end_s)})")
    past = thaw <= now
    why = Audit(viewer, "contest.thaw", {"scoreboard_thaw_time": format_time(thaw)})

    def publish(w: Writer, when: float, _: float | None) -> None:
        publish_contest_in(w, server, when, why)

    server.timeline.set_thaw(now if past else thaw, publish)
    return server.timeline.contest_json() if past else None


def thaw_refusal(server: Served) -> str | None:
    """Why the board cannot be thawed (one line, as ``patch_contest`` would refuse a thaw), or None."""
    phase, info = server.timeline.phase, server.contest.info
    if phase.freeze_s is None:
        return "this contest's scoreboard is never frozen: nothing to thaw"
    if phase.thawed_at is not None:
        return f"the scoreboard was thawed at {format_time(phase.thawed_at)}"
    if info.end_s is None:
        return "the contest has no start time yet: nothing to thaw"
    return None


def reschedule(server: Served, viewer: Viewer, body: dict[str, Any], now: float) -> dict[str, Any]:
    """Move the start, pause the countdown, change the duration or the freeze; publish the contest."""
    try:
        server.timeline.reschedule(parse_change(body))
    except ScheduleError as exc:
        raise Refused(exc.status, exc.message) from None
    return publish_contest(server, now, Audit(viewer, "contest.change", {k: v for k, v in body.items() if k != "id"}))


def set_removed_intervals(server: Served, viewer: Viewer, body: Callable[[], Any], now: float) -> dict[str, Any]:
    """An admin's removed intervals (the state's ``removed_intervals``, issue 43; ours: the spec has no call
    for it): the whole list, as ``PUT .../removed-intervals`` gives it. The contest's end and freeze move,
    the contest times of what was made since the first changed interval are published again (submissions,
    judgements, runs, clarifications), then the state. Returns the state object."""
    access.admin(viewer, "remove intervals from the contest's time")
    try:
        removed = parse_removed(body(), server.contest.info)
    except ScheduleError as exc:
        raise Refused(exc.status, exc.message) from None

    def publish(w: Writer, when: float, since: float | None) -> None:
        if since is not None:
            moderation.republish_changed(w, server, since, when)
            clarifications.republish_since(w, server, since, when)
        shown = [{"start": format_time(a), "end": format_time(b)} for a, b in removed]
        audit(w, viewer, when, "contest.removed_intervals", {"removed_intervals": shown})

    try:
        server.timeline.set_removed(removed, publish)
    except ScheduleError as exc:
        raise Refused(exc.status, exc.message) from None
    return server.timeline.state_json(now)


def freeze_now(server: Served, viewer: Viewer, now: float) -> dict[str, Any]:
    """Freeze the scoreboard now. Returns the contest object with its new scoreboard_freeze_duration."""
    access.admin(viewer, "freeze the scoreboard")
    try:
        server.timeline.freeze_now()
    except ValueError as exc:
        raise Refused(409, str(exc)) from None
    return publish_contest(server, now, Audit(viewer, "contest.freeze", {}))


def set_language(
    server: Served, viewer: Viewer, language_id: str, body: Callable[[], Any], now: float
) -> dict[str, Any]:
    """A language's time factor, or whether it takes submissions (issue 47), changed live (ours: a PATCH of
    the language, DOMjudge's properties): the language's event and the audit line in the change's
    transaction. A factor applies to what is judged from then on; ``allow_submit`` to submissions made from
    then on (teams'; an admin may still submit). Returns the language object."""
    access.admin(viewer, "change a language's time factor or whether it takes submissions")
    lang = server.languages.get(language_id)
    if lang is None:
        raise Refused(404, f"no language {language_id!r}")
    factor, allowed = parse_language_change(body(), lang.id)

    def publish_now(w: Writer, at: float) -> None:
        info = server.timeline.phase.info  # the new one
        obj = language_json(lang, info.time_factor(lang.id), info.allows_language(lang.id))
        publish_if_changed(w, "languages", lang.id, obj, now=at)

    if factor is not None:
        before = server.contest.info.time_factor(lang.id)

        def publish(w: Writer, at: float) -> None:
            publish_now(w, at)
            detail = {"language_id": lang.id, "time_factor": factor, "was": before}
            audit(w, viewer, at, "language.time_factor", detail)

        server.timeline.set_time_factor(lang.id, factor, publish)
    if allowed is not None:
        was = server.contest.info.allows_language(lang.id)

        def publish_allowed(w: Writer, at: float) -> None:
            publish_now(w, at)
            detail = {"language_id": lang.id, "allow_submit": allowed, "was": was}
            audit(w, viewer, at, "language.allow_submit", detail)

        server.timeline.set_live(lambda s: s.with_allowed(lang.id, allowed), publish_allowed)
    info = server.timeline.phase.info
    return language_json(lang, info.time_factor(lang.id), info.allows_language(lang.id))


@dataclass(frozen=True)
class Audit:
    """The audit log's line of a change: who, what, the details."""

    viewer: Viewer
    action: str
    detail: dict[str, Any]


def publish_contest(server: Served, now: float, why: Audit) -> dict[str, Any]:
    """Publish the contest object after a change to its times, freeze or thaw, and audit it; return it."""
    with server.storage.write() as w:
        obj = publish_contest_in(w, server, now, why)
    server.bus.notify()
    return obj


def publish_contest_in(w: Writer, server: Served, now: float, why: Audit) -> dict[str, Any]:
    """``publish_contest`` in the caller's transaction."""
    obj = server.timeline.contest_json()
    publish_if_changed(w, "contest", None, obj, now=now)
    audit(w, why.viewer, now, why.action, why.detail)
    return obj
