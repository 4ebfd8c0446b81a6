"""`judge export`: a package that needs nothing outside itself; and the one way programs reach `reference/`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
import yaml

from judge.authoring.verify import check_inputs
from judge.commands.cli import main
from judge.judging.submission import Environment, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, toolchain
from judge.package.export import ExportError, export_package
from judge.package.problem import load_problem
from judge.runner import Runner

ROOT = Path(__file__).resolve().parent.parent
PROBLEMS = ROOT / "problems"
FIXTURES = Path(__file__).parent / "fixtures"


def isolated_python(script: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The script with nothing on sys.path but its own folder and the standard library (no site-packages,
    so no editable install of the project, no PYTHONPATH)."""
    return subprocess.run(
        [sys.executable, "-E", "-s", "-S", str(script), *args], input=stdin, capture_output=True, timeout=120
    )


def test_export_copies_the_reference_modules_in_beside_the_programs(tmp_path: Path) -> None:
    out = tmp_path / "coins"
    report = export_package(PROBLEMS / "coins", out)
    validator = out / "output_validator" / "coins" / "main.py"
    assert validator.is_file() and not (out / "output_validator" / "coins" / "validate.py").exists()
    for program in ("output_validator/coins", "input_validators/validate", "generators"):
        assert (out / program / "reference" / "__init__.py").is_file(), program
        assert (out / program / "reference" / "coins.py").read_bytes() == (ROOT / "reference/coins.py").read_bytes()
        assert not (out / program / "reference" / "go.py").exists()  # only what is imported
    assert (out / "input_validators" / "validate" / "main.py").is_file()
    assert not (out / "input_validators" / "validate.py").exists()
    assert not (out / "fuzz.py").exists() and not list(out.rglob("__pycache__"))
    assert ("input_validators/validate.py", "input_validators/validate/main.py") in report.renamed
    # The exported validator runs with nothing of the project importable; the original does not.
    sample = out / "data" / "sample" / "1-ababa"
    feedback = tmp_path / "feedback"
    feedback.mkdir()
    answer = sample.with_suffix(".ans")
    args = (str(sample.with_suffix(".in")), str(answer), str(feedback) + "/")
    assert isolated_python(validator, *args, stdin=answer.read_bytes()).returncode == 42
    original = isolated_python(PROBLEMS / "coins/output_validator/coins/validate.py", *args, stdin=answer.read_bytes())
    assert original.returncode == 1 and b"No module named 'reference'" in original.stderr
    iv = isolated_python(out / "input_validators/validate/main.py", stdin=sample.with_suffix(".in").read_bytes())
    assert iv.returncode == 42, iv.stderr


def test_transitive_imports_travel_too(tmp_path: Path) -> None:
    report = export_package(PROBLEMS / "memory", tmp_path / "memory")
    oracle = tmp_path / "memory" / "output_validator" / "oracle"
    # the oracle imports reference.memory_adversary, which imports reference.memory_values
    assert {"reference.memory", "reference.memory_adversary", "reference.memory_values"} <= set(
        report.copied["output_validator/oracle"]
    )
    assert (oracle / "reference" / "memory_values.py").is_file()
    assert "protocol_violation/forgetful.py" in report.needs_extensions
    assert "accepted/reference.py" not in report.needs_extensions  # an ordinary stdio program
    assert "function-style" in report.needs_extensions["accepted/reference_function.py"]
    assert (tmp_path / "memory" / "stubs" / "python3" / "main.py").is_file()
    loaded = load_problem(tmp_path / "memory")
    assert loaded.stubs["python3"].files == tmp_path / "memory" / "stubs" / "python3"


def test_left_out_submissions_and_zip(tmp_path: Path) -> None:
    report = export_package(PROBLEMS / "go", tmp_path / "go.zip", as_zip=True)
    assert set(report.left_out) == {
        "submissions/run_time_error/cheat_file_in_box.py",
        "submissions/wrong_answer/cheat_tmp_file.c",
    }
    names = set(zipfile.ZipFile(tmp_path / "go.zip").namelist())
    assert {"problem.yaml", "judge.yaml", "output_validator/go/main.py", "output_validator/go/reference/go.py"} <= names
    assert "submissions/wrong_answer/cheat_environment.py" in names  # its verdict needs no sandbox
    assert not any("cheat_tmp_file" in n or "cheat_file_in_box" in n for n in names)
    assert not any(n.startswith("submissions/run_time_error/") for n in names)


