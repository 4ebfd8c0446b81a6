"""`judge grade --explain` (docs/explain.md): every rejected submission on a problem with a fuzz.py is searched
for a fresh input it fails on, shown on its page of the board and in results.json; the search is stored
under the submission's run key, the fuzzer and the budget, so a second run searches nothing; without
--explain nothing changes. The pages of every status, escaped. Real programs in the sandbox, on the fixture
package tests/fixtures_fuzz/add (a + b; its tests: 1 2, 0 0, 10 20, 99 1)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import put
from markupsafe import escape

import judge.fuzz.explain
import judge.grade.explaining
from judge.commands.cli import main
from judge.fuzz.explanation import ExplainStatus, Explanation
from judge.fuzz.options import ExplainBudget
from judge.judging.results import SubmissionResult
from judge.judging.verdict import Verdict
from judge.scoreboard.model import Board, BoardExplanation, BoardProblem, BoardRun, ExplainSettings
from judge.scoreboard.render import write_board

ADD = Path(__file__).parent / "fixtures_fuzz" / "add"
WRONG_FROM_TEN = "a, b = map(int, input().split())\nprint(a + b + (a >= 10))\n"  # WA on the test 10 20
CRASH_ABOVE_50 = "a, b = map(int, input().split())\nassert a + b <= 50, 'too big'\nprint(a + b)\n"  # RTE on 99 1


def add_package(problems: Path) -> Path:
    dst = problems / "add"
    shutil.copytree(ADD, dst, ignore=shutil.ignore_patterns("submissions", "__pycache__"))
    return dst


def grade(root: Path, problems: Path, out: Path, *extra: str) -> int:
    argv = ["grade", str(root), "--problems", str(problems), "--out", str(out), "--json", "--jobs", "2"]
    return main([*argv, *extra])


def explain_rows(out: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(out / "grade.sqlite") as db:
        query = "SELECT id, contestant, problem, examples, seconds, status FROM explain ORDER BY id"
        return db.execute(query).fetchall()


@pytest.fixture
def contest(tmp_path: Path) -> tuple[Path, Path, Path]:
    problems, root, out = tmp_path / "problems", tmp_path / "contest", tmp_path / "board"
    add_package(problems)
    put(root, "right", "add.py", ADD / "submissions" / "accepted" / "add.py")
    put(root, "wrong", "add.py", WRONG_FROM_TEN)
    put(root, "crash", "add.py", CRASH_ABOVE_50)
    return problems, root, out


def test_grade_explain_shows_a_counterexample_on_the_page_stores_and_reuses_it(
    contest: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    problems, root, out = contest
    assert grade(root, problems, out) == 0  # without --explain: nothing of it anywhere
    plain_index, plain_json = (out / "index.html").read_text(), (out / "results.json").read_text()
    assert "Explained" not in plain_index and "explain" not in json.loads(plain_json)
    assert "explain" not in (out / "submissions" / "wrong" / "add.html").read_text()
    assert explain_rows(out) == []
    capsys.readouterr()

    assert grade(root, problems, out, "--explain") == 0
    said = capsys.readouterr().out
    assert "explain: 2 searched, 0 reused, 2 counterexample(s)" in said
    assert "explain: wrong/add: fails (WA) on input '10 0'" in said

    doc = json.loads((out / "results.json").read_text())
    assert doc["explain"] == {"examples": 1000, "seconds": 60.0}
    assert doc["results"]["right"]["add"]["explanation"] is None  # accepted: nothing to explain
    wrong = doc["results"]["wrong"]["add"]["explanation"]
    assert (wrong["status"], wrong["verdict"], wrong["failure"]) == ("found", "WA", "WA")
    assert (wrong["input"], wrong["answer"], wrong["output"]) == ("10 0\n", "10\n", "11\n")  # never "10 20"
    crash = doc["results"]["crash"]["add"]["explanation"]
    assert (crash["status"], crash["verdict"], crash["failure"], crash["output"]) == ("found", "RTE", "RTE", None)
    a, b = map(int, crash["input"].split())
    assert a + b == 51 and "too big" in crash["message"]  # the smallest sum that crashes it, and its stderr
    assert [(s["contestant"], s["total"]) for s in doc["standings"]][0] == ("right", 100.0)  # scores unchanged

    page = (out / "submissions" / "wrong" / "add.html").read_text()
    assert "An input your program fails on" in page
    for text in ("10 0\n", "10\n", "11\n", str(escape(wrong["message"]))):
        assert text in page
    assert "An input your program fails on" not in (out / "submissions" / "right" / "add.html").read_text()
    crash_page = (out / "submissions" / "crash" / "add.html").read_text()
    assert "(no output: RTE)" in crash_page and "too big" in crash_page
    assert "2 searched, 2 with an input shown" in (out / "index.html").read_text()

    # The second run searches nothing: were it to, it would fail.
    rows = explain_rows(out)
    first_json = (out / "results.json").read_text()

    def no_search(*args: object, **kwargs: object) -> Explanation:
        raise AssertionError("searched again")

    monkeypatch.setattr(judge.fuzz.explain, "explain_submission", no_search)  # (imported when a search starts)
    assert grade(root, problems, out, "--explain") == 0
    assert "explain: 0 searched, 2 reused" in capsys.readouterr().out
    assert explain_rows(out) == rows and (out / "results.json").read_text() == first_json

    # Without --explain again: the board is the one before.
    assert grade(root, problems, out) == 0
    assert (out / "index.html").read_text() == plain_index and (out / "results.json").read_text() == plain_json


def test_another_budget_or_another_source_is_searched_again(
    contest: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    problems, root, out = contest
    assert grade(root, problems, out, "--explain", "--explain-examples", "50") == 0
    assert "2 searched, 0 reused" in capsys.readouterr().out
    assert grade(root, problems, out, "--explain", "--explain-examples", "60") == 0  # another budget
    assert "2 searched, 0 reused" in capsys.readouterr().out
    put(root, "wrong", "add.py", WRONG_FROM_TEN.replace("a >= 10", "a >= 11"))  # the contestant's new version
    assert grade(root, problems, out, "--explain", "--explain-examples", "60") == 0
    assert "1 searched, 1 reused" in capsys.readouterr().out
    doc = json.loads((out / "results.json").read_text())
    assert doc["results"]["wrong"]["add"]["explanation"]["input"] == "11 0\n"
    assert sorted(r[3] for r in explain_rows(out)) == [50, 50, 60, 60, 60]


def test_bad_budgets_and_a_cluster_are_refused(
    contest: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    problems, root, out = contest
    assert grade(root, problems, out, "--explain", "--explain-examples", "0") == 2
    assert "--explain-examples must be at least 1" in capsys.readouterr().err
    assert grade(root, problems, out, "--explain", "--explain-seconds", "0") == 2
    assert grade(root, problems, out, "--explain", "--cluster", "local:1") == 2
    assert "--explain runs on this machine only" in capsys.readouterr().err


# -- the pages of every status (no judging) ---------------------------------------------------------

HOSTILE = b"<script>alert(1)</script>\n"
PROBLEM = BoardProblem("add", "A + B", 100.0, interactive=True)


def board_with(x: Explanation) -> Board:
    result = SubmissionResult("add", "ann/add.py", "python3", Verdict.WA, 0.0, 100.0, 0.01, 900)
    run = BoardRun("ann", "add", "ann/add.py", result, explanation=BoardExplanation(x, "2026-01-01", "v1"))
    return Board("B", (PROBLEM,), ("ann",), {("ann", "add"): run}, explain=ExplainSettings(1000, 30.0))


def page(tmp_path: Path, x: Explanation) -> str:
    write_board(board_with(x), tmp_path)
    return (tmp_path / "submissions" / "ann" / "add.html").read_text()


BASE = Explanation(ExplainStatus.FOUND, "add", Verdict.WA, ExplainBudget(1000, 30.0), 1)


def test_a_found_counterexample_is_escaped_and_shows_the_exchange(tmp_path: Path) -> None:
    found = replace(
        BASE,
        input=HOSTILE,
        answer=b"<b>2</b>\n",
        output=b"<i>3</i>\n",
        failure=Verdict.WA,
        message="<u>wrong</u>",
        transcript="> <hello>\n< 1",
    )
    html = page(tmp_path / "a", found)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;2&lt;/b&gt;" in html and "&lt;u&gt;wrong&lt;/u&gt;" in html
    assert "the exchange" in html and "&gt; &lt;hello&gt;" in html
    assert "(what it wrote is in the exchange below)" in html and "<i>3</i>" not in html
    batch = page(tmp_path / "b", replace(found, transcript=""))  # a batch problem: the output itself
    assert "&lt;i&gt;3&lt;/i&gt;" in batch and "the exchange" not in batch


@pytest.mark.parametrize(
    ("status", "shown"),
    [
        (ExplainStatus.WITHHELD, "equal to one of the problem's tests"),
        (ExplainStatus.NOT_FOUND, "None found within the budget"),
        (ExplainStatus.ERROR, "The search failed"),
        (ExplainStatus.UNAVAILABLE, None),
        (ExplainStatus.NOT_BUILT, None),
    ],
)
def test_each_status_says_what_it_means(tmp_path: Path, status: ExplainStatus, shown: str | None) -> None:
    html = page(tmp_path, replace(BASE, status=status, note="<b>why</b>"))
    if shown is None:
        assert "An input your program fails on" not in html
        return
    assert "An input your program fails on" in html and shown in html
    assert "<b>why</b>" not in html


def test_the_page_in_chromium(tmp_path: Path) -> None:
    """The section as a person sees it (cedar's Rummy counterexample, with a hostile input beside it)."""
    from test_scoreboard_browser import CHROMIUM, _chromium

    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    found = replace(
        BASE,
        input=b"1 0 0 0 0 0 0 0 0 0 1 1 1\n",
        answer=b"0\n",
        output=b"1\n",
        failure=Verdict.WA,
        message="wrong: exit status 1 (not layable), but the cards are layable\n" + HOSTILE.decode(),
        examples=11,
        elapsed_s=5.5,
    )
    out = tmp_path / "board"
    write_board(board_with(found), out)
    url = (out / "submissions" / "ann" / "add.html").resolve().as_uri()
    shot = tmp_path / "explain.png"
    done = _chromium(f"--screenshot={shot}", "--window-size=1100,800", url, profile=tmp_path / "profile")
    assert shot.is_file() and shot.stat().st_size > 10_000, done.stderr[-2000:]
    dom = _chromium("--dump-dom", url, profile=tmp_path / "profile").stdout
    assert '<pre class="explain-input">1 0 0 0 0 0 0 0 0 0 1 1 1\n</pre>' in dom
    assert "<script>" not in dom and "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    keep = Path(os.environ["JUDGE_ARTIFACTS"]) if os.environ.get("JUDGE_ARTIFACTS") else None
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, keep / "explain.png")


def test_cedars_wrong_rummy_gets_its_counterexample_on_its_page(tmp_path: Path) -> None:
    """The issue's acceptance, on the demo's one submission: `judge grade ... --explain`, in the sandbox."""
    demo = Path(__file__).resolve().parent.parent
    problems, root, out = tmp_path / "problems", tmp_path / "contest", tmp_path / "board"
    shutil.copytree(demo / "problems" / "rummy", problems / "rummy", ignore=shutil.ignore_patterns("submissions"))
    put(root, "cedar", "rummy.c", demo / "submissions" / "cedar" / "rummy.c")
    assert grade(root, problems, out, "--explain") == 0
    html = (out / "submissions" / "cedar" / "rummy.html").read_text()
    section = html[html.index('<section class="explain" id="explain">') :]
    shown = section[section.index('<pre class="explain-input">') :].split(">", 1)[1].split("</pre>", 1)[0]
    sample = (demo / "problems" / "rummy" / "data" / "sample" / "03-wrap-12-13-1.in").read_text()
    assert len(shown.split()) == 13 and shown.split() != sample.split()  # 13 counts, not the sample's
    assert "but the cards are layable" in section  # the validator's message: the program said "not layable"
