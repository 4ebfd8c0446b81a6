"""A package's validators may be written in any language of judge/languages/languages.toml (issue 25).

tests/fixtures/doubling has an input validator in C++ with the `.cxx` extension (which the loader used to
drop, silently) and an output validator in Java (which could not run: only Python, sh and native languages
could); other languages are tried by putting their validator in a copy of the package. A language whose
toolchain is missing here is skipped, with what to install.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.authoring.verify import check_inputs
from judge.judging.build import trusted_program
from judge.judging.identity import toolchain_languages
from judge.judging.submission import Environment, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, missing_tool, toolchain
from judge.package.problem import load_problem
from judge.runner import RunnerConfig, make_runner

DOUBLING = Path(__file__).parent / "fixtures" / "doubling"
LANGUAGES = load_languages()

# The input validator of tests/fixtures/doubling (one integer in [-1000, 1000] on a line), in other languages.
INPUT_VALIDATORS = {
    "javascript": (
        "validate.js",
        """\
const text = require("fs").readFileSync(0, "utf8");
const m = /^(-?[0-9]{1,4})\\n$/.exec(text);
if (!m) { console.error("expected one integer on a line of its own"); process.exit(43); }
const n = Number(m[1]);
if (n < -1000 || n > 1000) { console.error("out of range: " + n); process.exit(43); }
process.exit(42);
""",
    ),
    "rust": (
        "validate.rs",
        """\
use std::io::Read;
use std::process::exit;

fn main() {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() { exit(43); }
    let line = match text.strip_suffix('\\n') {
        Some(l) if !l.contains('\\n') => l,
        _ => { eprintln!("expected one integer on a line of its own"); exit(43) }
    };
    let n: i64 = match line.parse() {
        Ok(n) if line.len() <= 5 => n,
        _ => { eprintln!("expected one integer on a line of its own"); exit(43) }
    };
    if n < -1000 || n > 1000 { eprintln!("out of range: {}", n); exit(43); }
    exit(42);
}
""",
    ),
    "java": (
        "Validate.java",
        """\
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

public class Validate {
    public static void main(String[] args) throws IOException {
        InputStream in = System.in;
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        for (int k; (k = in.read(buf)) > 0; ) all.write(buf, 0, k);
        String text = all.toString("UTF-8");
        if (!text.matches("-?[0-9]{1,4}\\n")) { System.err.println("expected one integer on a line"); System.exit(43); }
        int n = Integer.parseInt(text.trim());
        if (n < -1000 || n > 1000) { System.err.println("out of range: " + n); System.exit(43); }
        System.exit(42);
    }
}
""",
    ),
}


def needs(lang_id: str) -> None:
    """Skip the test when this machine lacks the language's toolchain (naming what to install)."""
    missing = missing_tool(LANGUAGES[lang_id], toolchain())
    if missing is not None:
        pytest.skip(missing)


@pytest.fixture(scope="module")
def env() -> Iterator[Environment]:
    """The runner as `judge` makes it: trusted runs (compilers of validators) get the judge's environment."""
    runner = make_runner(RunnerConfig.from_environ(os.environ))
    if not runner.can_run:
        pytest.skip(f"no sandbox here: {'; '.join(runner.info.warnings)}")
    yield Environment(runner, LANGUAGES, toolchain())
    runner.close()


def with_bad_inputs(tmp_path: Path) -> Path:
    """A copy of the package with two inputs its input validator must refuse."""
    package = tmp_path / "doubling"
    shutil.copytree(DOUBLING, package)
    (package / "data/secret/03.in").write_text("5000\n")
    (package / "data/secret/03.ans").write_text("10000\n")
    (package / "data/secret/04.in").write_text("12 13\n")
    (package / "data/secret/04.ans").write_text("0\n")
    return package


def test_validators_in_any_known_language_are_found() -> None:
    problem = load_problem(DOUBLING)
    assert problem.input_validators == (DOUBLING / "input_validators/validate.cxx",)
    assert problem.output_validator == DOUBLING / "output_validators/check/Check.java"
    # a built output validator's toolchain is part of what a stored verdict depends on
    assert toolchain_languages("python3", problem, LANGUAGES) == ("python3", "java")
    assert toolchain_languages("python3", load_problem(DOUBLING.parent / "divisor"), LANGUAGES) == ("python3",)


def test_a_cxx_input_validator_catches_bad_inputs(env: Environment, tmp_path: Path) -> None:
    needs("cpp")
    problem = load_problem(with_bad_inputs(tmp_path))
    checks = {c.test: c for c in check_inputs(problem, env, tmp_path)}
    assert set(checks) == {"sample/01", "secret/01", "secret/02", "secret/03", "secret/04"}
    assert [t for t, c in sorted(checks.items()) if not c.ok] == ["secret/03", "secret/04"]
    assert "out of range: 5000" in checks["secret/03"].message
    assert "one integer" in checks["secret/04"].message


@pytest.mark.parametrize("lang_id", sorted(INPUT_VALIDATORS))
def test_input_validators_in_other_languages(lang_id: str, env: Environment, tmp_path: Path) -> None:
    needs(lang_id)
    package = with_bad_inputs(tmp_path)
    (package / "input_validators/validate.cxx").unlink()
    name, text = INPUT_VALIDATORS[lang_id]
    (package / "input_validators" / name).write_text(text)
    problem = load_problem(package)
    assert [p.name for p in problem.input_validators] == [name]
    checks = check_inputs(problem, env, tmp_path / "work")
    assert checks and all(c.validator == name for c in checks)
    assert sorted(c.test for c in checks if not c.ok) == ["secret/03", "secret/04"], [c.message for c in checks]


def test_a_java_output_validator_judges(env: Environment, tmp_path: Path) -> None:
    needs("java")
    prepared = prepare(load_problem(DOUBLING), env, tmp_path)
    assert prepared.error is None
    accepted = judge_submission(prepared, DOUBLING / "submissions/accepted/double.py", env)
    assert accepted.verdict is Verdict.AC and accepted.score == accepted.max_score
    wrong = judge_submission(prepared, DOUBLING / "submissions/wrong_answer/triple.py", env)
    assert wrong.verdict is Verdict.WA
    assert wrong.tests[0].message == "expected 6, got 9"  # the Java validator's judgemessage.txt


def test_a_validator_in_an_unknown_language_is_a_judge_error(tmp_path: Path) -> None:
    program = tmp_path / "output_validators" / "validate.xyz"
    program.parent.mkdir()
    program.write_text("?")
    built = trusted_program(program, LANGUAGES, toolchain(), None, tmp_path)  # type: ignore[arg-type]
    assert built.program is None and built.verdict is Verdict.JE
    assert "cannot run a validator written in this language" in built.message