def test_an_older_judge_key_moves_to_judge_yaml(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "sum"
    shutil.copytree(FIXTURES / "sum", pkg)
    text = (pkg / "problem.yaml").read_text()
    older = "judge:\n  # the answer is the exit status\n  answer: exit_code\nsource: here\n"
    (pkg / "problem.yaml").write_text(text + older)
    report = export_package(pkg, tmp_path / "sum")
    assert report.notes and "judge.yaml" in report.notes[0]
    config = yaml.safe_load((tmp_path / "sum" / "problem.yaml").read_text())
    assert "judge" not in config and config["source"] == "here"
    assert yaml.safe_load((tmp_path / "sum" / "judge.yaml").read_text()) == {"answer": "exit_code"}
    assert load_problem(tmp_path / "sum").answer_mode.value == "exit_code"


def test_export_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "go").mkdir()
    (tmp_path / "go" / "x").write_text("mine")
    with pytest.raises(ExportError, match="exists"):
        export_package(PROBLEMS / "go", tmp_path / "go")
    assert (tmp_path / "go" / "x").read_text() == "mine"
    with pytest.raises(ExportError, match="inside"):
        export_package(PROBLEMS / "go", PROBLEMS / "go" / "out")


def test_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(PROBLEMS / "rummy"), str(tmp_path / "rummy")]) == 0
    out = capsys.readouterr().out
    assert "output_validator/rummy_exit: copied in reference, reference.rummy" in out
    assert "answer: exit_code" in out  # every rummy submission needs our extensions
    assert main(["export", str(PROBLEMS / "rummy"), str(tmp_path / "rummy")]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["export", str(PROBLEMS / "rummy"), str(tmp_path / "rummy"), "--force"]) == 0


# --- reference/ missing: a judge error that says why -------------------------------------------------------


def _package_importing_a_missing_module(tmp_path: Path) -> Path:
    pkg = tmp_path / "missing"
    shutil.copytree(FIXTURES / "sum", pkg)
    broken = "import reference.no_such_problem  # noqa\nimport sys\nsys.exit(42)\n"
    (pkg / "output_validator" / "check").mkdir(parents=True)
    (pkg / "output_validator" / "check" / "validate.py").write_text(broken)
    shutil.rmtree(pkg / "input_validators")
    (pkg / "input_validators").mkdir()
    (pkg / "input_validators" / "validate.py").write_text(broken)
    return pkg


def test_a_missing_reference_module_is_a_je_with_the_reason(tmp_path: Path, sandbox_runner: Runner) -> None:
    pkg = _package_importing_a_missing_module(tmp_path)
    env = Environment(sandbox_runner, load_languages(), toolchain())
    problem = load_problem(pkg)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = prepare(problem, env, Path(tmp))
        result = judge_submission(prepared, pkg / "submissions" / "accepted" / "sum.py", env)
        checks = check_inputs(problem, env, Path(tmp))
    assert result.verdict is Verdict.JE
    message = next(t.message for t in result.tests if t.verdict is Verdict.JE)
    assert "ModuleNotFoundError: No module named 'reference.no_such_problem'" in message
    assert "judge export" in message  # what to do about it
    assert checks and not any(c.ok for c in checks)
    assert all("No module named 'reference.no_such_problem'" in c.message for c in checks), checks[0].message


def test_the_judge_puts_reference_on_the_programs_path() -> None:
    tools = toolchain()
    assert Path(tools.reference_root, "reference", "__init__.py").is_file()
    from judge.judging.build import trusted_program

    langs = load_languages()  # the table says that a .py program runs in place on the judge's Python
    built = trusted_program(PROBLEMS / "coins/output_validator/coins/validate.py", langs, tools, None, Path("."))  # type: ignore[arg-type]
    assert built.program is not None and built.program.env["PYTHONPATH"] == tools.reference_root
    kept = toolchain(inherited_pythonpath="/elsewhere")  # the judge's own PYTHONPATH stays, after reference's
    built = trusted_program(PROBLEMS / "coins/output_validator/coins/validate.py", langs, kept, None, Path("."))  # type: ignore[arg-type]
    assert built.program is not None and built.program.env["PYTHONPATH"] == f"{tools.reference_root}:/elsewhere"


@pytest.mark.slow
def test_verify_gives_the_same_verdicts_on_the_export(tmp_path: Path, sandbox_runner: Runner) -> None:
    from judge.authoring.verify import verify

    env = Environment(sandbox_runner, load_languages(), toolchain())
    export_package(PROBLEMS / "klondike", tmp_path / "klondike")
    verdicts = []
    for package in (PROBLEMS / "klondike", tmp_path / "klondike"):
        with tempfile.TemporaryDirectory() as tmp:
            rows, inputs = verify(prepare(load_problem(package), env, Path(tmp)), env, jobs=2)
        assert all(c.ok for c in inputs) and all(r.ok for r in rows), package
        verdicts.append({r.submission: (r.result.verdict, r.result.score) for r in rows if r.result is not None})
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) == 4
