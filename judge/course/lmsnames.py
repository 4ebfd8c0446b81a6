"""The names of the files in an LMS's bulk download of an assignment's submissions (issue 48; docs/course.md,
"Grading an LMS download", cites the sources). Pure: a path inside the download in, what it says out.

- **Moodle** (the assignment module's "Download all submissions", ``mod/assign/locallib.php``,
  ``download_submissions``): each student's files under a folder ``<full name>_<participant id>_assignsubmission_
  file_/`` (Moodle >= 3.1, the default; the file's own folders kept below it), or, with "Download submissions in
  folders" off, flat: ``<full name>_<participant id>_assignsubmission_file_<file name>``. The full name has its
  ``_`` made spaces; with group submissions it is ``<group name>-<full name>``; with blind marking it is
  ``Participant``. The participant id is Moodle's per-assignment number (the grading worksheet's ``Identifier``,
  ``Participant <id>``), not the user's id. The online text plugin writes ``..._assignsubmission_onlinetext_/``.
- **Canvas** ("Download Submissions", ``lib/content_zipper.rb``): flat files ``<name>_<user id>_<attachment id>_
  <file name>``, ``<name>_LATE_<user id>_...`` when the submission was late (older Canvas wrote ``late``). The
  name is the student's sortable name ("Last, First"), lower case, every character that is not a letter, a digit
  or ``_`` removed (``doejohn``); with anonymous grading it is absent and the id is ``anon_<anonymous id>``. A
  text entry is ``<name>_<user id>_text.html``, a URL ``..._link.html``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Layout(Enum):
    MOODLE = "moodle"
    CANVAS = "canvas"


@dataclass(frozen=True)
class LmsFile:
    """One file of a download and what its name says."""

    path: str  # the path inside the download ("/"-separated)
    layout: Layout
    lms_id: str  # Moodle's participant id; Canvas's user id ("anon_..." when anonymous)
    name: str  # Moodle's full name; Canvas's sanitized sortable name ("" when anonymous)
    file_name: str  # the student's own file name (Moodle: with the folders below the student's, "/"-separated)
    late: bool = False  # Canvas's LATE marker (Moodle's names have none)
    plugin: str = "file"  # Moodle's submission plugin (file, onlinetext); Canvas: file, text, link

    @property
    def anonymous(self) -> bool:
        return self.lms_id.startswith("anon_") or (self.layout is Layout.MOODLE and not self.name)


_MOODLE_FOLDER = re.compile(r"^(?P<name>.*)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_$")
_MOODLE_FLAT = re.compile(r"^(?P<name>.*?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<file>.+)$")
_CANVAS = re.compile(
    r"^(?:(?P<name>\w*?)_)??(?:(?P<late>LATE|late)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<att>\d+)_(?P<file>.+)$"
)
_CANVAS_ONLINE = re.compile(
    r"^(?:(?P<name>\w*?)_)??(?:(?P<late>LATE|late)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<kind>text|link)\.html$"
)
_NOT_WORD = re.compile(r"[^\w]+")
_UNDERSCORED_DIGITS = re.compile(r"_(\d+)_")
_CANVAS_FILE_CHARS = re.compile(r'[\x00/\\:*?"<>|]+')


def parse_moodle(path: str) -> LmsFile | None:
    """What a Moodle download's entry says (None: not a Moodle name)."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return None
    for i, part in enumerate(parts[:-1]):  # the student's folder (the zip may have been put in another folder)
        m = _MOODLE_FOLDER.match(part)
        if m is not None:
            name = "" if m["name"] == "Participant" else m["name"]
            return LmsFile(path, Layout.MOODLE, m["id"], name, "/".join(parts[i + 1 :]), plugin=m["plugin"])
    m = _MOODLE_FLAT.match(parts[-1])
    if m is None:
        return None
    name = "" if m["name"] == "Participant" else m["name"]
    return LmsFile(path, Layout.MOODLE, m["id"], name, m["file"], plugin=m["plugin"])


