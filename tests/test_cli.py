"""The real `judge` entry point on the fixture packages (one of each kind)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


def judge(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("package", ["sum", "divisor", "guess", "reverse", "primes", "countdown"])
def test_verify_fixture_packages(package: str) -> None:
    proc = judge("verify", str(FIXTURES / package), "--json")
    report = json.loads(proc.stdout)
    wrong = [
        (s["submission"], s["expected"], s["result"] and s["result"]["verdict"])
        for s in report["submissions"]
        if not s["ok"]
    ]
    assert proc.returncode == 0, (wrong, proc.stderr[-2000:])
    assert report["ok"] and not wrong
    folders = {s["folder"] for s in report["submissions"] if s["skipped"] is None}
    assert {"accepted", "wrong_answer", "time_limit_exceeded", "run_time_error"} <= folders


def test_run_json_has_the_stable_keys() -> None:
    proc = judge("run", str(FIXTURES / "sum"), str(FIXTURES / "sum/submissions/wrong_answer/minus.py"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {
        "problem",
        "source",
        "language",
        "verdict",
        "score",
        "max_score",
        "time_s",
        "memory_kib",
        "compile_message",
        "tests",
    } <= out.keys()
    assert out["verdict"] == "WA" and out["language"] == "python3" and out["score"] == 0
    assert set(out["tests"][0]) == {"name", "group", "verdict", "score", "time_s", "memory_kib", "message"}
    assert out["tests"][0]["name"] == "sample/00"


def test_compile_error_message_is_reported() -> None:
    proc = judge("run", str(FIXTURES / "sum"), str(FIXTURES / "sum/submissions/compile_error/broken.c"), "--json")
    out = json.loads(proc.stdout)
    assert out["verdict"] == "CE" and "x" in out["compile_message"] and out["tests"] == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("run", "no/such/problem", "x.py"), "not a directory"),
        (("run", str(FIXTURES / "sum"), "no-such-file.py"), "no such file"),
        (("run", str(FIXTURES / "sum"), str(FIXTURES / "sum/problem.yaml")), "unknown language"),
        (("verify", str(FIXTURES)), "no problem.yaml"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], needle: str) -> None:
    proc = judge(*args)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_doctor_lists_languages_and_backend() -> None:
    proc = judge("doctor")
    assert proc.returncode == 0, proc.stderr
    for lang in ("python3", "c", "cpp", "pascal", "java"):
        assert lang in proc.stdout
    assert "sandbox backend:" in proc.stdout and "enforced limits:" in proc.stdout


def test_cpp_output_validator_is_compiled_and_its_message_shown() -> None:
    source = FIXTURES / "primes/submissions/wrong_answer/offbyone.py"
    proc = judge("run", str(FIXTURES / "primes"), str(source), "--json")
    out = json.loads(proc.stdout)
    assert out["verdict"] == "WA"
    assert any("expected 168, got 501" in t["message"] for t in out["tests"]), out["tests"]


def test_verify_reports_an_input_the_validator_rejects(tmp_path: Path) -> None:
    import shutil

    pkg = tmp_path / "sum"
    shutil.copytree(FIXTURES / "sum", pkg)
    shutil.rmtree(pkg / "submissions")
    (pkg / "submissions/accepted").mkdir(parents=True)
    shutil.copy(FIXTURES / "sum/submissions/accepted/sum.py", pkg / "submissions/accepted/sum.py")
    (pkg / "data/secret/01.in").write_text("1 2 3\n")
    proc = judge("verify", str(pkg), "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 1 and not report["ok"]
    failed = report["input_validation"]["failed"]
    assert [f["test"] for f in failed] == ["secret/01"] and "bad input" in failed[0]["message"]


def test_the_argument_tree_loads_no_command() -> None:
    """`judge --help`, and a Dask worker process (which imports the `judge` command's module again), load
    the commands' modules only when one runs: not Hypothesis, Dask, the web server or the board."""
    code = (
        "import sys; import judge.commands.cli as c; c.build_parser().parse_args(['grade', 'x']); "
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('hypothesis', 'distributed', 'starlette', 'jinja2') or (m.startswith('judge.commands.') "
        "and m not in ('judge.commands.common', 'judge.commands.cli', 'judge.commands.defaults', "
        "'judge.commands.args_common', 'judge.commands.args_judge', 'judge.commands.args_serve', "
        "'judge.commands.args_course')))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == []
    help_text = judge("grade", "--help").stdout
    assert "OUT/grade.sqlite" in help_text and "default 1" in help_text
