"""Printing (issue 30): a team (or a judge, trying the printer) sends a text file; it is stored and listed
for the jury (team, time, file, text) and, when contest.yaml has a ``print_command``, sent to the printer
with a banner line naming the team (runner/printer.py runs the command; its outcome is kept: sent, or
failed with why). A team sees its own print-outs only. At most ``PRINTS`` per ``PRINT_WINDOW_S`` per
account; the text at most the contest's code limit, UTF-8."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from judge.serve.model.errors import Refused
from judge.serve.model.records import PrintRecord
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services import access
from judge.serve.services.people import audit

if TYPE_CHECKING:
    from judge.serve.services.server import Server

PRINTS = 10
PRINT_WINDOW_S = 300.0
Printer = Callable[[Sequence[str], bytes], "str | None"]  # (argv, data) -> None, or why it failed


def _checked(server: Server, filename: str, data: bytes) -> tuple[str, str]:
    name = filename.replace("\\", "/").rsplit("/", 1)[-1].strip()[:100] or "print.txt"
    limit = server.contest.info.code_limit_kib * 1024
    if not data:
        raise Refused(400, "nothing to print: the file is empty")
    if len(data) > limit:
        raise Refused(413, f"{name}: {len(data)} bytes, more than the {limit} bytes a print-out may have")
    try:
        return name, data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, f"{name}: only text (UTF-8) can be printed") from None


def submit_print(server: Server, viewer: Viewer, filename: str, data: bytes, now: float) -> PrintRecord:
    """Store a print-out and send it to the printer when there is one. Returns it with its status."""
    access.authenticated(viewer, "print")
    if viewer.role is not Role.TEAM and not viewer.staff:
        raise Refused(403, "only teams and the jury may print")
    name, text = _checked(server, filename, data)
    command = server.contest.info.print_command
    username = viewer.username or "?"
    with server.storage.write() as w:
        if w.recent_prints(username, now - PRINT_WINDOW_S) >= PRINTS:
            raise Refused(429, f"at most {PRINTS} print-outs per {PRINT_WINDOW_S / 60:.0f} minutes")
        status = "listed" if command is None else "sending"
        stored = w.add_print(PrintRecord(0, viewer.team_id, username, name, text, now, status))
        audit(w, viewer, now, "print", {"id": str(stored.id), "file": name, "bytes": len(data)})
    if command is None:
        return stored
    team = server.contest.team(viewer.team_id) if viewer.team_id else None
    who = f"team {team.display_name or team.name} ({team.id})" if team else username
    banner = f"--- {who}, {format_time(now)}, {name} ---\n"
    failed = server.printer(command, (banner + text).encode("utf-8"))
    status = "sent" if failed is None else f"failed: {failed}"
    with server.storage.write() as w:
        w.set_print_status(stored.id, status)
    if failed is not None:
        server.log(f"print-out {stored.id}: {failed}")
    return PrintRecord(stored.id, stored.team_id, username, name, text, now, status)


def print_list(server: Server, viewer: Viewer) -> list[PrintRecord]:
    """Staff: every print-out; a team: its own."""
    access.authenticated(viewer, "see print-outs")
    if not viewer.staff and viewer.role is not Role.TEAM:
        raise Refused(403, "only teams and the jury have print-outs")
    with server.storage.read() as r:
        return r.prints(None if viewer.staff else viewer.team_id)


def mark_delivered(server: Server, viewer: Viewer, print_id: int | None, delivered: bool, now: float) -> None:
    """The jury marks a print-out delivered to its team (or not): the print queue's mark (issue 43)."""
    access.staff(viewer, "mark print-outs delivered")
    with server.storage.write() as w:
        if print_id is None or not w.set_print_delivered(print_id, now if delivered else None):
            raise Refused(404, "no such print-out")
        audit(w, viewer, now, "print.delivered" if delivered else "print.undelivered", {"id": str(print_id)})
