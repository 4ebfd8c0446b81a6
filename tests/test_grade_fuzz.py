"""`judge grade --fuzz N`: submissions with the full score are fuzzed, the outcome is stored (and reused),
shown on the board and in results.json, and changes no score; without --fuzz nothing changes."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import put
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape

from judge.commands.cli import main
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus
from judge.grade.discovery import discover, load_problems
from judge.grade.fuzzing import FuzzListener, fuzz_contest, outcome_from_json
from judge.grade.options import GradeFuzzOptions, GradeOptions
from judge.grade.schedule import Grading
from judge.grade.schedule import grade as grade_contest
from judge.grade.storage import Store
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.runner import make_runner
from judge.scoreboard.model import Board, BoardFuzz, BoardProblem, BoardRun, FuzzSettings
from judge.scoreboard.render import write_board

ADD = Path(__file__).parent / "fixtures_fuzz" / "add"
EXAMPLES = "30"


def add_package(problems: Path, name: str = "add", fuzz_py: str | None = None) -> Path:
    """The fixture package (without its submissions); ``fuzz_py`` replaces its hooks ("" removes them)."""
    dst = problems / name
    shutil.copytree(ADD, dst, ignore=shutil.ignore_patterns("submissions", "__pycache__"))
    if fuzz_py == "":
        (dst / "fuzz.py").unlink()
    elif fuzz_py is not None:
        (dst / "fuzz.py").write_text(fuzz_py)
    return dst


def grade(root: Path, problems: Path, out: Path, *extra: str) -> int:
    argv = ["grade", str(root), "--problems", str(problems), "--out", str(out), "--json", "--jobs", "2"]
    return main([*argv, *extra])


def fuzz_rows(out: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(out / "grade.sqlite") as db:
        return db.execute("SELECT id, contestant, problem, examples, seed, status FROM fuzz ORDER BY id").fetchall()


def cell(index_html: str, contestant: str) -> str:
    """The board cell (one problem) of a contestant's row."""
    row = next(r for r in index_html.split("<tr>") if f'class="contestant">{contestant}<' in r)
    found = re.search(r'<td class="cell [^"]*".*?</td>', row, re.S)
    assert found is not None
    return found.group(0)


def test_grade_fuzz_shows_counterexamples_stores_and_reuses_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems, root, out = tmp_path / "problems", tmp_path / "contest", tmp_path / "board"
    add_package(problems)
    put(root, "correct", "add.py", ADD / "submissions" / "accepted" / "add.py")
    put(root, "buggy", "add.py", ADD / "submissions" / "fuzz_bugs" / "wa_big_both.py")

    # Without --fuzz: no fuzzing, nothing about it on the board or in results.json.
    assert grade(root, problems, out) == 0
    plain_index, plain_json = (out / "index.html").read_text(), (out / "results.json").read_text()
    assert "fuzz-" not in plain_index and "fuzz" not in json.loads(plain_json)
    assert fuzz_rows(out) == []

    assert grade(root, problems, out, "--fuzz", EXAMPLES) == 0
    said = capsys.readouterr().out
    assert "2 fuzzed, 0 reused, 1 counterexample(s)" in said and "counterexample: buggy/add: WA" in said
    index = (out / "index.html").read_text()
    assert "fuzz: counterexample" in cell(index, "buggy") and "fuzz-cex" in cell(index, "buggy")
    assert "counterexample" not in cell(index, "correct") and f"fuzz: {EXAMPLES} ok" in cell(index, "correct")

    doc = json.loads((out / "results.json").read_text())
    assert doc["fuzz"] == {"examples": int(EXAMPLES), "seed": 1}
    # Scores and ranks are those of the fixed tests: both full, both first.
    assert [(s["rank"], s["total"]) for s in doc["standings"]] == [(1, 100.0), (1, 100.0)]
    good, bad = doc["results"]["correct"]["add"]["fuzz"], doc["results"]["buggy"]["add"]["fuzz"]
    assert good["status"] == "passed" and good["examples"] == int(EXAMPLES) and good["counterexample"] is None
    assert bad["status"] == "counterexample" and bad["seed"] == 1 and bad["max_examples"] == int(EXAMPLES)
    cex = bad["counterexample"]
    a, b = map(int, cex["input"].split())
    assert a > 100 and b > 100 and cex["answer"] == f"{a + b}\n" and cex["output"] == f"{a + b + 1}\n"
    assert cex["verdict"] == "WA" and cex["confirmed"] and bad["source"] == "buggy/add.py"

    page = (out / "submissions" / "buggy" / "add.html").read_text()
    for text in (cex["input"], cex["answer"], cex["output"], str(escape(cex["message"]))):
        assert text in page
    assert "--seed 1 --no-db" in page
    assert "counterexample" not in (out / "submissions" / "correct" / "add.html").read_text()

    # Nothing changed: nothing is fuzzed again, and the same outcomes make the same files.
    rows = fuzz_rows(out)
    assert sorted((r[1], r[5]) for r in rows) == [("buggy", "counterexample"), ("correct", "passed")]
    first_json = (out / "results.json").read_text()
    assert grade(root, problems, out, "--fuzz", EXAMPLES) == 0
    assert "0 fuzzed, 2 reused" in capsys.readouterr().out
    assert fuzz_rows(out) == rows and (out / "results.json").read_text() == first_json

    # Without --fuzz again: the board is exactly the one before any fuzzing.
    assert grade(root, problems, out) == 0
    assert (out / "index.html").read_text() == plain_index and (out / "results.json").read_text() == plain_json

    # Another seed is another fuzzing (stored beside the first).
    assert grade(root, problems, out, "--fuzz", EXAMPLES, "--fuzz-seed", "7") == 0
    assert "2 fuzzed, 0 reused" in capsys.readouterr().out
    assert sorted(r[4] for r in fuzz_rows(out)) == [1, 1, 7, 7]


