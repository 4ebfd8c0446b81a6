"""The report as HTML (jinja2 templates in judge/similarity/templates/, autoescape on: names and code are
contestants' text) and as JSON: ``OUT/index.html`` (per problem, the pairs ranked and the clusters),
``OUT/<problem>/<rank>.html`` (a pair side by side, the matching regions highlighted) and
``OUT/similarity.json``. ``marked_lines`` is also what `judge serve`'s pair page draws."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from judge.similarity.model import Pair, Region, Report, Source

TEMPLATES = Path(__file__).resolve().parent / "templates"
JSON_NAME = "similarity.json"
MAX_SHOWN_CHARS = 200_000  # of one side: a bigger source is cut on its page (the JSON has every region)


def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def marked_lines(files: Sequence[tuple[str, str]], regions: Sequence[Region]) -> list[dict[str, Any]]:
    """Per file: its name and lines, each line a list of (text, marked) pieces, marked where a region is."""
    out = []
    shown = 0
    for name, text in files:
        text = text[: max(0, MAX_SHOWN_CHARS - shown)]
        shown += len(text)
        marks = sorted((r.start, r.end) for r in regions if r.file == name)
        lines: list[dict[str, Any]] = []
        at, m = 0, 0
        for number, line in enumerate(text.split("\n"), 1):
            end = at + len(line)
            while m < len(marks) and marks[m][1] <= at:  # regions that end before this line
                m += 1
            pieces: list[tuple[str, bool]] = []
            cursor, k = at, m
            while k < len(marks) and marks[k][0] < end:
                lo, hi = max(marks[k][0], cursor), min(marks[k][1], end)
                if lo < hi:
                    if lo > cursor:
                        pieces.append((text[cursor:lo], False))
                    pieces.append((text[lo:hi], True))
                    cursor = hi
                k += 1
            if cursor < end or not pieces:
                pieces.append((text[cursor:end], False))
            lines.append({"number": number, "pieces": pieces, "marked": any(mk for _, mk in pieces)})
            at = end + 1
        if lines and lines[-1]["pieces"] == [("", False)]:
            lines.pop()  # the file's last newline
        out.append({"name": name, "lines": lines})
    return out


def pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def safe(name: str) -> str:
    """A file name of ``[A-Za-z0-9_-]`` for a problem id."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name) or "_"


def pair_href(problem: str, rank: int) -> str:
    return f"{safe(problem)}/{rank}.html"


def write_json(report: Report, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def pair_context(problem: str, rank: int, pair: Pair, sources: Mapping[str, Source]) -> dict[str, Any]:
    sides = []
    for side in (pair.a, pair.b):
        src = sources.get(side.id)
        files = src.files if src is not None else ()
        sides.append({"side": side, "files": marked_lines(files, side.regions)})
    return {"problem": problem, "rank": rank, "pair": pair, "sides": sides, "pct": pct}


def write_report(
    report: Report, sources: Mapping[str, Source], out: Path, *, title: str = "Similar submissions"
) -> Path:
    """Write the HTML pages and the JSON into ``out``, made owner-only (an earlier report's pages there are
    replaced)."""
    env = environment()
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o700)  # contestants' code, and who may have copied whom: the owner's only
    for p in report.problems:
        folder = out / safe(p.problem)
        if folder.is_dir():
            shutil.rmtree(folder)
        for rank, pair in enumerate(p.pairs, 1):
            html = env.get_template("pair.html").render(pair_context(p.problem, rank, pair, sources), title=title)
            _write(out / pair_href(p.problem, rank), html)
    index = env.get_template("index.html").render(report=report, title=title, pct=pct, pair_href=pair_href)
    _write(out / "index.html", index)
    write_json(report, out / JSON_NAME)
    return out / "index.html"
