"""The golden answers of tests/fixtures/serve_v2 with the ids of issue 27 (F1): what the schema-2 release
answered (``answers.schema2.json``, as that release wrote it) renamed, and nothing else changed:

- a judgement's id: its submission's id, with its number among the submission's judgements after the
  first (``7`` -> ``1-2``: the rejudge of submission 1), as model/apijson.judgement_id says;
- a run's id: its judgement's id and the test's ordinal (``29`` -> ``1-2-4``), and its ``judgement_id``;
- an event's ``token``: its place in the stream of the one who reads it (1, 2, ...);
- the same ids in the event feed's lines (``id``, ``data.id``, ``data.judgement_id``).

The old ids are mapped with the fixture's own database (what the schema-2 release stored). Run

    python3 tests/serve_v2_ids.py

to write ``answers.json`` from ``answers.schema2.json``: it first checks that the current release, opening a
copy of the fixture (as tests/test_serve_storage.py does), answers exactly the renamed answers, and writes
nothing otherwise. tests/test_serve_storage.py checks both: the file is the renaming, and the release
answers it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

V2 = Path(__file__).parent / "fixtures" / "serve_v2"
SCHEMA2 = V2 / "answers.schema2.json"
ANSWERS = V2 / "answers.json"


def id_maps(db: Path) -> tuple[dict[str, str], dict[str, str]]:
    """(old judgement id -> new, old run id -> new), from the schema-2 database."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    judgements: dict[str, str] = {}
    count: dict[int, int] = {}
    for jid, sid in conn.execute("SELECT id, submission_id FROM judgements ORDER BY id"):
        count[sid] = count.get(sid, 0) + 1
        judgements[str(jid)] = str(sid) if count[sid] == 1 else f"{sid}-{count[sid]}"
    runs = {
        str(rid): f"{judgements[str(jid)]}-{ordinal}"
        for rid, jid, ordinal in conn.execute("SELECT id, judgement_id, ordinal FROM runs ORDER BY id")
    }
    conn.close()
    return judgements, runs


def _object(kind: str, obj: dict[str, Any], judgements: dict[str, str], runs: dict[str, str]) -> dict[str, Any]:
    out = dict(obj)
    if kind == "judgements":
        out["id"] = judgements[obj["id"]]
    elif kind == "runs":
        out["id"] = runs[obj["id"]]
        out["judgement_id"] = judgements[obj["judgement_id"]]
    return out


def renamed(old: dict[str, Any], db: Path) -> dict[str, Any]:
    """``old`` (the schema-2 release's answers) with the new ids and tokens; nothing else changes."""
    judgements, runs = id_maps(db)
    answers: dict[str, Any] = {}
    for key, value in old["answers"].items():
        if key.endswith(" feed"):
            lines = []
            for token, e in enumerate(value, start=1):
                kind = e["type"]
                data = e["data"] if e["data"] is None else _object(kind, e["data"], judgements, runs)
                new_id = {"judgements": judgements, "runs": runs}.get(kind, {}).get(e["id"], e["id"])
                lines.append({**e, "id": new_id, "data": data, "token": str(token)})
            answers[key] = lines
        elif key.endswith("GET /judgements") or key.endswith("GET /runs"):
            status, body = value
            kind = key.rsplit("/", 1)[1]
            answers[key] = [status, [_object(kind, o, judgements, runs) for o in body]]
        else:
            answers[key] = value
    return {**old, "answers": answers}


def main() -> int:
    sys.path.insert(0, str(Path(__file__).parent))
    from serve_fixtures import Api, FakeClock, make_server
    from test_serve_storage import answers

    want = renamed(json.loads(SCHEMA2.read_text()), V2 / "contest.sqlite")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "contest"
        shutil.copytree(V2, root, ignore=shutil.ignore_patterns("answers*.json", "README.md"))
        server = make_server(root, FakeClock(want["now"]))
        try:
            got = answers(Api.of(server))
        finally:
            server.close()
    differ = sorted(k for k in want["answers"] if got.get(k) != want["answers"][k])
    if differ or got.keys() != want["answers"].keys():
        print(f"the current release does not answer the renamed answers: {differ}", file=sys.stderr)
        return 1
    ANSWERS.write_text(json.dumps(want, indent=0, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {ANSWERS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
