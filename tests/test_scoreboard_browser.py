"""The scoreboard as a person sees it: rendered by headless Chromium (Debian `chromium`).

The screenshot is kept at ``<board>/screenshot.png``; the board goes to ``$JUDGE_ARTIFACTS/scoreboard``
when that variable is set (CI keeps it as an artifact), else to a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.verdict import Verdict
from judge.scoreboard.model import Board, BoardProblem, BoardRun
from judge.scoreboard.render import write_board

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

CONTESTANTS = ("alder", "birch", "cedar", "elm", "fir", "hazel", "<script>alert(1)</script>", "Ünal & Co")
PROBLEMS = (
    BoardProblem("coins", "Coins", 100.0, metric_name="moves", metric_better="lower"),
    BoardProblem("go", "Go in 80 bytes", 100.0, metric_name="bytes", metric_better="lower"),
    BoardProblem("memory", "Memory", 100.0, metric_name="flips", metric_better="lower", interactive=True),
    BoardProblem("rummy", "Rummy numbers", 100.0),
)
VERDICTS = (Verdict.AC, Verdict.WA, Verdict.TLE, Verdict.RTE, Verdict.AC, Verdict.CE, Verdict.PV, Verdict.AC)


def _board() -> Board:
    runs = {}
    for i, name in enumerate(CONTESTANTS):
        for j, p in enumerate(PROBLEMS):
            if (i + j) % 5 == 4:
                continue  # some cells stay empty
            verdict = VERDICTS[(i + j) % len(VERDICTS)]
            score = 100.0 if verdict is Verdict.AC else 0.0
            case = CaseResult("secret/01", "secret", verdict, score / 100, 0.01 * i, 0.02, 900, message="<b>x</b>")
            runs[(name, p.id)] = BoardRun(
                name,
                p.id,
                f"{name}/{p.id}.py",
                SubmissionResult(
                    p.id, f"{name}/{p.id}.py", "python3", verdict, score, 100.0, 0.01, 900,
                    tests=(case,), test_scores=(score,),
                    metric=(70.0 + i if p.metric_name and verdict is Verdict.AC else None),
                    metric_name=p.metric_name,
                ),
            )  # fmt: skip
    return Board("Demo board", PROBLEMS, CONTESTANTS, runs)


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    argv = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", *args,
    ]  # fmt: skip
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)


class _Cells(HTMLParser):
    """Texts of <td class="contestant"> cells and every tag name, from the DOM Chromium built."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self.tags: set[str] = set()
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self._in = tag == "td" and ("class", "contestant") in attrs
        if self._in:
            self.names.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in = False

    def handle_data(self, data: str) -> None:
        if self._in:
            self.names[-1] += data


def test_the_rendered_board_shows_every_contestant(tmp_path: Path) -> None:
    artifacts = os.environ.get("JUDGE_ARTIFACTS")
    out = Path(artifacts) / "scoreboard" if artifacts else tmp_path / "scoreboard"
    write_board(_board(), out)
    url = (out / "index.html").resolve().as_uri()
    shot = out / "screenshot.png"
    shot.unlink(missing_ok=True)
    done = _chromium(f"--screenshot={shot}", "--window-size=1280,900", url, profile=tmp_path / "profile")
    assert shot.is_file(), done.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (1280, 900)
    assert len(png) > 20_000  # a page with a table, not a blank one

    dom = _chromium("--dump-dom", url, profile=tmp_path / "profile")
    cells = _Cells()
    cells.feed(dom.stdout)
    assert sorted(cells.names) == sorted(CONTESTANTS)  # every contestant, each once, as text
    assert "script" not in cells.tags  # the hostile name stayed text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.stdout
