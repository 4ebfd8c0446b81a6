"""`judge grade` end to end on the fixture packages: verdicts, results.json, re-judging only what changed,
escaping, and a run killed (SIGKILL) twice and restarted that ends exactly like an uninterrupted one."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import put

from judge.commands.cli import main
from judge.grade.discovery import discover, load_problems, source_hash
from judge.grade.options import GradeOptions
from judge.grade.schedule import Grading
from judge.grade.schedule import grade as grade_contest
from judge.grade.storage import Store
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.runner import make_runner

FIXTURES = Path(__file__).parent / "fixtures"
PROBLEMS = ("sum", "primes", "guess")
HOSTILE = "<script>alert(1)"

# Burns ~0.1 s of CPU per test, then answers (or not): slow enough to be killed mid-contest.
BURN = """import time
t = time.process_time()
while time.process_time() - t < 0.1:
    pass
a, b = map(int, input().split())
print(a {op} b)
"""


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    out = tmp_path / "problems"
    for p in PROBLEMS:
        shutil.copytree(FIXTURES / p, out / p, ignore=shutil.ignore_patterns("submissions"))
    return out


def fixture_sub(problem: str, folder: str, name: str) -> Path:
    return FIXTURES / problem / "submissions" / folder / name


def grade(root: Path, problems: Path, out: Path, *extra: str) -> int:
    return main(["grade", str(root), "--problems", str(problems), "--out", str(out), "--json", *extra])


def results(out: Path) -> dict[str, Any]:
    return json.loads((out / "results.json").read_text())


def outcome(doc: dict[str, Any]) -> dict[str, Any]:
    """What must not depend on timing, --jobs or interruptions: verdicts, scores, per-test verdicts."""
    return {
        (c, p): (r["verdict"], r["score"], [(t["name"], t["verdict"], t["score"]) for t in r["tests"]])
        for c, by_problem in doc["results"].items()
        for p, r in by_problem.items()
    }


def test_grade_stores_renders_and_rejudges_only_what_changed(
    tmp_path: Path, problems: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, out = tmp_path / "contest", tmp_path / "board"
    put(root, "ann", "sum.py", fixture_sub("sum", "accepted", "sum.py"))
    put(root, "ann", "guess.py", fixture_sub("guess", "accepted", "binary.py"))
    put(root, "ann", "primes.py", fixture_sub("primes", "accepted", "sieve.py"))
    put(root, "bea", "sum.py", fixture_sub("sum", "wrong_answer", "minus.py"))
    put(root, "bea", "primes.py", fixture_sub("primes", "partially_accepted", "capped.py"))
    put(root, HOSTILE, "sum.c", "int main(void) { return <script>alert(2); }\n")  # the message quotes it
    put(root, HOSTILE, "guess.py", fixture_sub("guess", "protocol_violation", "garbage.py"))
    put(root, HOSTILE, "primes.py", 'print("<script>alert(3)</script>")\n')  # the checker quotes the output
    put(root, "cid", "sum.exs", "IO.puts 1\n")
    put(root, "cid", "chess.py", "print(1)\n")

    assert grade(root, problems, out, "--jobs", "2") == 0
    doc = results(out)
    got = {(c, p): (r["verdict"], r["score"]) for c, rs in doc["results"].items() for p, r in rs.items()}
    assert got == {
        ("ann", "sum"): ("AC", 100),
        ("ann", "guess"): ("AC", 100),
        ("ann", "primes"): ("AC", 100),
        ("bea", "sum"): ("WA", 0),
        ("bea", "primes"): ("WA", 40),
        (HOSTILE, "sum"): ("CE", 0),
        (HOSTILE, "guess"): ("PV", 0),
        (HOSTILE, "primes"): ("WA", 0),
    }
    assert [(s["rank"], s["contestant"], s["total"]) for s in doc["standings"]] == [
        (1, "ann", 300),
        (2, "bea", 40),
        (3, HOSTILE, 0),
        (3, "cid", 0),
    ]
    assert sorted(n["kind"] for n in doc["not_judged"]) == ["unknown-language", "unknown-problem"]
    ann_sum = doc["results"]["ann"]["sum"]
    assert ann_sum["package_hash"] and ann_sum["judge_version"] and ann_sum["seeds"]["tests"]
    assert [t["name"] for t in ann_sum["tests"]] == ["sample/00", "secret/01", "secret/02", "secret/03"]

    pages = list(out.rglob("*.html"))
    assert len(pages) == 1 + len(PROBLEMS) + 8
    for page in pages:
        assert "<script" not in page.read_text().lower(), page
    index = (out / "index.html").read_text()
    for name in ("ann", "bea", "cid", "&lt;script&gt;alert(1)"):
        assert f'<td class="contestant">{name}</td>' in index
    hostile_pages = [p.read_text() for p in out.rglob("*.html") if "script" in p.parent.name]
    assert any("&lt;script&gt;alert(2)" in text for text in hostile_pages)  # compiler message
    assert any("&lt;script&gt;alert(3)" in text for text in hostile_pages)  # program output
    capsys.readouterr()

    # Nothing changed: nothing is judged again, and the board is the same.
    before = {p: p.read_bytes() for p in out.rglob("*.html")}
    assert grade(root, problems, out) == 0
    assert "0 judged, 8 reused" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in out.rglob("*.html")} == before

    # One source changed: that submission only.
    put(root, "bea", "sum.py", fixture_sub("sum", "accepted", "sum.py"))
    assert grade(root, problems, out) == 0
    assert "1 judged, 7 reused" in capsys.readouterr().out
    assert results(out)["results"]["bea"]["sum"]["verdict"] == "AC"

    # The package changed (one more test): every submission of that problem.
    (problems / "sum" / "data" / "secret" / "04.in").write_text("20 22\n")
    (problems / "sum" / "data" / "secret" / "04.ans").write_text("42\n")
    assert grade(root, problems, out) == 0
    assert "3 judged, 5 reused" in capsys.readouterr().out
    assert len(results(out)["results"]["ann"]["sum"]["tests"]) == 5

    assert grade(root, problems, out, "--rejudge") == 0
    assert "8 judged, 0 reused" in capsys.readouterr().out
    db = sqlite3.connect(out / "grade.sqlite")
    # History stays: bea's old sum.py, and the three sum runs of the old package. --rejudge replaced runs.
    assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 8 + 1 + 3
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", str(tmp_path / "nowhere")]) == 2
    assert main(["grade", str(tmp_path), "--problems", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("judge: error:") for line in err)


def _kill_contest(root: Path) -> int:
    """Six contestants, one submission each: four tests of 0.1 s CPU (WA ones stop after the first)."""
    for i, op in enumerate("++-+-+"):
        put(root, f"c{i}", "sum.py", BURN.format(op=op))
    return 6


def _runs(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def _start(root: Path, problems: Path, out: Path, jobs: int) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "judge.commands.cli", "grade", str(root), "--problems", str(problems)]
    argv += ["--out", str(out), "--jobs", str(jobs), "--json"]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow
def test_killed_grade_resumes_without_loss_or_duplicates(tmp_path: Path, problems: Path) -> None:
    """SIGKILL `judge grade --jobs 1` twice while it works; a third start finishes. The result equals an
    uninterrupted `--jobs 2` run (so it depends neither on interruptions nor on --jobs)."""
    root, out = tmp_path / "contest", tmp_path / "board"
    total = _kill_contest(root)
    db = out / "grade.sqlite"
    for stop_after in (1, 3):
        proc = _start(root, problems, out, jobs=1)
        deadline = time.monotonic() + 120
        while _runs(db) < stop_after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "finished before it could be killed: make the contest slower"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert stop_after <= _runs(db) < total
    proc = _start(root, problems, out, jobs=1)
    assert proc.wait(timeout=300) == 0
    con = sqlite3.connect(db)
    version = results(out)["judge_version"]  # (runs of another judge version, if its code was edited meanwhile)
    keys = con.execute("SELECT contestant, problem FROM runs WHERE judge_version = ?", (version,)).fetchall()
    assert sorted(keys) == sorted({(f"c{i}", "sum") for i in range(total)})  # each result exactly once
    resumed = outcome(results(out))
    stored = dict(
        con.execute(
            "SELECT contestant, COUNT(*) FROM tests JOIN runs ON runs.id = run_id WHERE judge_version = ? "
            "GROUP BY contestant",
            (version,),
        )
    )
    assert stored == {c: len(tests) for (c, _), (_, _, tests) in resumed.items()}  # every test of a run, once

    other = tmp_path / "board2"
    assert _start(root, problems, other, jobs=2).wait(timeout=300) == 0
    assert resumed == outcome(results(other))
    assert sorted(v[0] for v in resumed.values()) == ["AC"] * 4 + ["WA"] * 2


def test_a_source_edited_before_it_is_judged_is_stored_under_what_was_judged(tmp_path: Path, problems: Path) -> None:
    root = tmp_path / "contest"
    put(root, "ann", "sum.py", "print(1)\n")
    env = Environment(make_runner("auto"), load_languages(), toolchain())
    loaded, _ = load_problems(problems)
    seen: list[bytes] = []

    def fake_judge(job, packages, env) -> SubmissionResult:  # type: ignore[no-untyped-def]
        seen.append(job.files[0].data)
        return SubmissionResult("sum", job.label, "python3", Verdict.WA, 0.0, 100.0, 0.0, 0)

    with Store(tmp_path / "db.sqlite") as store:
        contest = discover(root, loaded, env.languages)
        put(root, "ann", "sum.py", "print(5)\n")  # the contestant edits after the folder was read
        first = grade_contest(Grading(contest, loaded, env), store, GradeOptions(), judge_fn=fake_judge)
        put(tmp_path, "copy", "sum.py", "print(5)\n")
        assert seen == [b"print(5)\n"]
        assert first.runs[("ann", "sum")].key.source_hash == source_hash(tmp_path / "copy" / "sum.py", tmp_path)
        grading = Grading(discover(root, loaded, env.languages), loaded, env)
        again = grade_contest(grading, store, GradeOptions(), judge_fn=fake_judge)
        assert again.judged == 0 and again.reused == 1 and len(seen) == 1
