"""The audit log (issue 30): one line per change an admin or a judge makes, written in the change's own
transaction (``audit``), and the admins' view of it."""

from __future__ import annotations

import json
from typing import Any

from judge.serve.model.records import AuditRecord
from judge.serve.model.viewer import Viewer
from judge.serve.services.core.context import Served
from judge.serve.services.people import access
from judge.serve.storage import Writer

AUDIT_LIMIT = 500


def audit(w: Writer, viewer: Viewer, now: float, action: str, detail: dict[str, Any]) -> None:
    """One line of the audit log, in the caller's transaction."""
    text = json.dumps(detail, sort_keys=True, ensure_ascii=False)
    w.add_audit(AuditRecord(now, viewer.account_id, viewer.username or "?", action, text))


def audit_log(server: Served, viewer: Viewer) -> list[AuditRecord]:
    access.admin(viewer, "see the audit log")
    with server.storage.read() as r:
        return r.audit(AUDIT_LIMIT)
