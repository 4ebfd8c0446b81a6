"""An LMS's bulk download on disk (issue 48; docs/course.md, "Grading an LMS download"): a zip or the folder it
was unpacked into, read safely; the files placed (course/lmsmatch.py) written as a contest folder `judge grade`
reads (``<student>/<problem>.<n>.<ext>``, with a times.yaml of when each was made); the report of every file.

A zip is read entry by entry, never extracted as it is: an entry whose path leaves the folder (``..``, an
absolute path, a drive), a symbolic link, an encrypted entry, a file over ``MAX_FILE_BYTES``, more than
``MAX_FILES`` files or more than ``MAX_TOTAL_BYTES`` in all refuse the whole download with one line (and nothing
written). A folder is read the same way (a symbolic link or a special file in it refuses it). The zip's own
folders and the files a desktop adds (``__MACOSX/``, ``.DS_Store``, ``Thumbs.db``) are skipped, and listed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from judge.course.export import cell, csv_text
from judge.course.lmsmatch import Placed, Plan
from judge.course.lmsnames import parse_canvas, parse_moodle
from judge.course.sitefiles import write_private
from judge.grade.discovery import TIMES_NAME
from judge.scoreboard.times import format_time

MAX_FILE_BYTES = 8 * 1024 * 1024  # a student's source file; a bigger one is not a program to judge
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_FILES = 20_000
JUNK = ("__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini")
STAGED_MARK = ".judge-lms-download"  # the staging folder's mark: only a folder with it is ever replaced
_EXTENSION = re.compile(r"^\.[A-Za-z0-9+_-]{1,16}$")


class DownloadError(Exception):
    """The download cannot be read, or is refused (one line)."""


@dataclass(frozen=True)
class Download:
    source: Path
    files: Mapping[str, bytes]  # path inside the download ("/"-separated) -> its bytes
    skipped: tuple[tuple[str, str], ...]  # (path, why): the desktop's files


def _parts(name: str) -> list[str]:
    return [p for p in re.split(r"[/\\]", name) if p not in ("", ".")]


def _escapes(name: str) -> bool:
    return (
        name.startswith(("/", "\\"))
        or re.match(r"^[A-Za-z]:", name) is not None
        or ".." in re.split(r"[/\\]", name)
        or "\x00" in name
    )


def _junk(parts: Sequence[str]) -> bool:
    return any(p in JUNK or p.startswith("._") for p in parts)


def _check_total(source: Path, count: int, total: int) -> None:
    if count > MAX_FILES:
        raise DownloadError(f"{source}: more than {MAX_FILES} files: refused")
    if total > MAX_TOTAL_BYTES:
        raise DownloadError(f"{source}: more than {MAX_TOTAL_BYTES // 2**20} MiB in all: refused")


def _read_zip(source: Path) -> Download:
    files: dict[str, bytes] = {}
    skipped: list[tuple[str, str]] = []
    total = 0
    try:
        with zipfile.ZipFile(source) as zf:
            infos = zf.infolist()
            for info in infos:  # every entry checked before any is read
                name = info.filename
                if _escapes(name):
                    raise DownloadError(f"{source}: the entry {name!r} points outside the folder: refused (zip slip)")
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise DownloadError(f"{source}: the entry {name!r} is a symbolic link: refused")
                if info.flag_bits & 0x1:
                    raise DownloadError(f"{source}: the entry {name!r} is encrypted: refused")
                if info.file_size > MAX_FILE_BYTES:
                    raise DownloadError(
                        f"{source}: the entry {name!r} is {info.file_size} bytes (at most {MAX_FILE_BYTES}): refused"
                    )
                total += info.file_size
                _check_total(source, len(infos), total)
            for info in infos:
                parts = _parts(info.filename)
                if info.is_dir() or not parts:
                    continue
                path = "/".join(parts)
                if _junk(parts):
                    skipped.append((path, "a file the desktop adds, not a submission"))
                    continue
                if path in files:
                    raise DownloadError(f"{source}: the entry {path!r} is in it twice: refused")
                try:  # zipfile reads no more than the header says, and checks the CRC at the end
                    with zf.open(info) as fh:
                        data = fh.read(MAX_FILE_BYTES + 1)
                except zipfile.BadZipFile as exc:
                    raise DownloadError(f"{source}: the entry {path!r} is broken ({exc}): refused") from None
                if len(data) > MAX_FILE_BYTES:  # never, while zipfile keeps to the header: checked all the same
                    raise DownloadError(f"{source}: the entry {path!r} is over {MAX_FILE_BYTES} bytes: refused")
                files[path] = data
    except zipfile.BadZipFile as exc:
        raise DownloadError(f"{source}: not a zip file ({exc})") from None
    except (zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        raise DownloadError(f"{source}: a broken or unsupported zip ({type(exc).__name__}: {exc})") from None
    except OSError as exc:
        raise DownloadError(f"{source}: cannot read it ({exc.strerror or exc})") from None
    return Download(source, files, tuple(skipped))


def _read_dir(source: Path) -> Download:
    files: dict[str, bytes] = {}
    skipped: list[tuple[str, str]] = []
    found: list[tuple[str, Path]] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(source, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            p = here / name
            rel = p.relative_to(source).as_posix()
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                raise DownloadError(f"{source}: {rel} is a symbolic link: refused")
            if stat.S_ISDIR(st.st_mode):
                continue
            if not stat.S_ISREG(st.st_mode):
                raise DownloadError(f"{source}: {rel} is not a regular file: refused")
            if st.st_size > MAX_FILE_BYTES:
                raise DownloadError(f"{source}: {rel} is {st.st_size} bytes (at most {MAX_FILE_BYTES}): refused")
            total += st.st_size
            found.append((rel, p))
            _check_total(source, len(found), total)
    for rel, p in sorted(found):
        parts = rel.split("/")
        if _junk(parts) or parts[0] == STAGED_MARK:
            skipped.append((rel, "a file the desktop adds, not a submission"))
            continue
        try:
            files[rel] = p.read_bytes()
        except OSError as exc:
            raise DownloadError(f"{source}: cannot read {rel} ({exc.strerror})") from None
    return Download(source, files, tuple(skipped))


def read_download(source: Path) -> Download:
    """The files of a zip or a folder. Raises DownloadError."""
    if source.is_dir():
        return _read_dir(source)
    if source.is_file():
        return _read_zip(source)
    raise DownloadError(f"{source}: no such file or folder")


def looks_like_download(source: Path) -> bool:
    """Whether ``source`` is an LMS download rather than a contest folder: a file or a name ending in ``.zip``, or a
    folder most of whose files have a Moodle or a Canvas name."""
    if source.is_file() or source.suffix.lower() == ".zip":
        return True
    if not source.is_dir():
        return False
    names = [
        (Path(d) / f).relative_to(source).as_posix()
        for d, _, fs in os.walk(source, followlinks=False)
        for f in fs
        if not f.startswith(".") and f != TIMES_NAME
    ]
    lms = sum(1 for n in names if parse_moodle(n) is not None or parse_canvas(n) is not None)
    return bool(names) and lms * 2 > len(names)


@dataclass(frozen=True)
class Staged:
    root: Path
    by_rel: Mapping[str, Placed]  # "<student>/<problem>.<n>.<ext>" -> the file placed there


def _extension(file_name: str) -> str:
    base = file_name.rsplit("/", 1)[-1]
    ext = os.path.splitext(base)[1]
    return ext if _EXTENSION.match(ext) else ""


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def stage(plan: Plan, download: Download, dest: Path) -> Staged:
    """Write the placed files as a contest folder in ``dest`` (replaced if it is an earlier staging; owner-only:
    students' code), with a times.yaml of when each was made."""
    if dest.exists():
        if not (dest / STAGED_MARK).is_file():
            raise DownloadError(f"{dest}: exists and is not a folder this command wrote: move it away")
        shutil.rmtree(dest)
    dest.mkdir(mode=0o700, parents=True)
    _write_private(dest / STAGED_MARK, f"the files of {download.source.name}, placed by `judge grade`\n".encode())
    counts: dict[tuple[str, str], int] = {}
    by_rel: dict[str, Placed] = {}
    times: dict[str, str] = {}
    for p in plan.placed:
        key = (p.student.id, p.problem)
        counts[key] = counts.get(key, 0) + 1
        rel = f"{p.student.id}/{p.problem}.{counts[key]}{_extension(p.file.file_name)}"
        folder = dest / p.student.id
        folder.mkdir(mode=0o700, exist_ok=True)
        _write_private(dest / rel, download.files[p.file.path])
        by_rel[rel] = p
        times[rel] = format_time(p.time_s)
    _write_private(
        dest / TIMES_NAME,
        (
            "# when each file was made, as the LMS's download says (docs/course.md, Grading an LMS download)\n"
            + yaml.safe_dump(times, sort_keys=True)
        ).encode(),
    )
    return Staged(dest, by_rel)


REPORT_HEADERS = ("file", "status", "student", "name", "found by", "problem", "graded as", "made at", "why then")


def report_rows(plan: Plan, staged: Staged, download: Download) -> list[list[str]]:
    """Every file of the download, one row each: placed (where, whose, which problem, when and why) or not
    (why not)."""
    rows = [list(REPORT_HEADERS)]
    where = {p.file.path: rel for rel, p in staged.by_rel.items()}
    for p in plan.placed:
        rows.append(
            [p.file.path, "graded", p.student.id, p.student.name, p.found_by, p.problem, where[p.file.path],
             format_time(p.time_s), p.when]
        )  # fmt: skip
    for u in plan.unplaced:
        rows.append([u.path, f"not graded: {u.reason}", "", "", "", "", "", "", ""])
    for path, why in download.skipped:
        rows.append([path, f"skipped: {why}", "", "", "", "", "", "", ""])
    return rows


def write_report(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """The report, owner-only (its names are students'); a cell a spreadsheet would run is quoted (export.cell)."""
    write_private(path, csv_text([[cell(c) for c in r] for r in rows]))
