"""A contest package an admin uploads to a running site (issue 44, ``/site/contests/new``): checked in
memory, then written as the site's ``contests/<id>/`` (owner-only), which the wiring loads and adds
(serve/site/site.py). Two kinds of zip are taken, at the zip's root or in its one top folder:

- a contest package: ``contest.yaml`` (or .json), ``problems.yaml`` (or .json), and the problem packages
  it brings (``problems/<id>/``; the others are the site's). Written as it is. Its people are the site's: a
  package with its own ``accounts``/``teams``/``groups``/``organizations`` file is refused, as at the start;
- an archive ``judge contest export`` wrote (``api.json`` and ``event-feed.ndjson`` beside contest.json): the
  contest it describes is made again, empty: its ``contest.json`` becomes contest.yaml (the setup's keys:
  not its thaw, not its pause), its ``problems.json`` the problems (the site's packages of those ids), its
  ``teams.json`` the teams taking part (``teams:``: each must be a team of the site). Its submissions,
  judgements, clarifications and accounts are not taken (the results are replayed by `judge serve --replay`).

Refused, each a 400 (413: too large) with one line, nothing written: a zip that is not one, zip slip,
symbolic links, too many files or bytes (model/package_zip.py), no contest.yaml, a served contest's state
(``contest.sqlite``, ``packages/``: a contest added starts empty), an id that is not one. An id the site has
already is the wiring's 409. ``contest_id`` (the form's, optional) stores the contest under another id.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from judge.serve.model import package_zip
from judge.serve.model.contest import PEOPLE_FILES, valid_id
from judge.serve.model.errors import Refused

UPLOAD_LIMIT = 64 * 1024 * 1024  # the zip, and what it unpacks to (as a problem package's: previews.py)
UPLOAD_FILES = 20_000
CONTEST_FILES = ("contest.yaml", "contest.json")
EXPORT_MARKS = ("api.json", "event-feed.ndjson")  # `judge contest export`'s archive (services/archive.py)
EXPORT_KEYS = (  # contest.json's keys that are the contest's setup (not the state of the contest it ran)
    "id",
    "name",
    "formal_name",
    "start_time",
    "duration",
    "scoreboard_freeze_duration",
    "scoreboard_type",
    "penalty_time",
    "main_scoreboard_group_id",
)
STATE_NAMES = ("contest.sqlite", "contest.sqlite-wal", "contest.sqlite-shm", "contest.sqlite-journal", "packages")
SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class ContestUpload:
    """A checked upload: the contest's id and the files of its folder (relative to ``contests/<id>/``)."""

    contest_id: str
    files: tuple[package_zip.Member, ...]
    from_export: bool


def _load(name: str, data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
        return json.loads(text) if name.endswith(".json") else yaml.safe_load(text)
    except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError):
        raise Refused(400, f"{name} is not valid {'JSON' if name.endswith('.json') else 'YAML'}") from None


def _dump_yaml(data: Mapping[str, Any], why: str) -> bytes:
    return (f"# {why}\n" + yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True)).encode("utf-8")


def _at_root(files: list[package_zip.Member], names: tuple[str, ...]) -> list[str]:
    return [n.name for n, _ in files if len(n.parts) == 1 and n.name in names]


def read_upload(data: bytes, contest_id: str | None = None) -> ContestUpload:
    """The contest a zip holds (see the module's doc), or Refused. ``contest_id``: store it under this id."""
    files = package_zip.members(data, UPLOAD_LIMIT, UPLOAD_FILES, links=False)
    files = package_zip.strip_top(files, CONTEST_FILES)
    found = _at_root(files, CONTEST_FILES)
    if not found:
        raise Refused(
            400,
            "the zip holds no contest.yaml (at its root or in its one folder): a contest package is contest.yaml, "
            "problems.yaml and its problems/<id>/ (or an archive `judge contest export` wrote)",
        )
    contest_name = sorted(found, key=CONTEST_FILES.index)[0]
    by_name = {n.as_posix(): b for n, b in files}
    info = _load(contest_name, by_name[contest_name])
    if not isinstance(info, dict):
        raise Refused(400, f"{contest_name}: expected a mapping (id, name, start_time, duration, ...)")
    export = all(mark in by_name for mark in EXPORT_MARKS)
    if export:
        out, info = _from_export(by_name, info)
    else:
        out = _package_files(files)
    original = info.get("id")
    cid = contest_id.strip() if contest_id and contest_id.strip() else original
    if not isinstance(cid, str) or not valid_id(cid):
        raise Refused(400, f"contest id {cid!r}: letters, digits, '_', '.', '-' (at most 36)")
    if export or cid != original:
        info = {**info, "id": cid}
        why = "made from an archive `judge contest export` wrote" if export else f"uploaded as {cid!r}"
        out = [(n, b) for n, b in out if n.as_posix() not in CONTEST_FILES]
        out.append((PurePosixPath("contest.yaml"), _dump_yaml(info, f"{why} (site page /site/contests/new)")))
    return ContestUpload(cid, tuple(sorted(out)), export)


def _package_files(files: list[package_zip.Member]) -> list[package_zip.Member]:
    """A contest package's files as they are, after refusing its own people and a served contest's state."""
    for n, _ in files:
        top = n.parts[0]
        stem, suffix = os.path.splitext(top)
        if len(n.parts) == 1 and stem in PEOPLE_FILES and suffix in SUFFIXES:
            raise Refused(
                400,
                f"{top}: a site's contest has no people of its own (they are the site's: leave it out, and choose "
                "the contest's teams with `teams:` in contest.yaml)",
            )
        if top in STATE_NAMES:
            raise Refused(
                400,
                f"{top}: the zip holds a served contest's state; a contest added starts empty: leave out "
                "contest.sqlite and packages/ (`judge contest export` keeps a contest's results)",
            )
    if not _at_root(files, ("problems.yaml", "problems.json")):
        raise Refused(400, "the zip holds no problems.yaml beside its contest.yaml")
    return files


def _from_export(by_name: Mapping[str, bytes], contest: dict[str, Any]) -> tuple[list[package_zip.Member], dict]:
    """contest.yaml's keys and the problems of an archive `judge contest export` wrote."""
    if "problems.json" not in by_name:
        raise Refused(400, "the archive holds no problems.json")
    info = {k: contest[k] for k in EXPORT_KEYS if contest.get(k) is not None}
    teams = _load("teams.json", by_name["teams.json"]) if "teams.json" in by_name else []
    if not isinstance(teams, list) or not all(isinstance(t, dict) and isinstance(t.get("id"), str) for t in teams):
        raise Refused(400, "teams.json: expected a list of teams with their ids")
    info["teams"] = [t["id"] for t in teams]
    return [(PurePosixPath("problems.json"), by_name["problems.json"])], info


def write_upload(contests_dir: Path, upload: ContestUpload) -> Path:
    """``contests_dir/<id>/`` with the upload's files (folders 0700, files 0600 from their creation: a
    package's secret data), written in a hidden folder beside it first and renamed into place. The caller
    holds the site's lock, checked the id is free, and removes the folder when loading it fails."""
    folder = contests_dir / upload.contest_id
    if folder.exists():
        raise Refused(409, f"{upload.contest_id!r}: the site has a contest (or a folder) of that id already")
    contests_dir.mkdir(mode=0o700, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".upload-", dir=contests_dir))  # hidden: never a contest of the site
    try:
        for name, content in upload.files:
            dest = staging.joinpath(*name.parts)
            for n in range(1, len(name.parts)):
                staging.joinpath(*name.parts[:n]).mkdir(mode=0o700, exist_ok=True)
            fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(content)
        os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder
