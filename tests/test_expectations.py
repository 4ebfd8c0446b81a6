"""What `judge verify` expects of each example submission: folders, DOMjudge markers, submissions.yaml.

Fixtures: `greeting` (DOMjudge style: samples only, DOMjudge's folder names and @EXPECTED_RESULTS@ markers),
`subtasks` (legacy scoring as DOMjudge's examples use it, partial/ with @EXPECTED_SCORE@, a validator that
writes score.txt beside its rejections) and `squares` (2025-09 submissions.yaml rules).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.authoring.expectations import (
    CaseRule,
    Expectation,
    SubmissionsYaml,
    expectation_for,
    glob_matches,
    load_submissions_yaml,
    read_annotation,
)
from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.verdict import Verdict
from judge.package.testgroups import PackageError

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


def verify(package: Path, *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "verify", str(package), "--json", *extra],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return proc.returncode, json.loads(proc.stdout)


def rows(report: dict) -> dict[str, dict]:  # type: ignore[type-arg]
    return {s["submission"]: s for s in report["submissions"]}


# -- the fixtures, through the real entry point -------------------------------------------------------


def test_domjudge_style_package_with_samples_only() -> None:
    code, report = verify(FIXTURES / "greeting")
    by = rows(report)
    wrong = {k: (v["expected"], v["result"]["verdict"], v["failures"]) for k, v in by.items() if not v["ok"]}
    assert code == 0 and report["ok"], wrong
    got = {k: v["result"]["verdict"] for k, v in by.items()}
    assert got["no_output/silent.py"] == "WA"  # DOMjudge's NO-OUTPUT
    assert got["output_limit/flood_then_stop.py"] == "OLE"
    assert got["time_limit_exceeded/flood_forever.py"] == "OLE"  # DOMjudge would wait for TIMELIMIT
    assert got["time_limit_exceeded/spin.py"] == "TLE"
    assert got["run_time_error/crash.py"] == "RTE"
    assert got["compiler_error/bad#name.c"] == "CE"  # a valid program, under a name a judge refuses
    assert "file name not allowed" in by["compiler_error/bad#name.c"]["result"]["compile_message"]
    manual = by["check_manually/looks_fine.py"]
    assert manual["ok"] and not manual["checked"] and manual["result"]["verdict"] == "AC"
    assert all(v["checked"] for k, v in by.items() if not k.startswith("check_manually/"))
    assert by["accepted/hello.py"]["result"]["tests"][0]["name"] == "sample/1"  # the samples are the tests


def test_legacy_scoring_and_partial_folder() -> None:
    code, report = verify(FIXTURES / "subtasks")
    by = rows(report)
    assert code == 0 and report["ok"], {k: v["failures"] for k, v in by.items()}
    scores = {k: v["result"]["score"] for k, v in by.items()}
    assert scores == {
        "accepted/double.py": 100,
        "partial/small_only.py": 40,  # easy (accept_score 40) only
        "partial/no_huge.py": 70,  # 40 + avg(60, 0)
        "partial/slow_huge.c": 70,  # TLE on y: a partial score all the same
        "wrong_answer/off_by_one.py": 0,
        "wrong_answer/words.py": 0,
    }
    assert all(v["result"]["max_score"] == 100 for v in by.values())
    off = by["wrong_answer/off_by_one.py"]["result"]
    assert off["verdict"] == "WA"  # the validator wrote score.txt and rejected: WA, not JE
    assert "score is ignored" in off["tests"][0]["message"]


def test_submissions_yaml_rules() -> None:
    code, report = verify(FIXTURES / "squares")
    by = rows(report)
    assert code == 0 and report["ok"], {k: v["failures"] for k, v in by.items()}
    assert "secret/hard: permitted AC,TLE required TLE" in by["solves_easy/add_up.py"]["expected"]
    assert "permitted AC,RTE,WA required WA" in by["wrong_answer/plus_one.py"]["expected"]
    named = by["rejected/by_name.txt"]["result"]  # `language: python3` in submissions.yaml
    assert named["language"] == "python3" and named["verdict"] == "WA"


def test_a_broken_rule_is_a_mismatch(tmp_path: Path) -> None:
    package = tmp_path / "squares"
    shutil.copytree(FIXTURES / "squares", package)
    rules = package / "submissions" / "submissions.yaml"
    text = rules.read_text()
    rules.write_text(text.replace("  secret/easy:\n    permitted: [AC]", "  secret/easy:\n    permitted: [WA]"))
    code, report = verify(package)
    row = rows(report)["solves_easy/add_up.py"]
    assert code == 1 and not row["ok"]
    assert any("secret/easy/1 got AC, permitted WA" in f for f in row["failures"]), row["failures"]


def test_all_tests_judges_past_the_first_rejection(tmp_path: Path) -> None:
    package = tmp_path / "squares"
    shutil.copytree(FIXTURES / "squares", package)
    rules = package / "submissions" / "submissions.yaml"
    # hard/1 fails first; the rule is about hard/2: only judging every test can check it
    rules.write_text(rules.read_text() + "rejected/wrong_when_big.py:\n  secret/hard/2:\n    required: [TLE]\n")
    code, report = verify(package)
    assert rows(report)["rejected/wrong_when_big.py"]["ok"]  # hard/2 not judged: benefit of the doubt
    code, report = verify(package, "--all-tests")
    row = rows(report)["rejected/wrong_when_big.py"]
    assert not row["ok"] and any("secret/hard/2" in f for f in row["failures"]), row
    # unchanged by --all-tests; 0: in 2025-09 easy/ and hard/ (no test_group.yaml) are folders of secret's
    # tests, not groups, and a pass-fail problem's secret is all or nothing
    assert row["result"]["verdict"] == "WA" and row["result"]["score"] == 0


def test_malformed_submissions_yaml_is_one_line(tmp_path: Path) -> None:
    package = tmp_path / "squares"
    shutil.copytree(FIXTURES / "squares", package)
    (package / "submissions" / "submissions.yaml").write_text("accepted:\n  permitted: [OK]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "verify", str(package)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and "unknown verdict 'OK'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# -- the rules, as pure functions -----------------------------------------------------------------------


def _case(name: str, verdict: Verdict, message: str = "") -> CaseResult:
    fraction = 1.0 if verdict is Verdict.AC else 0.0
    return CaseResult(name, name.rsplit("/", 1)[0], verdict, fraction, 0.1, 0.1, 1, message)


def _result(verdict: Verdict, *cases: CaseResult, score: float = 0.0) -> SubmissionResult:
    return SubmissionResult("p", "x.py", "python3", verdict, score, 100.0, 0.1, 1, tests=cases)


NAMES = ["sample/1", "secret/a/1", "secret/a/2", "secret/b/1"]


def test_markers(tmp_path: Path) -> None:
    f = tmp_path / "a.c"
    f.write_text("/* @EXPECTED_RESULTS@: CORRECT, wrong-answer */\n// @EXPECTED_SCORE@: 12.5\n")
    ann = read_annotation(f)
    assert ann is not None and ann.results == ("CORRECT", "WRONG-ANSWER") and ann.score == 12.5
    f.write_text("@EXPECTED_RESULTS@: CORRECT\n@EXPECTED_RESULTS@: CORRECT\n")
    ann = read_annotation(f)
    assert ann is not None and ann.error is not None and "2 times" in ann.error
    d = tmp_path / "multi"
    d.mkdir()
    (d / "a.py").write_text("# @EXPECTED_RESULTS@: CORRECT\n")
    (d / "b.py").write_text("# @EXPECTED_RESULTS@: CORRECT\n")
    ann = read_annotation(d)
    assert ann is not None and ann.error is not None and "more than one file" in ann.error
    (tmp_path / "plain.py").write_text("print(1)\n")
    assert read_annotation(tmp_path / "plain.py") is None


def test_marker_and_folder(tmp_path: Path) -> None:
    src = tmp_path / "x.py"
    src.write_text("# @EXPECTED_RESULTS@: WRONG-ANSWER\n")
    none = SubmissionsYaml()
    conflict = expectation_for("accepted", src, "accepted/x.py", none)
    assert conflict.failures(_result(Verdict.AC, score=100.0), NAMES)  # the package contradicts itself
    mixed = expectation_for("mixed-verdicts", src, "mixed-verdicts/x.py", none)
    assert mixed.checked and not mixed.failures(_result(Verdict.WA), NAMES)
    assert mixed.failures(_result(Verdict.TLE), NAMES)
    unknown = expectation_for("whatever", tmp_path / "plain.py", "whatever/plain.py", none)
    assert not unknown.checked and unknown.manual is not None


def test_globs() -> None:
    assert glob_matches("accepted", "accepted/a.py")
    assert glob_matches("accepted/*", "accepted/a.py")
    assert glob_matches("*/a.py", "wrong_answer/a.py")
    assert glob_matches("*", "secret/a/1")  # its first folder matches
    assert not glob_matches("secret/*-easy", "secret/x/1-easy")  # * stays within one name
    assert glob_matches("secret/*-easy", "secret/1-easy/003")
    assert glob_matches("{accepted,rejected}/{a,b}.py", "rejected/b.py")
    assert not glob_matches("{accepted,rejected}/{a,b}.py", "rejected/c.py")


def test_permitted_and_required_over_the_judged_tests() -> None:
    rule = CaseRule("t", None, frozenset({"AC", "WA"}), frozenset({"WA"}))
    exp = Expectation("x", rules=(rule,))
    full = [_case(n, Verdict.AC) for n in NAMES[:3]] + [_case("secret/b/1", Verdict.WA)]
    assert not exp.failures(_result(Verdict.WA, *full), NAMES)
    tle = [_case("sample/1", Verdict.AC), _case("secret/a/1", Verdict.TLE)]
    assert exp.failures(_result(Verdict.TLE, *tle), NAMES)  # TLE is not permitted
    early = [_case("sample/1", Verdict.AC), _case("secret/a/1", Verdict.WA)]
    assert not exp.failures(_result(Verdict.WA, *early), NAMES)  # stopped there: the rest untested
    all_ac = [_case(n, Verdict.AC) for n in NAMES]
    assert exp.failures(_result(Verdict.AC, *all_ac), NAMES)  # every test judged, none WA
    assert exp.failures(_result(Verdict.CE), NAMES)  # nothing ran


def test_our_finer_verdicts_count_as_the_specs_four() -> None:
    rte = Expectation("x", rules=(CaseRule("t", None, frozenset({"AC", "RTE"}), frozenset({"RTE"})),))
    mle = [_case("sample/1", Verdict.MLE)]
    assert not rte.failures(_result(Verdict.MLE, *mle), NAMES[:1])
    wa = Expectation("x", rules=(CaseRule("t", None, frozenset({"AC", "WA"}), frozenset({"WA"})),))
    assert not wa.failures(_result(Verdict.PV, _case("sample/1", Verdict.PV)), NAMES[:1])


def test_group_scope_message_and_score() -> None:
    rule = CaseRule("t", "secret/a", frozenset({"AC"}), None, None, "needle")
    exp = Expectation("x", rules=(rule,))
    cases = [_case("secret/a/1", Verdict.AC, "a needle here"), _case("secret/a/2", Verdict.AC)]
    assert not exp.failures(_result(Verdict.AC, *cases), NAMES)
    cases = [_case("secret/a/1", Verdict.AC), _case("secret/a/2", Verdict.AC)]
    assert exp.failures(_result(Verdict.AC, *cases), NAMES)
    scored = Expectation("x", rules=(CaseRule("t", None, score=(40.0, 60.0)),))
    assert not scored.failures(_result(Verdict.WA, score=50.0), NAMES)
    assert scored.failures(_result(Verdict.WA, score=70.0), NAMES)


def test_submissions_yaml_is_checked(tmp_path: Path) -> None:
    sub = tmp_path / "submissions"
    sub.mkdir()
    (sub / "submissions.yaml").write_text("accepted:\n  score: [1, 2, 3]\n")
    with pytest.raises(PackageError):
        load_submissions_yaml(tmp_path)
    (sub / "submissions.yaml").write_text("accepted:\n  secret:\n    banana: [AC]\n")
    with pytest.raises(PackageError):
        load_submissions_yaml(tmp_path)
    (sub / "submissions.yaml").write_text("x:\n  permitted: [AC, WA]\n  required: [TLE]\n")
    with pytest.raises(PackageError):
        load_submissions_yaml(tmp_path)  # required outside permitted: no submission can meet it
    (sub / "submissions.yaml").write_text("accepted:\n  authors: Someone\n  model_solution: true\n")
    assert load_submissions_yaml(tmp_path).matching("accepted/a.py")
