"""Running the contest live (issue 30), the pages: the contest's times for admins (move the start, pause
the countdown, change the duration and the freeze: the API's PATCH of the contest, through the same
service) and the languages' time factors (the API's PATCH of a language), and the status line every page
shows before the start (a countdown, live: the start may move).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.ids import number_id
from judge.serve.http.live_views import balloon_json, counts, errors_json, hold_json, judges_json, queue_json
from judge.serve.http.pages import notices
from judge.serve.http.pages.web import Page, PageSpec, Redirect, contest_time
from judge.serve.model.errors import Refused
from judge.serve.model.times import TimeError, format_reltime, format_time, parse_reltime, parse_time
from judge.serve.model.viewer import Role
from judge.serve.services.desk import balloons
from judge.serve.services.judging import moderation, operations
from judge.serve.services.lifecycle import control


def status(page: Page) -> Response:
    """The contest clock's fragment (layout.html's line, polled by live.js: web.status_line)."""
    return page.render("serve/_status.html")


def _times_context(page: Page, message: str | None) -> dict[str, Any]:
    info, phase = page.server.contest.info, page.sight.phase
    return {
        "message": message,
        "error": None,
        "start_at": None if info.start_s is None else format_time(info.start_s),
        "duration": format_reltime(info.duration_s),
        "freeze_duration": format_reltime(phase.freeze_duration_s()),
        "can_move_start": not phase.started(page.now),
        "factors": [
            (lang.id, lang.name, info.time_factor(lang.id), info.allows_language(lang.id))
            for lang in page.server.languages.values()
        ],
        "removed": [
            {"start": format_time(a), "end": format_time(b), "contest_time": format_reltime(info.contest_time_s(a))}
            for a, b in info.removed
        ],
        "can_remove": phase.running(page.now),
        "end_at": None if info.end_s is None else format_time(info.end_s),
    }


def contest_times(page: Page) -> Response:
    page.need_staff()
    return page.render("serve/admin_contest.html", **_times_context(page, notices.shown(page.query.get("message"))))


def _body(page: Page) -> dict[str, Any]:
    """The API's PATCH body the form asks for. Raises Refused (400)."""
    form = page.form
    body: dict[str, Any] = {"id": page.contest_id}
    action = form.get("action")
    try:
        if action == "start":
            body["start_time"] = format_time(parse_time(form.get("start_time", "").strip(), "start time"))
        elif action == "pause":
            body["start_time"] = None
        elif action == "lengths":
            for key in ("duration", "scoreboard_freeze_duration"):
                text = form.get(key, "").strip()
                if text:
                    body[key] = format_reltime(parse_reltime(text, key))
        else:
            raise Refused(400, "unknown action")
    except TimeError as exc:
        raise Refused(400, str(exc)) from None
    return body


def _time_factor(page: Page) -> str:
    """A language's time factor, as the API's PATCH of the language. Returns the page's notice."""
    language_id, text = page.form.get("language_id", ""), page.form.get("time_factor", "").strip()
    try:
        factor: Any = float(text)
    except ValueError:
        factor = text  # parse_factor refuses it, with the range
    control.set_language(page.server, page.viewer, language_id, lambda: {"time_factor": factor}, page.now)
    return notices.notice(notices.TIME_FACTOR, id=language_id)


def change_times(page: Page) -> Response:
    """The form's change, as the API's PATCH (of the contest, or of a language's time factor); refused: the
    page again, with why."""
    page.need_staff()
    try:
        if page.form.get("action") == "time_factor":
            message = _time_factor(page)
        elif page.form.get("action") == "allow_submit":  # issue 47
            language_id, allowed = page.form.get("language_id", ""), page.form.get("allow_submit") == "1"
            control.set_language(page.server, page.viewer, language_id, lambda: {"allow_submit": allowed}, page.now)
            message = notices.notice(notices.ALLOWED if allowed else notices.FORBIDDEN, id=language_id)
        else:
            body = _body(page)
            control.patch_contest(page.server, page.viewer, lambda: body, page.now)
            message = notices.RESCHEDULED
    except Refused as exc:
        if exc.status in (401, 403) and page.viewer.role is not Role.ADMIN:
            raise
        context = {**_times_context(page, None), "error": exc.message}
        return page.render("serve/admin_contest.html", status=exc.status, **context)
    raise Redirect(page.url("/admin/contest?" + urlencode({"message": message})))


def change_removed(page: Page) -> Response:
    """Add a removed interval (an outage, once it is over) or take one back: the API's PUT of the whole
    list, through the same service; refused: the page again, with why."""
    page.need_staff()
    if page.viewer.role is not Role.ADMIN:
        raise Refused(403, "only admins remove intervals from the contest's time")
    current = [{"start": format_time(a), "end": format_time(b)} for a, b in page.server.contest.info.removed]
    action, index = page.form.get("action"), page.form.get("index", "")
    try:
        if action == "add":
            added = {key: page.form.get(key, "").strip() for key in ("start", "end")}
            for key, text in added.items():
                parse_time(text, f"the interval's {key}")  # one line for a bad time, before anything else
            current.append(added)
        elif action == "delete" and index.isdigit() and int(index) < len(current):
            del current[int(index)]
        else:
            raise Refused(400, "unknown action or interval")
        control.set_removed_intervals(page.server, page.viewer, lambda: current, page.now)
    except (Refused, TimeError) as exc:
        status, message = (exc.status, exc.message) if isinstance(exc, Refused) else (400, str(exc))
        if status in (401, 403) and page.viewer.role is not Role.ADMIN:
            raise
        context = {**_times_context(page, None), "error": message}
        return page.render("serve/admin_contest.html", status=status, **context)
    raise Redirect(page.url("/admin/contest?" + urlencode({"message": notices.RESCHEDULED})))


