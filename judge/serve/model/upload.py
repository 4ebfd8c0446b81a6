"""A submission as the Contest API posts it: ``{"problem_id", "language_id", "files": [{"data": <base64
zip>}], "entry_point"?}``; checked completely before anything is stored, and unpacked again for judging.

The zip holds the submission's files at its root (folders other than ``__MACOSX/`` are refused), at most
64 files, at most the problem's ``code_limit`` KiB both packed and unpacked. One file is judged as that
file; several as a folder named after the entry point (for Python the file to run, for Java the main
class; without one the judge picks ``main.*``, then the usual rules, see docs/package-format.md).
"""

from __future__ import annotations

import base64
import binascii
import io
import stat
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from judge.judging.jobs import MAX_FOLDER_FILES, SourceFile
from judge.languages.table import Language
from judge.serve.model.contest import Contest
from judge.serve.model.errors import Refused

# Properties a POST may carry; which of them a team may set is checked below.
ALLOWED = ("id", "language_id", "problem_id", "team_id", "time", "contest_time", "entry_point", "files", "reaction")


@dataclass(frozen=True)
class SubmissionFiles:
    """A submission's files as they arrive: the zip the API posts, or a page form's named files."""

    zip_bytes: bytes | None = None
    files: tuple[SourceFile, ...] = ()

    def read(self, limit_bytes: int) -> tuple[list[SourceFile], bytes]:
        """The files, checked against the limit, and the zip to store: made anew from the checked files, so
        it holds regular files only (a posted zip's symlink flags, extra fields, folders and comments are
        not kept: whoever unpacks the download gets the files that were judged, issue 27). Raises Refused."""
        if self.zip_bytes is not None:
            files = unpack(self.zip_bytes, limit_bytes)
            return files, pack({f.name: f.data for f in files})
        for f in self.files:
            check_name(f.name)
        total = sum(len(f.data) for f in self.files)
        if total > limit_bytes:
            raise Refused(413, f"the files are {total} bytes: more than the limit of {limit_bytes // 1024} KiB")
        return sorted(self.files, key=lambda f: f.name), pack({f.name: f.data for f in self.files})


@dataclass(frozen=True)
class SubmissionRequest:
    """A submission as someone asks for it, before the contest's rules are checked (services.submissions)."""

    problem_id: str
    language_id: str
    files: SubmissionFiles
    entry_point: str | None = None
    team_id: str | None = None  # as given (None: the poster's own team)
    time: Any = None  # as given (admins only)


def check_name(name: str) -> None:
    """A submission's file name: at the root (no folders), not hidden. Raises Refused (400)."""
    if "/" in name or "\\" in name or "\0" in name or name in (".", "..") or not name.strip():
        raise Refused(400, f"{name!r}: files must be at the root of the zip (no folders)")
    if name.startswith("."):
        raise Refused(400, f"{name!r}: hidden files are not part of a submission")


def unpack(data: bytes, limit_bytes: int) -> list[SourceFile]:
    """The files of a submission zip. Raises Refused (400, or 413 when too large)."""
    if len(data) > limit_bytes:
        raise Refused(413, f"the zip is {len(data)} bytes: more than the limit of {limit_bytes // 1024} KiB")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
            if not infos:
                raise Refused(400, "the zip holds no files")
            if len(infos) > MAX_FOLDER_FILES:
                raise Refused(400, f"the zip holds {len(infos)} files: at most {MAX_FOLDER_FILES}")
            if sum(i.file_size for i in infos) > limit_bytes:
                raise Refused(413, f"the files unpack to more than the limit of {limit_bytes // 1024} KiB")
            out: list[SourceFile] = []
            total = 0
            for info in infos:
                name = info.filename
                check_name(name)
                with zf.open(info) as f:
                    content = f.read(limit_bytes + 1)
                total += len(content)
                if total > limit_bytes:
                    raise Refused(413, f"the files unpack to more than the limit of {limit_bytes // 1024} KiB")
                out.append(SourceFile(name, content))
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - zipfile raises many kinds (BadZipFile, RuntimeError, zlib.error, ...)
        raise Refused(400, f"files[0].data is not a readable zip archive ({type(exc).__name__}: {exc})") from None
    names = [f.name for f in out]
    if len(set(names)) != len(names):
        raise Refused(400, "the zip holds two files of the same name")
    return sorted(out, key=lambda f: f.name)


def main_file(files: list[SourceFile], lang: Language, entry_point: str | None) -> SourceFile | None:
    """The file the entry point names (or the only one in the language, or main.*); None: let the build pick."""
    sources = [f for f in files if PurePosixPath(f.name).suffix.lower() in lang.extensions]
    if entry_point is not None:
        return next((f for f in sources if lang.entry_point_names(entry_point, f.name)), None)
    if len(sources) == 1:
        return sources[0]
    return next((f for f in sources if PurePosixPath(f.name).stem.lower() == "main"), None)


def default_entry_point(files: list[SourceFile], lang: Language) -> str | None:
    """What the spec calls the entry point, when the client gave none: the main file, or the class it
    declares, for a language whose table says it takes one (languages.toml ``entry_point``)."""
    if not lang.takes_entry_point:
        return None
    main = main_file(files, lang, None)
    if main is None:
        return None
    return lang.default_entry_point(main.name, main.data.decode("utf-8", errors="replace"))


