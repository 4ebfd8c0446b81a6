"""A finished contest again, read-only, from its contest package archive (`judge contest export`, or the
admin download): `judge serve --replay ARCHIVE` serves what the public may see of it, as the live server
served it after the finalize and the thaw.

The archive is the staff's view (every account, every run, every clarification, every file); a replay
shows the public's: the contest, its state, judgement types, languages, problems, groups, organizations,
teams, submissions (not their files), judgements, the clarifications sent to everyone (without
``reply_to_id``: the public does not see questions), awards and the scoreboard; not accounts, runs, files,
nor a team's own questions and answers. The event feed is the archive's, narrowed the same way and
numbered anew (a token is the line's place in this stream). Only a contest finalized and thawed
(``end_of_updates``) is replayed (before that, the staff's board is not the public's: the freeze). Nothing
is written.

Several archives make one read-only site (`judge serve --replay A.zip B.zip`): each contest once (two
archives of one contest id are refused), in the order given.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.serve.model.contest import valid_id

# endpoint -> whether the public sees it (in the replay)
PUBLIC = (
    "contest",
    "state",
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "submissions",
    "judgements",
    "clarifications",
    "awards",
    "scoreboard",
)
MAX_MEMBER_BYTES = 256 * 1024 * 1024


class ReplayError(Exception):
    """The archive cannot be replayed (one line)."""


@dataclass(frozen=True)
class Replay:
    contest_id: str
    api: Mapping[str, Any]
    docs: Mapping[str, Any]  # endpoint (PUBLIC) -> its JSON, as the public sees it
    feed: tuple[str, ...]  # the NDJSON lines, numbered for this stream


def _public_clarification(c: Mapping[str, Any]) -> dict[str, Any] | None:
    """A clarification as the public sees it: one sent to everyone, without what it replies to."""
    if c.get("from_team_id") is not None or c.get("to_team_ids") or c.get("to_group_ids"):
        return None
    return {k: v for k, v in c.items() if k not in ("reply_to_id", "to_team_ids", "to_group_ids")}


def _public_event(event: Mapping[str, Any]) -> dict[str, Any] | None:
    kind, data = event.get("type"), event.get("data")
    if kind not in PUBLIC:
        return None
    if kind == "clarifications" and data is not None:
        data = _public_clarification(data)
        if data is None:
            return None
    return {"type": kind, "id": event.get("id"), "data": data}


def _read(files: Mapping[str, bytes], name: str) -> Any:
    if name not in files:
        raise ReplayError(f"the archive has no {name} (is it a contest package archive of `judge contest export`?)")
    try:
        return json.loads(files[name])
    except (ValueError, UnicodeDecodeError):
        raise ReplayError(f"{name}: not valid JSON") from None


def _members(path: Path) -> dict[str, bytes]:
    """The archive's top-level files (a zip, or a folder it was unpacked into)."""
    names = [f"{k}.json" for k in PUBLIC] + ["api.json", "event-feed.ndjson"]
    if path.is_dir():
        return {n: (path / n).read_bytes() for n in names if (path / n).is_file()}
    try:
        with zipfile.ZipFile(path) as zf:
            present = {i.filename: i for i in zf.infolist() if i.filename in names}
            if any(i.file_size > MAX_MEMBER_BYTES for i in present.values()):
                raise ReplayError(f"{path}: a file of the archive is larger than {MAX_MEMBER_BYTES} bytes")
            return {n: zf.read(i) for n, i in present.items()}
    except (OSError, zipfile.BadZipFile) as exc:
        raise ReplayError(f"{path}: not a contest package archive (a zip or a folder): {exc}") from None


def load_replay(path: Path) -> Replay:
    """Read the archive at ``path``. Raises ReplayError (one line)."""
    files = _members(path)
    docs = {kind: _read(files, f"{kind}.json") for kind in PUBLIC}
    if not isinstance(docs["state"], dict) or not docs["state"].get("end_of_updates"):
        raise ReplayError(
            f"{path}: the contest was not finalized and thawed when exported (do both, then export again)"
        )
    if not isinstance(docs["contest"], dict) or not isinstance(docs["contest"].get("id"), str):
        raise ReplayError(f"{path}: contest.json has no id")
    if not valid_id(docs["contest"]["id"]):
        raise ReplayError(f"{path}: contest.json's id {docs['contest']['id']!r} is not a Contest API id")
    clars = docs["clarifications"] if isinstance(docs["clarifications"], list) else []
    docs["clarifications"] = [p for p in (_public_clarification(c) for c in clars) if p is not None]
    lines: list[str] = []
    for raw in files.get("event-feed.ndjson", b"").decode("utf-8", "replace").splitlines():
        try:
            event = _public_event(json.loads(raw)) if raw.strip() else None
        except ValueError:
            raise ReplayError("event-feed.ndjson: a line is not valid JSON") from None
        if event is not None:
            event["token"] = str(len(lines) + 1)
            lines.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")
    api = _read(files, "api.json") if "api.json" in files else {"version": "draft"}
    return Replay(docs["contest"]["id"], api, docs, tuple(lines))


def load_replays(paths: Sequence[Path]) -> tuple[Replay, ...]:
    """Read the archives at ``paths``, in that order: one site of finished contests. Raises ReplayError (one
    line) for an archive that cannot be replayed, or a contest id that two archives share."""
    replays: list[Replay] = []
    seen: dict[str, Path] = {}
    for path in paths:
        replay = load_replay(path)
        if replay.contest_id in seen:
            raise ReplayError(
                f"{path}: contest {replay.contest_id!r} is also {seen[replay.contest_id]}'s "
                "(each contest once in a replay: give one archive per contest id)"
            )
        seen[replay.contest_id] = path
        replays.append(replay)
    return tuple(replays)
