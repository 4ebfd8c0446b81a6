"""Who may do what (as opposed to see: visibility.py): the role checks every use case starts with."""

from __future__ import annotations

from judge.serve.model.errors import Refused
from judge.serve.model.viewer import Role, Viewer

REALM = 'Basic realm="judge", charset="UTF-8"'


def authenticated(viewer: Viewer, what: str) -> None:
    if viewer.role is Role.PUBLIC:
        raise Refused(401, f"log in to {what}", {"WWW-Authenticate": REALM})


def staff(viewer: Viewer, what: str) -> None:
    authenticated(viewer, what)
    if not viewer.staff:
        raise Refused(403, f"only judges and admins may {what}")


def admin(viewer: Viewer, what: str) -> None:
    authenticated(viewer, what)
    if viewer.role is not Role.ADMIN:
        raise Refused(403, f"only admins may {what}")
