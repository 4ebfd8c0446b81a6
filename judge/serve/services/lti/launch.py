"""An LTI 1.3 launch (issue 48): the OIDC login initiation, then the launch whose id_token is checked (the
state, the platform's signature, every claim: model/lti.check_launch, the nonce once only), then the LMS user
logged in as their account, and where they land.

Nothing is stored before every check has passed: a refused launch is a 4xx with one line (logged once by the
handler), and leaves the database as it was. The login initiation stores nothing either: its state is signed
by the tool (tool.py) and carried by the browser (a cookie, and the platform's form), so that a flood of
initiations costs nothing.

A student's first launch maps the LMS user (issuer + sub) to a roster account: the one of their SIS id
(``lis.person_sourcedid``) or email, else a new student added to the roster as an import adds one
(people/course_roster.add_student). An instructor's or a TA's launch logs in as the account lti.yaml names for
the platform (``instructor_account``, ``ta_account``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from judge.course.roster import Student
from judge.course.sitefiles import read_people, roster_from
from judge.course.values import CourseError
from judge.serve.model import ltijwt
from judge.serve.model.errors import Refused
from judge.serve.model.lti import (
    DEEP_LINKING_REQUEST,
    Kind,
    Launch,
    LtiLink,
    LtiUser,
    check_launch,
    student_id,
)
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.lti.tool import LtiTool, State
from judge.serve.services.people import sessions
from judge.serve.services.people.audit import audit
from judge.serve.services.people.context import ServedPeople
from judge.serve.services.people.course_roster import add_student
from judge.serve.services.people.site_people import SitePeople

LTI_VIEWER = Viewer(Role.ADMIN, None, "lti")  # who the audit log says made a change a launch made


@dataclass(frozen=True)
class LoginStart:
    redirect: str  # the platform's authorization URL with the request
    state: str  # also the state cookie's value


def login_start(tool: LtiTool, params: Mapping[str, str], now: float) -> LoginStart:
    """The OIDC third-party initiated login (Security Framework §5.1.1): the platform, the authorization request
    (Core §5.1.1.2: response_type id_token, form_post, prompt none, a fresh nonce), its state signed."""
    issuer = params.get("iss", "")
    client_id = params.get("client_id") or None
    platform = tool.config.platform(issuer, client_id)
    if platform is None:
        raise Refused(400, "LTI login refused: no platform of that issuer (and client id) is registered in lti.yaml")
    hint = params.get("login_hint", "")
    if not hint:
        raise Refused(400, "LTI login refused: no login_hint")
    target = params.get("target_link_uri", "")
    if not target.startswith(tool.config.url + "/"):
        raise Refused(400, "LTI login refused: the target_link_uri is not this tool's")
    state = tool.new_state(platform, target, now)
    token = tool.state_token(state)
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": tool.config.urls()["launch"],
        "login_hint": hint,
        "state": token,
        "nonce": state.nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    sep = "&" if "?" in platform.auth_url else "?"
    return LoginStart(platform.auth_url + sep + urlencode(query), token)


def checked(tool: LtiTool, people: SitePeople, form: Mapping[str, str], cookie: str | None, now: float) -> Launch:
    """Every check of a launch, nothing stored: the state (made by this tool, unexpired, the same as the
    browser's cookie), the id_token's signature (the platform's JWKS), its claims, and its nonce never used."""
    if "error" in form:
        raise Refused(400, f"LTI launch refused: the platform answered {form['error'][:60]!r}")
    token_state = form.get("state", "")
    if not token_state or cookie is None or cookie != token_state:
        raise Refused(400, "LTI launch refused: the state does not match this browser's (start again from the LMS)")
    state: State = tool.open_state(token_state, now)
    platform = tool.config.platform(state.issuer, state.client_id)
    if platform is None:
        raise Refused(400, "LTI launch refused: the platform of this login is no longer registered")
    id_token = form.get("id_token", "")
    if not id_token:
        raise Refused(400, "LTI launch refused: no id_token")
    key = tool.platform_key(platform, ltijwt.header_kid(id_token), now)
    launch = check_launch(ltijwt.verified_claims(id_token, key), platform, state.nonce, now)
    with people.storage.read() as r:
        if r.lti_nonce_used(platform.issuer, launch.nonce):
            raise Refused(401, "LTI launch refused: this id_token's nonce was used already (a replay)")
    return launch


@dataclass(frozen=True)
class Landed:
    cookie: str  # the new session
    viewer: Viewer
    to: str  # where the browser goes
    launch: Launch


def _staff_account(people: SitePeople, launch: Launch) -> Viewer:
    wanted = launch.platform.instructor_account if launch.kind == Kind.INSTRUCTOR else launch.platform.ta_account
    key = "instructor_account" if launch.kind == Kind.INSTRUCTOR else "ta_account"
    if not wanted:
        raise Refused(
            403, f"LTI launch refused: lti.yaml names no judge account for this platform's {launch.kind}s ({key})"
        )
    account = next((a for a in people.current().accounts if a.username == wanted), None)
    viewer = None if account is None else people.auth.viewer_of_account(account.id)
    if viewer is None or not viewer.staff:
        raise Refused(403, f"LTI launch refused: lti.yaml's {key} {wanted!r} is not a staff account of the site")
    return viewer


def _student(people: SitePeople, root: Path, launch: Launch) -> tuple[Student | None, str, bool]:
    """(the student to add, or None; their account id; whether the mapping is new)."""
    with people.storage.read() as r:
        mapped = r.lti_user(launch.platform.issuer, launch.sub)
        taken = {u.account_id for u in r.lti_users()}
    try:
        roster = roster_from(read_people(root))
    except CourseError as exc:
        raise Refused(409, str(exc)) from None
    if mapped is not None:
        if roster.get(mapped.account_id) is not None:
            return None, mapped.account_id, False
        return Student(mapped.account_id, launch.name, launch.email), mapped.account_id, False  # withdrawn: back
    by_email = {s.email.lower(): s.id for s in roster.students if s.email}
    sid = student_id(launch.platform.issuer, launch.sub, launch.sourcedid, launch.email, by_email, taken)
    if roster.get(sid) is not None:
        return None, sid, True
    return Student(sid, launch.name or sid, launch.email), sid, True


def complete(
    tool: LtiTool, server: ServedPeople, root: Path, launch: Launch, contest_ids: set[str], now: float
) -> Landed:
    """A checked launch carried out: the nonce recorded (a replay racing this one is refused here), the LMS
    user mapped to their account (a new student added to the roster), the assignment's link kept (its AGS
    and NRPS endpoints), a session, and where to land."""
    people = server.people
    platform = launch.platform
    contest = launch.contest_id if launch.contest_id in contest_ids else None
    if launch.kind == Kind.STUDENT:
        new_student, account_id, new_mapping = _student(people, root, launch)
    else:
        new_student, new_mapping = None, False
        account_id = _staff_account(people, launch).account_id or ""
    with people.storage.write() as w:
        if not w.use_lti_nonce(platform.issuer, launch.nonce, launch.exp_s + 3600, now):
            raise Refused(401, "LTI launch refused: this id_token's nonce was used already (a replay)")
        if launch.kind == Kind.STUDENT:
            w.put_lti_user(LtiUser(platform.issuer, launch.sub, account_id, launch.name, launch.email, now))
            if new_mapping:
                detail = {"issuer": platform.issuer, "account": account_id, "new_student": new_student is not None}
                audit(w, LTI_VIEWER, now, "lti.user", detail)
        if contest is not None and (launch.lineitems_url or launch.lineitem_url or launch.memberships_url):
            w.put_lti_link(
                LtiLink(
                    platform.issuer,
                    platform.client_id,
                    contest,
                    launch.deployment_id,
                    launch.context_id,
                    launch.lineitems_url,
                    launch.lineitem_url,
                    launch.memberships_url,
                    now,
                )
            )
    if new_student is not None:
        added: dict[str, Any] = {"action": "lti.add_student", "id": new_student.id, "issuer": platform.issuer}
        add_student(server, LTI_VIEWER, root, new_student, added, now)
    viewer = people.auth.viewer_of_account(account_id)
    if viewer is None:
        raise Refused(403, "LTI launch refused: this user's account is disabled: ask the instructor")
    cookie = sessions.log_in(people, viewer, now)
    if launch.message_type == DEEP_LINKING_REQUEST:
        context = tool.seal(
            {
                "iss": platform.issuer,
                "client": platform.client_id,
                "deployment": launch.deployment_id,
                "return_url": launch.dl_return_url,
                "data": launch.dl_data,
                "account": account_id,
                "until": now + 3600,
            }
        )
        return Landed(cookie, viewer, "/lti/deep-link?context=" + quote(context), launch)
    if contest is None:
        return Landed(cookie, viewer, "/", launch)
    to = f"/contests/{quote(contest)}/admin/course" if viewer.staff else f"/contests/{quote(contest)}/"
    return Landed(cookie, viewer, to, launch)
