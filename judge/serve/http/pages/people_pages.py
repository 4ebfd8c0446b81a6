"""Teams and accounts while the contest runs (issue 30), the organizers' pages: every team and account
(judges see them; admins change them): add or edit a team or an account, hide or show a team, disable or
enable an account, reset a password (the new one is shown on the answer page, once: it is nowhere else);
and the audit log (admins). Each calls the same service as the API's extension (http/api/live.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlencode

from starlette.responses import Response

from judge.serve.http.pages import notices
from judge.serve.http.pages.web import Page, PageSpec, Redirect
from judge.serve.model.errors import Refused
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role
from judge.serve.services.people import audit, roster


def _context(page: Page) -> dict[str, Any]:
    contest, roster = page.server.contest, page.server.roster.current
    assert roster is not None
    by_team: dict[str | None, list[Any]] = {}
    for a in contest.accounts:
        by_team.setdefault(a.team_id, []).append(a)
    return {
        "teams": contest.teams,
        "accounts_of": by_team,
        "staff_accounts": by_team.get(None, []),
        "disabled": roster.disabled,
        "groups": contest.groups,
        "organizations": contest.organizations,
        "message": None,
        "error": None,
        "passwords": [],
    }


def people_page(page: Page) -> Response:
    """The page; after a change (303 here from the form's POST) its notice, and the passwords it made, once."""
    page.need_staff()
    passwords = page.server.reveals.take(page.cookie, page.query.get("shown"), page.now)
    context = {**_context(page), "message": notices.shown(page.query.get("message")), "passwords": passwords}
    return page.render("serve/admin_people.html", **context)


def _done(page: Page, message: str, passwords: Sequence[tuple[str, str]] = ()) -> Response:
    """A change is made: 303 to the page (a reload re-posts nothing), with its notice and the passwords it
    made (held in memory for this session, shown once: services/people/reveal.py)."""
    query = {"message": message}
    if passwords:
        query["shown"] = page.server.reveals.put(page.cookie, tuple(passwords), page.now)
    raise Redirect(page.url("/admin/people?" + urlencode(query)))


def _acted(page: Page, action: Callable[[], Response]) -> Response:
    """Run ``action`` (a service call); a refusal for an admin is the page again with why (nothing changed)."""
    page.need_staff()
    try:
        return action()
    except Refused as exc:
        if page.viewer.role is not Role.ADMIN:
            raise
        context = {**_context(page), "error": exc.message}
        return page.render("serve/admin_people.html", status=exc.status, **context)


def save_team(page: Page) -> Response:
    f = page.form
    body: dict[str, Any] = {"id": f.get("id", "").strip(), "hidden": f.get("hidden") == "on"}
    for key in ("name", "label", "display_name", "organization_id"):
        if f.get(key, "").strip():
            body[key] = f[key].strip()
    body["group_ids"] = [f["group_id"]] if f.get("group_id") else []

    def act() -> Response:
        obj = roster.put_team(page.server, page.viewer, body["id"], body, page.now)
        return _done(page, notices.notice(notices.TEAM_SAVED, id=obj["id"]))

    return _acted(page, act)


def save_object(page: Page) -> Response:
    """A group or an organization (the form's ``kind``)."""
    kind = "organizations" if page.form.get("kind") == "organizations" else "groups"
    keys = ("name", "type") if kind == "groups" else ("name", "formal_name", "country")
    body: dict[str, Any] = {"id": page.form.get("id", "").strip()}
    body.update({k: page.form[k].strip() for k in keys if page.form.get(k, "").strip()})

    def act() -> Response:
        obj = roster.put_object(page.server, page.viewer, kind, body["id"], body, page.now)
        return _done(page, notices.notice(notices.OBJECT_SAVED, what=kind[:-1], id=obj["id"]))

    return _acted(page, act)


def hide_team(page: Page) -> Response:
    hidden = page.form.get("hidden") == "1"

    def act() -> Response:
        roster.set_hidden(page.server, page.viewer, page.params["id"], hidden, page.now)
        return _done(page, notices.notice(notices.TEAM_HIDDEN if hidden else notices.TEAM_SHOWN, id=page.params["id"]))

    return _acted(page, act)


def save_account(page: Page) -> Response:
    f = page.form
    body: dict[str, Any] = {"id": f.get("id", "").strip(), "type": f.get("type", "")}
    for key in ("username", "name", "team_id", "password"):
        if f.get(key, "").strip():
            body[key] = f[key].strip()
    if body["type"] != "team":
        body.pop("team_id", None)

    def act() -> Response:
        obj, password = roster.put_account(page.server, page.viewer, body["id"], body, page.now)
        shown = () if password is None or "password" in body else ((obj["username"], password),)
        return _done(page, notices.notice(notices.ACCOUNT_SAVED, id=obj["id"]), shown)

    return _acted(page, act)


def reset_password(page: Page) -> Response:
    def act() -> Response:
        if page.viewer.role is Role.ADMIN:  # others are refused by the service, unasked
            page.confirm("reset-password", back=page.url("/admin/people"), id=page.params["id"])
        password = roster.reset_password(page.server, page.viewer, page.params["id"], page.now)
        account = page.server.contest
        username = next(a.username for a in account.accounts if a.id == page.params["id"])
        return _done(page, notices.notice(notices.PASSWORD_RESET, id=page.params["id"]), ((username, password),))

    return _acted(page, act)


def disable(page: Page) -> Response:
    disabled = page.form.get("disabled") == "1"

    def act() -> Response:
        if disabled and page.viewer.role is Role.ADMIN:
            page.confirm("disable", back=page.url("/admin/people"), id=page.params["id"])
        roster.set_disabled(page.server, page.viewer, page.params["id"], disabled, page.now)
        template = notices.ACCOUNT_DISABLED if disabled else notices.ACCOUNT_ENABLED
        return _done(page, notices.notice(template, id=page.params["id"]))

    return _acted(page, act)


def import_file(page: Page) -> Response:
    """An uploaded teams.json, accounts.yaml, teams.tsv or accounts.tsv."""
    upload = page.files.get("file")

    def act() -> Response:
        if upload is None or not upload.data:
            raise Refused(400, "choose a file to import")
        try:
            text = upload.data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(400, f"{upload.filename}: not UTF-8 text") from None
        generated = roster.import_entries(page.server, page.viewer, (upload.filename, text), page.now)
        return _done(page, notices.IMPORTED, generated)

    return _acted(page, act)


def audit_page(page: Page) -> Response:
    page.need_staff()
    entries = audit.audit_log(page.server, page.viewer)
    rows = [(format_time(e.time_s), e.username, e.action, e.detail) for e in entries]
    return page.render("serve/admin_audit.html", rows=rows, limit=audit.AUDIT_LIMIT)


PEOPLE_PAGES: tuple[PageSpec, ...] = (
    PageSpec("GET", "/admin/people", people_page),
    PageSpec("POST", "/admin/teams", save_team),
    PageSpec("POST", "/admin/groups", save_object),
    PageSpec("POST", "/admin/people/import", import_file, form_limit="submission"),
    PageSpec("POST", "/admin/teams/{id}/hidden", hide_team),
    PageSpec("POST", "/admin/accounts", save_account),
    PageSpec("POST", "/admin/accounts/{id}/reset-password", reset_password),
    PageSpec("POST", "/admin/accounts/{id}/disabled", disable),
    PageSpec("GET", "/admin/audit", audit_page),
)
