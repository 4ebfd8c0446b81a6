"""A course's feedback rules on the event feed (issue 45, docs/course.md): what a student is shown of their
own submissions changes when a switch passes (their due time, their window's close) and when the instructor
publishes the grades. The REST views ask visibility.py at each request; the feed's events carry the audience
decided when they were published (a viewer's stream only grows), so what becomes visible is published again,
as the thaw does for the frozen judgements: the judgements and runs of each student whose feedback changed,
to the audiences the rules give them now.

- ``publish_switched``, on the contest clock's tick: the students whose feedback differs between the last
  time the feed was brought up to date (``course_switched`` in ``meta``) and now; nothing is written when
  nobody's changed.
- ``publish_grades``: the instructor's action (admins), stored (``course_published``) and audited, once: what
  was shown cannot be taken back."""

from __future__ import annotations

from dataclasses import replace

from judge.serve.model.apijson import run_id, run_json
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.coursework import PUBLISHED_KEY, SWITCHED_KEY
from judge.serve.services.core.events import publish
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.judging.publishing import publish_judgement
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit
from judge.serve.storage import Writer
from judge.serve.visibility import run_audience


def republish_for(w: Writer, server: ServedJudging, teams: set[str], now: float) -> int:
    """Publish again the judgements and runs of ``teams``' submissions to the audiences the course's rules give
    them now. Returns how many submissions."""
    course = server.course.view(server.contest)
    phase, info = server.timeline.phase, server.contest.info
    subs = {s.id: s for s in w.submissions() if s.team_id in teams}
    if not subs:
        return 0
    judgements = w.judgements(submission_ids=list(subs))
    for j in judgements:
        publish_judgement(w, phase, j, subs[j.submission_id], now, course)
    by_id = {j.id: j for j in judgements}
    for r in w.runs(judgement_ids=list(by_id)):
        audience = run_audience(phase, subs[r.submission_id], by_id[r.judgement_id], course, r.name, now)
        publish(w, "runs", run_id(r), run_json(r, info), now=now, audience=audience)
    return len(subs)


def publish_switched(server: ServedJudging, now: float) -> None:
    """On the clock's tick: publish again what a switch passing since the last tick shows a student."""
    work = server.course
    state = work.state
    if state is None:
        return
    view = work.view(server.contest)
    assert view is not None
    since = state.switched_s
    teams = set() if since is None else view.changed(since, now)
    if since is not None and not teams:
        return
    with work.lock:
        with server.storage.write() as w:
            w.set_meta(SWITCHED_KEY, repr(now))
            count = republish_for(w, server, teams, now)
        current = work.state
        if current is not None:
            work.set(replace(current, switched_s=now))
    if count:
        server.log(
            f"course: a switch passed: the feedback of {count} submission(s) of {len(teams)} student(s) published"
        )
        server.bus.notify()


def publish_grades(server: ServedJudging, viewer: Viewer, now: float) -> float:
    """The instructor publishes the grades (admins): what the feedback rules keep until then (``switch:
    published``, ``score: published``) is shown, on every channel at once. Stored, audited; once. Returns when."""
    access.admin(viewer, "publish the grades")
    work = server.course
    with work.lock:
        state = work.state
        if state is None:
            raise Refused(404, "this contest is not a course's assignment: it has no grades to publish")
        if state.published_s is not None:
            raise Refused(409, f"the grades were published at {format_time(state.published_s)}")
        before = work.view(server.contest)
        assert before is not None
        work.set(replace(state, published_s=now))
        try:
            after = work.view(server.contest)
            assert after is not None
            problems = [p.id for p in server.contest.problems]
            teams = {
                t.id
                for t in server.contest.teams
                if any(
                    before.shown(True, False, t.id, p, now) != after.shown(True, False, t.id, p, now) for p in problems
                )
            }
            with server.storage.write() as w:
                w.set_meta(PUBLISHED_KEY, repr(now))
                count = republish_for(w, server, teams, now)
                audit(w, viewer, now, "course.publish_grades", {"students": len(teams), "submissions": count})
        except BaseException:
            work.set(state)
            raise
    server.bus.notify()
    return now
