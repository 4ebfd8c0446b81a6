"""Printing (issue 30): a team (or a judge, trying the printer) sends a text file; it is stored and listed
for the jury (team, time, file, text) and, when contest.yaml has a ``print_command``, queued for the
printer: ``PrintQueue`` (print_queue.py), a thread of its own, sends the queued print-outs one at a time, each with a
banner line naming the team (runner/printer.py runs the command; its outcome is kept: sent, or failed with
why). A print request never waits for the printer (issue 43: a slow printer held one of the two threads
that submissions and logins share, and another team's submission waited 15.5 s behind it). A team sees its
own print-outs only. At most ``PRINTS`` per ``PRINT_WINDOW_S`` per account; the text at most the
contest's code limit, UTF-8.

Control characters are taken out of what reaches the printer (issue 43): from a file name all of them
(a name with a newline forged a second banner, of another team, on its own page), from the text all but
newline, tab and form feed (ESC and NUL would reach the printer's language: PJL, PCL), a carriage
return read as a line's end."""

from __future__ import annotations

import re

from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused
from judge.serve.model.records import PrintRecord
from judge.serve.model.times import format_time
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.desk.context import ServedDesk
from judge.serve.services.people import access
from judge.serve.services.people.audit import audit

PRINTS = 10
PRINT_WINDOW_S = 300.0
LISTED, QUEUED, SENDING, SENT = "listed", "queued", "sending", "sent"  # and "failed: <why>"

# C0 and C1 controls and DEL, and the Unicode line and paragraph separators
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_TEXT_CONTROLS = re.compile("[\x00-\x08\x0b\x0d-\x1f\x7f-\x9f]")  # all but \t \n \f (\r is made \n first)


def clean_name(name: str) -> str:
    """A file or team name without control characters (they would break the banner's line)."""
    return _NAME_CONTROLS.sub("", name)


def clean_text(text: str) -> str:
    """The text without control characters but newline, tab and form feed; ``\\r\\n`` and ``\\r`` end lines."""
    return _TEXT_CONTROLS.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def _checked(server: ServedDesk, filename: str, data: bytes) -> tuple[str, str]:
    name = clean_name(filename).replace("\\", "/").rsplit("/", 1)[-1].strip()[:100] or "print.txt"
    limit = server.contest.info.code_limit_kib * 1024
    if not data:
        raise Refused(400, "nothing to print: the file is empty")
    if len(data) > limit:
        raise Refused(413, f"{name}: {len(data)} bytes, more than the {limit} bytes a print-out may have")
    try:
        text = clean_text(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise Refused(400, f"{name}: only text (UTF-8) can be printed") from None
    if not text.strip():
        raise Refused(400, f"{name}: nothing to print but control characters")
    return name, text


def submit_print(server: ServedDesk, viewer: Viewer, filename: str, data: bytes, now: float) -> PrintRecord:
    """Store a print-out and, when there is a printer, queue it for the printer (``PrintQueue`` sends it).
    Returns it with its status: ``listed`` (no printer) or ``queued``."""
    access.authenticated(viewer, "print")
    if viewer.role is not Role.TEAM and not viewer.staff:
        raise Refused(403, "only teams and the jury may print")
    server.standing.refuse_if_archived("print-outs")
    name, text = _checked(server, filename, data)
    username = viewer.username or "?"
    with server.storage.write() as w:
        if w.recent_prints(username, now - PRINT_WINDOW_S) >= PRINTS:
            raise Refused(429, f"at most {PRINTS} print-outs per {PRINT_WINDOW_S / 60:.0f} minutes")
        status = LISTED if server.contest.info.print_command is None else QUEUED
        stored = w.add_print(PrintRecord(0, viewer.team_id, username, name, text, now, status))
        audit(w, viewer, now, "print", {"id": str(stored.id), "file": name, "bytes": len(data)})
    if status == QUEUED:
        server.print_queue.wake()
    return stored


def banner(contest: Contest, p: PrintRecord) -> str:
    """The line before a print-out's text: who, when, which file."""
    team = contest.team(p.team_id) if p.team_id else None
    who = f"team {team.display_name or team.name} ({team.id})" if team else p.username
    return clean_name(f"--- {who}, {format_time(p.time_s)}, {p.filename} ---") + "\n"


def send_next(server: ServedDesk) -> bool:
    """Send the oldest print-out waiting for the printer and keep its outcome; False when none waits. One
    left ``sending`` by a server that stopped while it was sent is sent again (at least once)."""
    command = server.contest.info.print_command
    if command is None:
        return False
    with server.storage.write() as w:
        p = w.next_print((QUEUED, SENDING))
        if p is None:
            return False
        w.set_print_status(p.id, SENDING)
    try:
        failed = server.printer(command, (banner(server.contest, p) + p.text).encode("utf-8"))
    except Exception as exc:  # noqa: BLE001 - a print-out's failure is its status, never the queue's end
        failed = f"{type(exc).__name__}: {exc}"
    with server.storage.write() as w:
        w.set_print_status(p.id, SENT if failed is None else f"failed: {failed}")
    if failed is not None:
        server.log(f"print-out {p.id}: {failed}")
    return True


def send_queued(server: ServedDesk) -> int:
    """Send every print-out waiting, here and now (what the queue's thread does); how many."""
    n = 0
    while send_next(server):
        n += 1
    return n


def print_list(server: ServedDesk, viewer: Viewer) -> list[PrintRecord]:
    """Staff: every print-out; a team: its own."""
    access.authenticated(viewer, "see print-outs")
    if not viewer.staff and viewer.role is not Role.TEAM:
        raise Refused(403, "only teams and the jury have print-outs")
    with server.storage.read() as r:
        return r.prints(None if viewer.staff else viewer.team_id)


def mark_delivered(server: ServedDesk, viewer: Viewer, print_id: int | None, delivered: bool, now: float) -> None:
    """The jury marks a print-out delivered to its team (or not): the print queue's mark (issue 43)."""
    access.staff(viewer, "mark print-outs delivered")
    with server.storage.write() as w:
        if print_id is None or not w.set_print_delivered(print_id, now if delivered else None):
            raise Refused(404, "no such print-out")
        audit(w, viewer, now, "print.delivered" if delivered else "print.undelivered", {"id": str(print_id)})