BROKEN_HOOKS = 'raise RuntimeError("<b>no hooks</b>")\n'


def test_a_failing_fuzz_py_is_reported_and_problems_without_one_are_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    problems, root, out = tmp_path / "problems", tmp_path / "contest", tmp_path / "board"
    add_package(problems, "add", fuzz_py=BROKEN_HOOKS)
    add_package(problems, "plain", fuzz_py="")  # no fuzz.py: not fuzzed, nothing said
    for name in ("add.py", "plain.py"):
        put(root, "ann", name, ADD / "submissions" / "accepted" / "add.py")

    assert grade(root, problems, out, "--fuzz", "5") == 3  # a judge error, shown; never a crash
    captured = capsys.readouterr()
    assert "fuzz: judge error: ann/add" in captured.out and "1 fuzzing error(s)" in captured.err
    doc = json.loads((out / "results.json").read_text())
    assert doc["results"]["ann"]["plain"]["fuzz"] is None
    assert doc["results"]["ann"]["add"]["fuzz"]["status"] == "error"
    assert doc["results"]["ann"]["add"]["score"] == 100.0
    assert "fuzz: judge error" in (out / "index.html").read_text()
    page = (out / "submissions" / "ann" / "add.html").read_text()
    assert "&lt;b&gt;no hooks&lt;/b&gt;" in page and "<b>no hooks" not in page
    assert "Fuzzing" not in (out / "submissions" / "ann" / "plain.html").read_text()

    # An error is fuzzed again (like a JE is judged again): fixed hooks, and it passes.
    (problems / "add" / "fuzz.py").write_text((ADD / "fuzz.py").read_text())
    assert grade(root, problems, out, "--fuzz", "5") == 0
    assert "1 fuzzed, 0 reused, 0 counterexample(s)" in capsys.readouterr().out


def _ac(problem: str) -> Any:
    def judge_fn(job, packages, env) -> SubmissionResult:  # type: ignore[no-untyped-def]
        return SubmissionResult(problem, job.label, "python3", Verdict.AC, 100.0, 100.0, 0.01, 1000)

    return judge_fn


def _passed(prepared: Any, source: Path, env: Any, examples: int, seed: int) -> FuzzOutcome:
    return FuzzOutcome("add", str(source), "python3", FuzzStatus.PASSED, seed, "x", examples=examples)


class _Stored(FuzzListener):
    def __init__(self) -> None:
        self.event = threading.Event()

    def fuzz_done(self, entry, fuzzed, note) -> None:  # type: ignore[no-untyped-def]
        self.event.set()


