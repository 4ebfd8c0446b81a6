"""Contest discovery and the SQLite store, without running any program."""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.grade.discovery import Issue, discover, load_problems, source_hash
from judge.grade.report import issues_text, standings_table
from judge.grade.storage import RunKey, Store, StoreError
from judge.judging.results import CaseResult, GroupScore, SubmissionResult
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages
from judge.scoreboard.model import Board, BoardProblem

FIXTURES = Path(__file__).parent / "fixtures"


def write(path: Path, text: str = "print(1)\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_discovery_reports_what_it_cannot_judge_and_goes_on(tmp_path: Path) -> None:
    root = tmp_path / "contest"
    write(root / "ann" / "sum.py")
    write(root / "ann" / "guess.c", "int main(void){return 0;}\n")
    write(root / "ann" / "chess.py")  # unknown problem
    write(root / "ann" / ".hidden.py")  # ignored
    write(root / "bea" / "sum.exs")  # unknown language
    write(root / "bea" / "primes" / "main.py")  # a folder submission
    write(root / "bea" / "primes" / "util.py")
    write(root / "cid" / "sum.py")
    write(root / "cid" / "sum.c")  # two submissions for one problem
    os.mkfifo(root / "cid" / "guess.py")  # not a regular file (and reading it would block)
    (root / "dan").mkdir()
    (root / "dan" / "primes.py").symlink_to(FIXTURES / "primes" / "submissions" / "accepted" / "sieve.py")
    (root / "dan" / "reverse.py").symlink_to(root / "dan" / "missing.py")
    write(root / "README.md", "the contest")  # ignored
    write(root / "notes.txt")  # not a contestant
    problems, bad = load_problems(FIXTURES)
    assert bad == [] and {"sum", "guess", "primes"} <= set(problems)
    contest = discover(root, problems, load_languages())
    assert contest.contestants == ("ann", "bea", "cid", "dan")
    assert [(e.contestant, e.problem, e.language) for e in contest.entries] == [
        ("ann", "guess", "c"),
        ("ann", "sum", "python3"),
        ("bea", "primes", "python3"),
    ]
    kinds = sorted((i.kind, i.path) for i in contest.issues)
    assert kinds == [
        ("ambiguous", "cid/sum.*"),
        ("stray-file", "notes.txt"),
        ("unknown-language", "bea/sum.exs"),
        ("unknown-problem", "ann/chess.py"),
        ("unreadable", "cid/guess.py"),
        ("unreadable", "dan/primes.py"),  # a link out of the contestant's folder
        ("unreadable", "dan/reverse.py"),  # a dangling link
    ]


def test_source_hash_follows_content_and_name(tmp_path: Path) -> None:
    a = write(tmp_path / "sum.py", "print(1)\n")
    h = source_hash(a, tmp_path)
    assert h == source_hash(a, tmp_path)
    a.write_text("print(2)\n")
    assert source_hash(a, tmp_path) != h
    b = write(tmp_path / "x" / "sum.py", "print(1)\n")
    c = write(tmp_path / "y" / "sum.c", "print(1)\n")
    assert source_hash(b, tmp_path) == h and source_hash(c, tmp_path) != h
    folder = tmp_path / "f"
    write(folder / "main.py")
    h1 = source_hash(folder, tmp_path)
    write(folder / "util.py")
    assert source_hash(folder, tmp_path) != h1


def case(i: int, verdict: Verdict, fraction: float, metric: float | None) -> CaseResult:
    return CaseResult(
        name=f"secret/{i:02d}",
        group="secret",
        verdict=verdict,
        fraction=fraction,
        time_s=0.01 * i,
        wall_time_s=0.02 * i,
        memory_kib=1000 + i,
        message=f"message {i} <&>",
        metric=metric,
        transcript="> 1\n< 2" if i % 2 else "",
        passes=1 + i % 2,
        skipped=i > 5,
    )


results = st.builds(
    lambda tests, verdict, metric, msg: SubmissionResult(
        problem="sum",
        source="ann/sum.py",
        language="python3",
        verdict=verdict,
        score=round(sum(t.fraction for t in tests), 6),
        max_score=100.0,
        time_s=max((t.time_s for t in tests), default=0.0),
        memory_kib=max((t.memory_kib for t in tests), default=0),
        compile_message=msg,
        tests=tuple(tests),
        test_scores=tuple(t.fraction * 10 for t in tests),
        groups=(GroupScore("secret", 1.0, 100.0, verdict),),
        metric=metric,
        metric_name="bytes" if metric is not None else None,
        sandbox_warnings=("no sandbox",) if msg else (),
    ),
    st.lists(
        st.builds(
            case,
            st.integers(0, 9),
            st.sampled_from(list(Verdict)),
            st.floats(0, 1),
            st.one_of(st.none(), st.floats(0, 1e6)),
        ),
        max_size=8,
        unique_by=lambda c: c.name,
    ),
    st.sampled_from(list(Verdict)),
    st.one_of(st.none(), st.floats(-1e9, 1e9)),
    st.text(max_size=30),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(results)
def test_a_stored_result_reads_back_equal(tmp_path: Path, result: SubmissionResult) -> None:
    with Store(tmp_path / f"{uuid.uuid4().hex}.sqlite") as store:  # a fresh database per example
        key = RunKey("ann", "sum", "s1", "p1", "v1")
        store.save(key, "ann/sum.py", result, {"tests": {}}, 1.5)
        stored = store.lookup(key)
        assert stored is not None and stored.result == result and stored.duration_s == 1.5
        store.save(key, "ann/sum.py", result, {}, 2.0)  # the same key again replaces the run
        runs, tests = store.counts()
        assert runs == 1 and tests == len(result.tests)
        other = RunKey("ann", "sum", "s1", "p2", "v1")  # another package version: a second run
        store.save(other, "ann/sum.py", result, {}, 1.0)
        assert store.counts() == (2, 2 * len(result.tests))
        assert store.last_durations() == {("ann", "sum"): 1.0}


def test_a_failed_save_leaves_nothing(tmp_path: Path) -> None:
    broken = SubmissionResult(
        "sum", "ann/sum.py", "python3", Verdict.AC, 1.0, 100.0, 0.0, 0,
        tests=(case(1, Verdict.AC, 1.0, None), case(2, Verdict.AC, 1.0, None)),
        test_scores=(1.0,),  # one score for two tests: the insert fails half-way
    )  # fmt: skip
    with Store(tmp_path / "db.sqlite") as store:
        with pytest.raises(ValueError):
            store.save(RunKey("ann", "sum", "s", "p", "v"), "ann/sum.py", broken, {}, 1.0)
        assert store.counts() == (0, 0)
    mode = sqlite3.connect(tmp_path / "db.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_a_foreign_file_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "x.sqlite", "this is not a database" * 100)
    with pytest.raises(StoreError, match="not a usable SQLite database"):
        Store(bad)


def test_terminal_output_has_no_escape_sequences() -> None:
    evil = "ann\x1b[2J\x07"
    board = Board("t", (BoardProblem("sum", "Sum", 100.0),), (evil, "bea"), {})
    text = standings_table(board) + issues_text([Issue("unreadable", f"{evil}/sum.py", "x\x1b]0;title\x07")])
    assert "\x1b" not in text and "\x07" not in text
    assert "ann?[2J?" in text