def job_files(
    files: list[SourceFile], lang: Language, entry_point: str | None
) -> tuple[tuple[SourceFile, ...], str | None]:
    """(files, folder) for a JudgeJob: one file alone; several in a folder the build's main-file rule
    resolves to the entry point (it prefers a file whose stem is the folder's name)."""
    if len(files) == 1:
        return (files[0],), None
    main = main_file(files, lang, entry_point)
    folder = PurePosixPath(main.name).stem if main is not None else "submission"
    return tuple(files), folder


def parse_upload(body: Any, *, staff: bool) -> SubmissionRequest:
    """The POST body's shape (not yet the contest's rules). Raises Refused (400)."""
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object with problem_id, language_id and files")
    unknown = sorted(set(body) - set(ALLOWED))
    if unknown:
        raise Refused(400, f"unknown properties {', '.join(unknown)} (allowed: {', '.join(ALLOWED)})")
    forbidden = ["id", "contest_time", "reaction"] + ([] if staff else ["time"])
    for key in forbidden:
        if key in body:
            raise Refused(400, f"`{key}` must not be provided: the server sets it")
    for key in ("problem_id", "language_id"):
        if not isinstance(body.get(key), str) or not body[key]:
            raise Refused(400, f"`{key}` is required (a string)")
    entry = body.get("entry_point")
    if entry is not None and (not isinstance(entry, str) or not entry or len(entry) > 255):
        raise Refused(400, "`entry_point` must be a non-empty string")
    team = body.get("team_id")
    if team is not None and not isinstance(team, str):
        raise Refused(400, "`team_id` must be a string")
    files = body.get("files")
    if not isinstance(files, list) or len(files) != 1 or not isinstance(files[0], dict):
        raise Refused(400, '`files` must be a list of exactly one object: [{"data": "<base64 zip>"}]')
    item = files[0]
    if item.get("mime") not in (None, "application/zip"):
        raise Refused(400, f"files[0].mime must be application/zip, got {item['mime']!r}")
    data = item.get("data")
    if not isinstance(data, str):
        raise Refused(400, "files[0].data is required: the submission's files as a base64-encoded zip")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise Refused(400, "files[0].data is not valid base64") from None
    return SubmissionRequest(
        body["problem_id"], body["language_id"], SubmissionFiles(zip_bytes=raw), entry, team, body.get("time")
    )


@dataclass(frozen=True)
class CheckedUpload:
    files: list[SourceFile]
    files_zip: bytes  # what is stored (and downloaded)
    entry_point: str | None


def check_upload(request: SubmissionRequest, contest: Contest, languages: Mapping[str, Language]) -> CheckedUpload:
    """The contest's rules for an upload: known problem and language, the size limit, a source file in the
    language, an entry point that exists. Returns the files, the zip and the entry point to store."""
    upload = request
    cp = contest.problem(upload.problem_id)
    if cp is None:
        known = ", ".join(p.id for p in contest.problems)
        raise Refused(400, f"unknown problem {upload.problem_id!r} (problems: {known})")
    lang = languages.get(upload.language_id)
    if lang is None:
        raise Refused(400, f"unknown language {upload.language_id!r} (languages: {', '.join(sorted(languages))})")
    if not cp.problem.allows(lang.code):  # the problem's own rule (problem.yaml `languages`), before any file
        allowed = ", ".join(sorted(cp.problem.languages or ()))
        raise Refused(400, f"problem {cp.id} does not take {lang.name} submissions (its languages: {allowed})")
    files, files_zip = upload.files.read(cp.code_limit_kib * 1024)
    if not any(PurePosixPath(f.name).suffix.lower() in lang.extensions for f in files):
        raise Refused(400, no_source(upload.files, files, lang, languages))
    entry = upload.entry_point if lang.takes_entry_point else None
    if entry is not None and main_file(files, lang, entry) is None:
        raise Refused(400, f"entry_point {entry!r} names no {lang.name} file in the zip")
    return CheckedUpload(files, files_zip, entry or default_entry_point(files, lang))


def no_source(sent: SubmissionFiles, files: list[SourceFile], lang: Language, languages: Mapping[str, Language]) -> str:
    """Why the files hold no source file in ``lang``, in the words of what was sent: a zip (the API's JSON), or
    files as they are (a page's upload or pasted code, DOMjudge's form); for one file, the languages its
    extension would fit."""
    exts = ", ".join(lang.extensions)
    if sent.zip_bytes is not None:
        return f"the zip holds no {lang.name} source file ({exts})"
    if len(files) > 1:
        return f"none of the files is a {lang.name} source file ({exts})"
    name = files[0].name
    suffix = PurePosixPath(name).suffix.lower()
    fits = [other.name for other in languages.values() if suffix and suffix in other.extensions]
    said = f"{name} is not a {lang.name} source file ({exts})"
    if not fits:
        return said
    if len(fits) == 1:
        return f"{said}: {suffix} is {fits[0]}'s extension; choose that language"
    return f"{said}: {suffix} is the extension of {', '.join(fits[:-1])} and {fits[-1]}; choose one of those"


def pack(files: Mapping[str, bytes]) -> bytes:
    """A zip of ``files`` at its root: what a client base64-encodes into ``files[0].data``, and what is stored.
    Regular files (mode 0644), a fixed date: the same files always make the same bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return buf.getvalue()
