"""The Kattis package format 2025-09, complete (issue 34), on fixtures of our own:

- tests/fixtures/addk2025: ``constants`` (substituted in the statement, the validators, include/, an
  example submission, test_group.yaml), ``languages``, include/<language>/ or else include/default/,
  submissions.yaml ``entrypoint``/``authors``/``model_solution``, the validation data;
- tests/fixtures/groups2025: ``require_pass``, a static validation test case, a test's ``.files``, an input
  validator given as build/run scripts;
- tests/fixtures/closedsum: an interactor that closes its output before it waits for the answer;
- packages written here: the time limit rule, ``code``, unknown and refused keys.

Judged through the real `judge verify` (JSON) where a verdict is checked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge.judging.build import RefusedByProblem, compile_limits
from judge.judging.feedback import VALIDATOR_LIMITS, validator_limits
from judge.judging.jobs import make_job, refusal
from judge.package.constants import parse_constants, variant_warnings
from judge.package.includes import include_files
from judge.package.problem import PackageError, load_problem
from judge.scoreboard.statements import render_statement

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent


def verify(package: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "verify", str(package), "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["submission"]: s for s in report["submissions"]}


def copy(tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst)
    return dst


# ------------------------------------------------------------------------------------------ constants


def test_addk2025_judges_as_its_authors_expect() -> None:
    report = verify(FIXTURES / "addk2025")
    subs = by_name(report)
    got = {k: (s["result"] or {}).get("verdict") for k, s in subs.items()}
    assert got == {
        "accepted/entry": "AC",  # submissions.yaml entrypoint: solve.py, not main.py
        "accepted/inline.py": "AC",  # {{k}} in the submission itself
        "accepted/not_allowed.c": None,  # C is not in problem.yaml's languages
        "accepted/reads_default.cpp": "AC",  # no include/cpp/: include/default/k.txt, substituted
        "accepted/uses_include.py": "AC",  # include/python3/constants.py, substituted
        "run_time_error/reads_default.py": "RTE",  # include/python3/ replaces include/default/
        "wrong_answer/forgets_k.py": "WA",
    }
    refused = subs["accepted/not_allowed.c"]
    assert refused["ok"] and "refused, not judged" in refused["skipped"] and "not a language" in refused["skipped"]
    assert "compile" not in refused["skipped"].lower()
    assert report["ok"], [s for s in report["submissions"] if not s["ok"]]
    # the input validator on the 4 tests and data/invalid_input (2); the output validator on invalid_output,
    # valid_output and the sample's .out
    checks = report["input_validation"]
    assert checks["checked"] == 4 + 2 + 1 + 1 + 1 and checks["failed"] == []


def test_the_statement_shows_the_constants() -> None:
    problem = load_problem(FIXTURES / "addk2025")
    html = render_statement(problem.statement, problem.constants)
    assert "Add seven (7) to a number" in html and "n + 7" in html and "{{k" not in html
    assert "{{remainingsamples}}" in html  # the statement's own command is no constant


@pytest.mark.parametrize(
    "rel",
    [
        "statement/problem.en.md",
        "output_validator/validate.py",
        "input_validators/validate.py",
        "include/default/k.txt",
        "submissions/wrong_answer/forgets_k.py",
        "data/secret/test_group.yaml",
    ],
)
def test_an_undefined_constant_is_a_package_error_naming_the_file_and_the_name(tmp_path: Path, rel: str) -> None:
    pkg = copy(tmp_path, "addk2025")
    path = pkg / rel
    path.write_text(path.read_text() + "# {{kk}}\n")
    with pytest.raises(PackageError) as info:
        load_problem(pkg)
    assert rel in str(info.value) and "{{kk}}" in str(info.value), str(info.value)


def test_an_undefined_variant_is_named_with_the_variants_there_are(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    path = pkg / "submissions/accepted/inline.py"
    path.write_text(path.read_text() + "# {{k.words}}\n")
    with pytest.raises(PackageError) as info:
        load_problem(pkg)
    assert "submissions/accepted/inline.py: {{k.words}}: constant k" in str(info.value), str(info.value)
    assert "no variant words (it has tex, value, word)" in str(info.value), str(info.value)


def test_a_latex_statement_constant_must_name_one(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    yaml = (pkg / "problem.yaml").read_text()
    (pkg / "problem.yaml").write_text(yaml.replace("name: Add K", "name: {en: Add K, sv: Addera K}"))
    (pkg / "statement/problem.sv.tex").write_text("Addera \\constant{k.word} ($\\constant{k}$).\n")
    problem = load_problem(pkg)
    sv = render_statement(pkg / "statement/problem.sv.tex", problem.constants)
    assert "Addera seven ($7$)." in sv, sv
    (pkg / "statement/problem.sv.tex").write_text("Addera \\constant{kk}.\n")
    with pytest.raises(PackageError) as info:
        load_problem(pkg)
    assert "statement/problem.sv.tex: \\constant{kk} names no constant" in str(info.value), str(info.value)


def test_test_group_yaml_names_no_constant_of_a_package_without_any(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "groups2025")  # 2025-09, no constants
    assert not load_problem(pkg).constants
    path = pkg / "data/secret/b-large/test_group.yaml"
    path.write_text(path.read_text() + "output_validator_args: ['{{k}}']\n")
    with pytest.raises(PackageError) as info:
        load_problem(pkg)
    assert "b-large/test_group.yaml: {{k}} names no constant" in str(info.value), str(info.value)


def test_a_variant_that_reads_as_another_number_is_a_warning(tmp_path: Path) -> None:
    """The spec: tools should warn if a variant appears to represent a different value (best effort)."""
    assert load_problem(FIXTURES / "addk2025").warnings == ()
    pkg = copy(tmp_path, "addk2025")
    yaml = (pkg / "problem.yaml").read_text()
    (pkg / "problem.yaml").write_text(yaml.replace('tex: "7"', 'tex: "70"'))
    assert load_problem(pkg).warnings == (
        "problem.yaml: constants.k.tex is `70`, which reads as another number than k's value 7",
    )
    same = ["5,000,000", "5\\,000\\,000", "$5 \\cdot 10^6$", "5 \\times 10^{6}", "5e6", "5~000~000", "five million"]
    other = ["50,000", "5 \\cdot 10^5", "$5000$"]
    variants = {f"v{i}": text for i, text in enumerate(same + other)}
    warned = variant_warnings(parse_constants({"k": {"value": 5000000, **variants}}))
    assert [w.split("`")[1] for w in warned] == other, warned
    assert variant_warnings(parse_constants({"x": {"value": 1.5, "sv": "1,5"}, "s": {"value": "ab", "t": "3"}})) == ()


def test_test_data_and_problem_yaml_are_not_substituted(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    (pkg / "data/secret/01.ans").write_text("{{nope}}\n")  # data: not a place where constants apply
    problem = load_problem(pkg)
    assert problem.constants.text("k", "word") == "seven" and problem.constants.text("nmax", None) == "1000"


def test_what_is_judged_is_what_is_hashed(tmp_path: Path) -> None:
    """An example submission's job holds the substituted bytes; a contestant's file (grade, serve) is
    judged as written: constants are the package's, for the package's own files."""
    pkg = copy(tmp_path, "addk2025")
    problem = load_problem(pkg)
    example = make_job(pkg / "submissions/accepted/inline.py", problem, "python3", within=pkg / "submissions")
    assert example.files[0].data == b"print(int(input()) + 7)\n"
    contestant = tmp_path / "team" / "inline.py"
    contestant.parent.mkdir()
    shutil.copy(pkg / "submissions/accepted/inline.py", contestant)
    assert make_job(contestant, problem, "python3").files[0].data == b"print(int(input()) + {{k}})\n"
    yaml = (pkg / "problem.yaml").read_text()
    (pkg / "problem.yaml").write_text(yaml.replace("value: 7", "value: 8"))
    changed = load_problem(pkg)
    again = make_job(pkg / "submissions/accepted/inline.py", changed, "python3", within=pkg / "submissions")
    assert again.source_hash() != example.source_hash() and changed.content_hash != problem.content_hash


# ------------------------------------------------------------------------------------------ languages


def test_a_language_the_problem_does_not_allow_is_refused_not_judged() -> None:
    problem = load_problem(FIXTURES / "addk2025")
    job = make_job(FIXTURES / "addk2025/submissions/accepted/not_allowed.c", problem, "c")
    reason = refusal(job, problem, "c")
    assert reason is not None and "not a language of problem addk2025" in reason
    assert refusal(job, problem, "cpp") is None
    assert issubclass(RefusedByProblem, Exception)
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "run", str(FIXTURES / "addk2025"), str(job.label)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode != 0 and "refused, not judged" in proc.stdout + proc.stderr


def test_include_folder_for_a_language_the_problem_does_not_allow_is_an_error(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    (pkg / "include/java").mkdir()
    (pkg / "include/java/Main.java").write_text("class Main {}\n")
    with pytest.raises(PackageError, match="include/java/"):
        load_problem(pkg)


def test_include_language_folder_or_default(tmp_path: Path) -> None:
    """2025-09: one folder, the language's own or else default; older versions: default, then the language's."""
    pkg = copy(tmp_path, "addk2025")
    for replace_default, python, cpp in (
        (True, {"constants.py"}, {"k.txt"}),
        (False, {"constants.py", "k.txt"}, {"k.txt"}),
    ):
        got_python = {str(rel) for rel, _ in include_files(pkg, "python3", replace_default=replace_default)}
        got_cpp = {str(rel) for rel, _ in include_files(pkg, "cpp", replace_default=replace_default)}
        assert (got_python, got_cpp) == (python, cpp)


def test_the_code_limit_refuses_a_larger_submission(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    (pkg / "submissions/accepted/long.py").write_text("# padding\n" * 500 + "print(int(input()) + 7)\n")
    report = verify(pkg)
    long = by_name(report)["accepted/long.py"]
    assert long["result"] is None and "code limit" in long["skipped"]
    assert by_name(report)["accepted/inline.py"]["result"]["verdict"] == "AC"


# ------------------------------------------------------------------------------- groups and static cases


def test_groups2025_scores_as_its_authors_expect() -> None:
    report = verify(FIXTURES / "groups2025")
    subs = by_name(report)
    assert report["ok"], [(s["submission"], s["failures"]) for s in report["submissions"] if not s["ok"]]
    scores = {k: (s["result"]["verdict"], s["result"]["score"]) for k, s in subs.items()}
    assert scores == {
        "accepted/full.py": ("AC", 100),
        "partially_accepted/long.py": ("AC", 95),  # half of the static validation's 10
        "partially_accepted/small_only.py": ("WA", 60),
        "wrong_answer/ignores_files.py": ("WA", 80),  # the tests with .files fail
        "wrong_answer/no_small.py": ("WA", 10),  # b-large requires a-small: not judged, 0
    }
    no_small = [t["name"] for t in subs["wrong_answer/no_small.py"]["result"]["tests"]]
    assert not any(name.startswith("secret/b-large/") for name in no_small)
    full = {t["name"]: t["score"] for t in subs["accepted/full.py"]["result"]["tests"]}
    assert full["secret/c-files/static_validation"] == 10 and full["secret/c-files/1"] == 10  # (30 - 10) / 2
    # the build/run input validator ran on the 7 tests (and saw offset.txt where .files put one)
    assert report["input_validation"] == {"checked": 7, "failed": []}


def test_validation_data_that_the_validators_misjudge_fails_verify(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "addk2025")
    (pkg / "data/invalid_output/off_by_one.out").write_text("10\n")  # right after all: accepted
    (pkg / "data/invalid_input/too_big.in").write_text("1000\n")  # valid after all: accepted
    report = verify(pkg)
    failed = {c["test"] for c in report["input_validation"]["failed"]}
    assert failed == {"invalid_output/off_by_one", "invalid_input/too_big"} and not report["ok"]


@pytest.mark.parametrize(
    ("rel", "text", "needle"),
    [
        ("data/secret/b-large/test_group.yaml", "max_score: 40\nrequire_pass: secret/c-files\n", "must come before"),
        ("data/secret/b-large/test_group.yaml", "max_score: 40\nrequire_pass: secret/a-nosuch\n", "no group"),
        ("data/secret/c-files/test_group.yaml", "max_score: 30\nstatic_validator_args: [a]\n", "without static"),
        ("data/secret/a-small/test_group.yaml", "max_score: 30\nstatic_validation_score: 5\n", "sum or min"),
    ],
)
def test_require_pass_and_static_validation_are_checked(tmp_path: Path, rel: str, text: str, needle: str) -> None:
    pkg = copy(tmp_path, "groups2025")
    (pkg / rel).write_text(text)
    with pytest.raises(PackageError, match=needle):
        load_problem(pkg)


def test_a_static_validation_score_needs_a_static_validator(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "groups2025")
    shutil.rmtree(pkg / "static_validator")
    with pytest.raises(PackageError, match="static_validator/"):
        load_problem(pkg)


def test_require_pass_on_a_sum_group_is_refused(tmp_path: Path) -> None:
    pkg = copy(tmp_path, "groups2025")
    (pkg / "data/secret/b-large/test_group.yaml").write_text("max_score: 40\nrequire_pass: secret/a-small\n")
    (pkg / "data/secret/a-small/test_group.yaml").write_text("max_score: 30\nscore_aggregation: sum\n")
    with pytest.raises(PackageError, match="pass-fail"):
        load_problem(pkg)


# ------------------------------------------------------------------------------------------- interactive


def test_an_interactor_that_closes_its_output_first() -> None:
    report = verify(FIXTURES / "closedsum")
    got = {k: s["result"]["verdict"] for k, s in by_name(report).items()}
    assert got == {
        "accepted/to_eof.c": "AC",
        "accepted/to_eof.py": "AC",
        "time_limit_exceeded/waits_twice.py": "TLE",
        "wrong_answer/first_only.py": "WA",
    }
    assert report["ok"]


# ----------------------------------------------------------------------------------------------- limits


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


BURN = "import time\nwhile time.process_time() < {s}:\n    pass\nprint(int(input()) * 2)\n"


def test_without_a_time_limit_verify_uses_the_specs_rule(tmp_path: Path) -> None:
    """No time_limit: the smallest multiple of time_resolution (1 s) that is at least twice the slowest
    accepted submission (1.2 s of CPU, counted by the program itself): 3 s. A limit of 1 s would be TLE."""
    pkg = write(
        tmp_path / "double",
        {
            "problem.yaml": "problem_format_version: 2025-09\nname: Double\nuuid: x\n",
            "data/secret/1.in": "4\n",
            "data/secret/1.ans": "8\n",
            "submissions/accepted/burns.py": BURN.format(s=1.2),
        },
    )
    report = verify(pkg)
    assert by_name(report)["accepted/burns.py"]["result"]["verdict"] == "AC"
    assert "the spec's rule gives 3 s" in report["notes"][0]
    (pkg / "problem.yaml").write_text(
        "problem_format_version: 2025-09\nname: Double\nuuid: x\nlimits: {time_limit: 1}\n"
    )
    report = verify(pkg)
    assert by_name(report)["accepted/burns.py"]["result"]["verdict"] == "TLE"


def test_resource_guarantees_raise_the_compile_and_validator_limits(tmp_path: Path) -> None:
    limits = "limits: {compilation_time: 90, compilation_memory: 3072, validation_time: 5, validation_memory: 512}\n"
    pkg = write(
        tmp_path / "guarantees",
        {
            "problem.yaml": "problem_format_version: 2025-09\nname: G\nuuid: x\n" + limits,
            "data/secret/1.in": "1\n",
            "data/secret/1.ans": "1\n",
        },
    )
    problem = load_problem(pkg)
    assert (compile_limits(problem).time_s, compile_limits(problem).memory_kib) == (90, 3072 * 1024)
    assert compile_limits(None).time_s == 60  # ours, at least
    v = validator_limits(problem)
    assert (v.time_s, v.memory_kib, v.output_bytes) == (5, 512 * 1024, VALIDATOR_LIMITS.output_bytes)


def test_a_time_limit_must_be_a_multiple_of_the_resolution(tmp_path: Path) -> None:
    pkg = write(
        tmp_path / "res",
        {
            "problem.yaml": "problem_format_version: 2025-09\nname: R\nuuid: x\nlimits: {time_limit: 1.5}\n",
            "data/secret/1.in": "1\n",
            "data/secret/1.ans": "1\n",
        },
    )
    with pytest.raises(PackageError, match="multiple of time_resolution"):
        load_problem(pkg)
    (pkg / "problem.yaml").write_text(
        "problem_format_version: 2025-09\nname: R\nuuid: x\nlimits: {time_limit: 1.5, time_resolution: 0.5}\n"
    )
    assert load_problem(pkg).limits.time_s == 1.5


def test_an_unknown_key_is_a_warning_and_the_package_loads(tmp_path: Path) -> None:
    pkg = write(
        tmp_path / "unknown",
        {
            "problem.yaml": "problem_format_version: 2025-09\nname: U\nuuid: x\nsource_url: https://x.example\n",
            "data/secret/1.in": "1\n",
            "data/secret/1.ans": "1\n",
            "data/secret/1.yaml": "hint: one\nflavour: mint\n",
        },
    )
    warnings = load_problem(pkg).warnings
    assert any("source_url" in w for w in warnings) and any("flavour" in w for w in warnings)


def test_serve_refuses_an_upload_in_a_language_the_problem_does_not_allow(tmp_path: Path) -> None:
    from serve_fixtures import HOUR, T0, Api, FakeClock, make_server, write_contest

    from judge.languages.table import load_languages

    root = write_contest(tmp_path / "contest")
    (root / "problems.yaml").write_text("- {id: addk2025, label: A}\n")
    languages = {k: v for k, v in load_languages().items() if k in ("python3", "c")}
    api = Api.of(make_server(root, FakeClock(T0 + HOUR), languages=languages))
    refused = api.submit("team1", problem="addk2025", files={"add.c": "int main(void) { return 0; }\n"}, language="c")
    assert refused.status_code == 400 and "does not take C" in refused.json()["message"], refused.text
    taken = api.submit("team1", problem="addk2025", files={"add.py": "print(int(input()) + 7)\n"})
    assert taken.status_code in (200, 201), taken.text
    statement = api.get("/api/contests/test/problems/addk2025/statement", "team1")  # constants substituted
    assert statement.status_code == 200 and "Add seven (7) to a number" in statement.text, statement.text
    assert "{{k" not in statement.text and "{{remainingsamples}}" in statement.text
