"""DOMjudge compatibility (docs/serve.md): the submission form DOMjudge's command-line ``submit`` client
posts, read into the same ``SubmissionRequest`` as the spec's JSON body, for the same submit service.

``POST /api/contests/<id>/submissions`` as multipart/form-data: ``problem`` (or ``problem_id``), ``language``
(or ``language_id``), optionally ``entry_point``, an admin's ``team_id`` and ``time``, and the source files in
``code[]`` (one part each, at the root: no folders).
"""

from __future__ import annotations

from judge.judging.jobs import SourceFile
from judge.serve.http.forms import Form
from judge.serve.model.errors import Refused
from judge.serve.model.upload import SubmissionFiles, SubmissionRequest

FILE_FIELDS = ("code[]", "code")
NAMES = {"problem": "problem_id", "language": "language_id"}  # DOMjudge's field -> the spec's property
FIELDS = ("problem", "problem_id", "language", "language_id", "entry_point", "team_id", "time")


def _field(form: Form, name: str) -> str | None:
    """A field by DOMjudge's name or the spec's (not both)."""
    values = [form.fields[k] for k in (name, NAMES.get(name, name)) if k in form.fields]
    if len(set(values)) > 1:
        raise Refused(400, f"`{name}` and `{NAMES[name]}` differ")
    return values[0] if values else None


def domjudge_submission(form: Form, *, staff: bool) -> SubmissionRequest:
    """The form's submission (not yet the contest's rules). Raises Refused (400)."""
    unknown = sorted(set(form.fields) - set(FIELDS))
    stray = sorted({field for field, _ in form.files} - set(FILE_FIELDS))
    if unknown or stray:
        raise Refused(400, f"unknown form fields {', '.join(unknown + stray)} (allowed: {', '.join(FIELDS)}, code[])")
    for key in ("problem", "language"):
        if not _field(form, key):
            raise Refused(400, f"`{key}` is required")
    if "time" in form.fields and not staff:
        raise Refused(400, "`time` must not be provided: the server sets it")
    files = tuple(SourceFile(f.filename.replace("\\", "/").rsplit("/", 1)[-1], f.data) for _, f in form.files)
    if not files:
        raise Refused(400, "no files: send the source files in code[]")
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        raise Refused(400, "two files of the same name")
    entry = form.fields.get("entry_point") or None
    if entry is not None and len(entry) > 255:
        raise Refused(400, "`entry_point` is too long")
    return SubmissionRequest(
        problem_id=_field(form, "problem") or "",
        language_id=_field(form, "language") or "",
        files=SubmissionFiles(files=files),
        entry_point=entry,
        team_id=form.fields.get("team_id") or None,
        time=form.fields.get("time") or None,
    )
