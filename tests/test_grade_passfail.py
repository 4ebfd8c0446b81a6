"""`judge grade --scoreboard pass-fail`: a contest folder ranked the ICPC way by the same module as `judge
serve` (scoreboard/passfail.py): several files of one problem are attempts, timed by times.yaml or the
files' times; the static board's cells, the terminal table and results.json; bad times are one line."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import put

from judge.commands.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
AC = FIXTURES / "sum" / "submissions" / "accepted" / "sum.py"
WA = FIXTURES / "sum" / "submissions" / "wrong_answer" / "minus.py"
CE = FIXTURES / "sum" / "submissions" / "compile_error" / "syntax.py"
DIV = FIXTURES / "divisor" / "submissions" / "accepted"


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    out = tmp_path / "problems"
    for p in ("sum", "divisor"):
        shutil.copytree(FIXTURES / p, out / p, ignore=shutil.ignore_patterns("submissions"))
    return out


def grade(root: Path, problems: Path, out: Path, *extra: str) -> int:
    args = ["grade", str(root), "--problems", str(problems), "--out", str(out), "--json", "--scoreboard", "pass-fail"]
    return main([*args, *extra])


def standings(out: Path) -> list[tuple[Any, ...]]:
    doc = json.loads((out / "results.json").read_text())
    return [
        (
            r["rank"],
            r["contestant"],
            r["num_solved"],
            r["total_time_minutes"],
            {p: (c["attempts"], c["num_judged"], c["minute"], c["first_to_solve"]) for p, c in r["problems"].items()},
        )
        for r in doc["pass_fail_standings"]
    ]


def contest(root: Path) -> Path:
    """ann: sum WA at 10:00, CE at 12:00 (free), AC at 31:30 (minute 31 + 20 = 51);
    bob: sum AC at 45:59 (45), divisor AC at 50:00 (50): 2 solved, 95;
    cid: sum WA at 60:00; dan: nothing."""
    divisor = next(p for p in sorted(DIV.iterdir()) if p.suffix == ".py")
    put(root, "ann", "sum.1.py", WA)
    put(root, "ann", "sum.ce.py", CE)
    put(root, "ann", "sum.2.py", AC)
    put(root, "bob", "sum.py", AC)
    put(root, "bob", "divisor.py", divisor)
    put(root, "cid", "sum.py", WA)
    (root / "dan").mkdir()
    (root / "times.yaml").write_text(
        'start: "2030-01-01T10:00:00Z"\n'
        'ann/sum.1.py: "0:10:00"\n'
        'ann/sum.ce.py: "0:12:00"\n'
        'ann/sum.2.py: "0:31:30"\n'
        'bob/sum.py: "2030-01-01T10:45:59Z"\n'
        "bob/divisor.py: 3000\n"  # seconds
        'cid/sum.py: "1:00:00"\n'
    )
    return root


def test_a_folder_ranked_the_icpc_way(tmp_path: Path, problems: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board"
    assert grade(contest(tmp_path / "c"), problems, out, "--jobs", "2") == 0
    printed = capsys.readouterr().out
    assert standings(out) == [
        (1, "bob", 2, 95.0, {"divisor": (1, 1, 50.0, True), "sum": (1, 1, 45.0, False)}),
        (2, "ann", 1, 51.0, {"divisor": (0, 0, None, False), "sum": (3, 2, 31.0, True)}),
        (3, "cid", 0, 0.0, {"divisor": (0, 0, None, False), "sum": (1, 1, None, False)}),
        (3, "dan", 0, 0.0, {"divisor": (0, 0, None, False), "sum": (0, 0, None, False)}),
    ]
    assert "bob         1/50*    1/45   2       95" in printed and "  not judged:" not in printed
    html = (out / "index.html").read_text()
    cells = [c.split('"')[0] for c in html.split('<td class="cell pf ')[1:]]
    assert cells == ["pf-first", "pf-solved", "none", "pf-first", "none", "pf-tried", "none", "none"]
    assert "2&nbsp;/&nbsp;31" in html and 'href="submissions/ann/sum.html"' in html
    assert "ann/sum.2.py" in (out / "submissions" / "ann" / "sum.html").read_text()  # the attempt that decided it
    # with a penalty of 5 minutes ann's time is 36; nothing is judged again
    assert grade(tmp_path / "c", problems, out, "--penalty-minutes", "5") == 0
    assert standings(out)[1][:4] == (2, "ann", 1, 36.0)
    assert "0 judged, 6 reused" in capsys.readouterr().out


def test_file_times_when_times_yaml_does_not_say(tmp_path: Path, problems: Path) -> None:
    root = tmp_path / "c"
    put(root, "ann", "sum.1.py", WA)
    put(root, "ann", "sum.2.py", AC)
    put(root, "bob", "sum.py", AC)
    start = 1_900_000_000
    os.utime(root / "ann" / "sum.1.py", (start, start))  # the earliest: minute 0
    os.utime(root / "ann" / "sum.2.py", (start + 600, start + 600))
    os.utime(root / "bob" / "sum.py", (start + 1500, start + 1500))
    out = tmp_path / "board"
    assert grade(root, problems, out) == 0
    # ann: WA at minute 0 (the earliest file: the start), AC at 10 (10 + 20); bob: AC at 25
    assert [r[:4] for r in standings(out)] == [(1, "bob", 1, 25.0), (2, "ann", 1, 30.0)]


@pytest.mark.parametrize(
    ("times", "said"),
    [
        ("ann/nosuch.py: '0:10:00'\n", "names no submission"),
        ("ann/sum.py: 'soon'\n", "not a duration"),
        ("start: '0:00:00'\n", "start must be a time"),
        ("start: '2030-01-01T10:00:00Z'\nann/sum.py: '2030-01-01T09:00:00Z'\n", "before the start"),
        ("[1, 2]\n", "expected a mapping"),
    ],
)
def test_bad_times_are_one_line_before_anything_is_judged(
    tmp_path: Path, problems: Path, times: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "c"
    put(root, "ann", "sum.py", AC)
    (root / "times.yaml").write_text(times)
    assert grade(root, problems, tmp_path / "board") == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert not (tmp_path / "board" / "grade.sqlite").exists()


def test_score_boards_are_as_before(tmp_path: Path, problems: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "c"
    put(root, "ann", "sum.1.py", WA)
    put(root, "ann", "sum.2.py", AC)
    (root / "times.yaml").write_text("ann/sum.1.py: '0:01:00'\n")  # our file: not a contestant, not a notice
    out = tmp_path / "board"
    assert main(["grade", str(root), "--problems", str(problems), "--out", str(out), "--json"]) == 0
    doc = json.loads((out / "results.json").read_text())
    assert [n["kind"] for n in doc["not_judged"]] == ["ambiguous"]  # several files are attempts only in pass-fail
    assert "pass_fail_standings" not in doc and "scoreboard_type" not in doc
    assert main(["grade", str(root), "--problems", str(problems), "--penalty-minutes", "5"]) == 2
    assert "--penalty-minutes goes with --scoreboard pass-fail" in capsys.readouterr().err