def ignore_submission(page: Page) -> Response:
    """Ignore a submission (or count it again), as the API's extension does."""
    page.need_staff()
    what = page.params["id"]
    ignored = page.form.get("ignored") == "1"
    moderation.set_ignored(page.server, page.viewer, number_id(what), ignored, page.now, what=what)
    message = notices.notice(notices.IGNORED if ignored else notices.UNIGNORED, id=what)
    raise Redirect(page.url(f"/admin/submissions/{what}?" + urlencode({"message": message})))


def judging_page(page: Page) -> Response:
    """The queue (waiting, held, running and for how long; per problem and language), the judging threads
    and the judge's errors; admins pause, resume, hold and release. Live (``?fragment=1``)."""
    page.need_staff()
    view = operations.queue(page.server, page.viewer)
    rows = queue_json(view, page.now)
    context: dict[str, Any] = {
        "hold": hold_json(view.hold),
        "queue": rows,
        "per_problem": counts(rows, "problem_id"),
        "per_language": counts(rows, "language_id"),
        "judges": judges_json(operations.judges(page.server, page.viewer), page.now),
        "errors": errors_json(operations.errors(page.server, page.viewer)),
        "problems": page.server.contest.problems,
        "message": notices.shown(page.query.get("message")),
    }
    if page.query.get("fragment"):
        return page.render("serve/_admin_judging.html", **context)
    return page.render("serve/admin_judging.html", **context)


def change_judging(page: Page) -> Response:
    page.need_staff()
    action, server = page.form.get("action"), page.server
    problem = page.form.get("problem_id", "")
    if action == "pause" and page.viewer.role is Role.ADMIN:  # others are refused by the service, unasked
        page.confirm("pause", back=page.url("/admin/judging"))
    if action in ("pause", "resume"):
        operations.set_paused(server, page.viewer, action == "pause", page.now)
        message = notices.PAUSED if action == "pause" else notices.RESUMED
    elif action in ("hold", "release"):
        operations.hold_problem(server, page.viewer, problem, action == "hold", page.now)
        message = notices.notice(notices.HELD if action == "hold" else notices.RELEASED, id=problem)
    else:
        raise Refused(400, "unknown action")
    raise Redirect(page.url("/admin/judging?" + urlencode({"message": message})))


def balloons_page(page: Page) -> Response:
    """The runners' list: balloons to deliver first (oldest first), then those delivered. Live. The jury's
    and the balloon runners' (issue 47: the service asks visibility.sees_balloons)."""
    page.need_login()
    found = balloons.balloon_list(page.server, page.viewer)
    start = page.server.contest.info.start_s
    ordered = [*(b for b in found if not b.done), *(b for b in found if b.done)]
    rows = [{**balloon_json(b), "time_s": b.time_s, "contest_time": contest_time(b.time_s, start)} for b in ordered]
    if page.query.get("fragment"):
        return page.render("serve/_admin_balloons.html", balloons=rows)
    return page.render("serve/admin_balloons.html", balloons=rows)


def balloon_done(page: Page) -> Response:
    page.need_login()
    done = page.form.get("done") != "0"
    balloons.mark_done(page.server, page.viewer, number_id(page.params["id"]), done, page.now)
    raise Redirect(page.url("/admin/balloons"))


def review_submission(page: Page) -> Response:
    """Verify the current judgement (or not), with a comment."""
    page.need_staff()
    what = page.params["id"]
    asked = moderation.Review(page.form.get("verified") == "on", page.form.get("comment", ""))
    moderation.review(page.server, page.viewer, number_id(what), asked, page.now)
    message = notices.notice(notices.REVIEWED, id=what)
    raise Redirect(page.url(f"/admin/submissions/{what}?" + urlencode({"message": message})))


LIVE_PAGES: tuple[PageSpec, ...] = (
    PageSpec("POST", "/admin/submissions/{id}/review", review_submission),
    PageSpec("GET", "/admin/balloons", balloons_page, runner=True),  # the jury's and the balloon runners' (issue 47)
    PageSpec("POST", "/admin/balloons/{id}/done", balloon_done, runner=True),
    PageSpec("GET", "/admin/judging", judging_page),
    PageSpec("POST", "/admin/judging", change_judging),
    PageSpec("POST", "/admin/submissions/{id}/ignored", ignore_submission),
    # every page polls it (every 30 s while the contest runs): answered on the event loop, it needs no storage
    PageSpec("GET", "/status", status, on_loop=status, runner=True),
    PageSpec("GET", "/admin/contest", contest_times),
    PageSpec("POST", "/admin/contest", change_times),
    PageSpec("POST", "/admin/contest/removed", change_removed),
)