def parse_canvas(path: str) -> LmsFile | None:
    """What a Canvas download's entry says (None: not a Canvas name). Only the last part of the path is read
    (Canvas's download is flat; a folder it was unpacked into does not matter)."""
    base = path.rsplit("/", 1)[-1]
    m = _CANVAS_ONLINE.match(base)
    if m is not None:
        return LmsFile(path, Layout.CANVAS, m["id"], m["name"] or "", base, m["late"] is not None, m["kind"])
    m = _CANVAS.match(base)
    if m is None:
        return None
    return LmsFile(path, Layout.CANVAS, m["id"], m["name"] or "", m["file"], m["late"] is not None)


def parse_entry(path: str, layout: Layout) -> LmsFile | None:
    return parse_moodle(path) if layout is Layout.MOODLE else parse_canvas(path)


def detect_layout(paths: Iterable[str]) -> Layout | None:
    """The layout most of the files' names follow (Moodle's is tried first: its names are the more specific);
    None when neither fits any."""
    paths = list(paths)
    moodle = sum(parse_moodle(p) is not None for p in paths)
    canvas = sum(parse_canvas(p) is not None for p in paths)
    if moodle == 0 and canvas == 0:
        return None
    return Layout.MOODLE if moodle >= canvas else Layout.CANVAS


# The names as the LMS makes them (for the tests' round trips, and the docs' examples)


def moodle_clean(text: str) -> str:
    """Moodle's ``clean_filename`` (PARAM_FILE) of a name, for the characters a person's name may hold: the
    characters not allowed in a file name removed."""
    return re.sub(r'[\x00-\x1f\x7f/\\:*?"<>|]', "", text)


def moodle_name(full_name: str, participant_id: str, file_name: str, *, folders: bool = True) -> str:
    """The path Moodle gives a student's file in its download (``folders``: "Download submissions in folders")."""
    prefix = moodle_clean(full_name.replace("_", " ")) + f"_{participant_id}"
    if folders:
        return f"{prefix}_assignsubmission_file_/{file_name}"
    return f"{prefix}_assignsubmission_file_{file_name}"


def canvas_user_name(sortable_name: str) -> str:
    """Canvas's name part: the sortable name with ``_<digits>_`` collapsed, lower case, then every character
    that is not a letter, a digit or ``_`` removed (``Doe, John`` -> ``doejohn``)."""
    collapsed = _UNDERSCORED_DIGITS.sub(r"\1", unicodedata.normalize("NFC", sortable_name)).lower()
    return _NOT_WORD.sub("", collapsed)


def canvas_name(sortable_name: str, user_id: str, attachment_id: str, file_name: str, *, late: bool = False) -> str:
    """The name Canvas gives a student's uploaded file in its download."""
    parts = [canvas_user_name(sortable_name), *(["LATE"] if late else []), user_id]
    head = _NOT_WORD.sub("", "_".join(parts))  # Canvas's sanitize_file_name (``_`` is a word character)
    return f"{head}_{attachment_id}_{_CANVAS_FILE_CHARS.sub('_', file_name)}"


# Names compared


def name_key(text: str) -> str:
    """A name as names are compared: NFC, case folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def name_keys(full_name: str) -> frozenset[str]:
    """The keys a roster's name (``First Last``) may appear as in a download: Moodle's full name as given and
    last-name-first (both as ``name_key``), and Canvas's sanitized sortable name for every split of the name into
    first and last names ("Leslie Spärck Jones": ``jonesleslie spärck`` or ``spärck jonesleslie``, sanitized)."""
    words = unicodedata.normalize("NFC", full_name).split()
    keys = {name_key(full_name)}
    for k in range(1, len(words)):
        first, last = " ".join(words[:k]), " ".join(words[k:])
        keys.add(name_key(f"{last} {first}"))
        keys.add(canvas_user_name(f"{last}, {first}"))
    if len(words) == 1:
        keys.add(canvas_user_name(words[0]))
    return frozenset(k for k in keys if k)


def file_key(f: LmsFile) -> str:
    """The file's name as ``name_keys`` writes names."""
    return name_key(f.name) if f.layout is Layout.MOODLE else canvas_user_name(f.name)