def test_each_outcome_is_stored_as_it_comes_and_a_killed_fuzzing_resumes(tmp_path: Path) -> None:
    problems, root = tmp_path / "problems", tmp_path / "contest"
    add_package(problems)
    for who in ("ann", "bob", "cy"):
        put(root, who, "add.py", ADD / "submissions" / "accepted" / "add.py")
    env = Environment(make_runner("auto"), load_languages(), toolchain())
    loaded, _ = load_problems(problems)
    contest = discover(root, loaded, env.languages)
    listener = _Stored()
    calls: list[str] = []

    def interrupted(prepared, source, env, examples, seed):  # type: ignore[no-untyped-def]
        calls.append(source.name)
        if len(calls) == 2:  # the first outcome is stored by now: then the organizer presses Ctrl-C
            assert listener.event.wait(30)
            raise KeyboardInterrupt
        return _passed(prepared, source, env, examples, seed)

    grading = Grading(contest, loaded, env)
    with Store(tmp_path / "db.sqlite") as store:
        summary = grade_contest(grading, store, GradeOptions(), judge_fn=_ac("add"))
        with pytest.raises(KeyboardInterrupt):
            fuzz_contest(grading, store, summary, GradeFuzzOptions(9), listener=listener, fuzz_fn=interrupted)
        assert store.fuzz_count() == 1
        resumed = fuzz_contest(grading, store, summary, GradeFuzzOptions(9), fuzz_fn=_passed)
        assert (resumed.fuzzed, resumed.reused, store.fuzz_count()) == (2, 1, 3)
        assert fuzz_contest(grading, store, summary, GradeFuzzOptions(9), fuzz_fn=_passed).fuzzed == 0
        assert fuzz_contest(grading, store, summary, GradeFuzzOptions(8), fuzz_fn=_passed).fuzzed == 3
        # A submission edited after it was judged is not fuzzed under the old hash: it waits for the next run.
        (root / "cy" / "add.py").write_text("print(0)\n")
        late = fuzz_contest(grading, store, summary, GradeFuzzOptions(7), fuzz_fn=_passed)
        assert late.fuzzed == 2 and len(late.notes) == 1 and "cy/add.py" in late.notes[0]


verdicts = st.sampled_from([v for v in Verdict if v is not Verdict.AC])


@settings(max_examples=40, deadline=None)
@given(
    st.binary(max_size=40),
    st.binary(max_size=40),
    st.none() | st.binary(max_size=40),
    verdicts,
    st.text(max_size=20),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_stored_outcomes_read_back_exactly(
    data: bytes,
    answer: bytes,
    output: bytes | None,
    verdict: Verdict,
    message: str,
    confirmed: bool,
    seed: int,
) -> None:
    cex = Counterexample(data, answer, output, verdict, message, confirmed)
    outcome = FuzzOutcome(
        "p", "c/p.py", "python3", FuzzStatus.COUNTEREXAMPLE, seed, "x", 3, 3, 0.25, 7, counterexample=cex
    )
    assert outcome_from_json(json.loads(json.dumps(outcome.to_json()))) == outcome


def test_counterexample_text_is_escaped_on_the_board(tmp_path: Path) -> None:
    hostile = b"<script>alert(1)</script>\n"
    cex = Counterexample(hostile, b"<i>2</i>\n", hostile, Verdict.WA, "got <script>", True)
    outcome = FuzzOutcome("add", "x/add.py", "python3", FuzzStatus.COUNTEREXAMPLE, 1, "c", 2, counterexample=cex)
    result = SubmissionResult("add", "x/add.py", "python3", Verdict.AC, 100.0, 100.0, 0.01, 1000)
    run = BoardRun("x", "add", "x/add.py", result, fuzz=BoardFuzz(outcome, 5, reproduce="judge fuzz <a>"))
    board = Board("t", (BoardProblem("add", "Add", 100.0),), ("x",), {("x", "add"): run}, fuzz=FuzzSettings(5, 1))
    write_board(board, tmp_path)
    page = (tmp_path / "submissions" / "x" / "add.html").read_text()
    assert "<script>" not in page and "<i>" not in page and "<a>" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 2 and "&lt;i&gt;2&lt;/i&gt;" in page
    assert "fuzz: counterexample" in (tmp_path / "index.html").read_text()
