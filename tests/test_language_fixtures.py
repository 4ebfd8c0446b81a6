"""Every language of judge/languages/languages.toml compiles, runs and times out in the sandbox.

tests/fixtures/hello has, per language, `submissions/accepted/hello*.<ext>` (reads a name, greets it),
`compile_error/ce*.<ext>` and `time_limit_exceeded/tle*.<ext>`; each file's language is detected as the
judge detects it, so the fixtures also test detection (.pl Perl vs Prolog, pypy3 / python2 shebangs). A
language whose toolchain is not installed is skipped, visibly, with what to install
(`bash .ci/setup --languages all` installs every one that Debian packages).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge.judging.build import detect_language
from judge.judging.submission import Environment, Prepared, judge_submission, prepare
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages, missing_tool, toolchain
from judge.package.problem import load_problem
from judge.runner import make_runner

HELLO = Path(__file__).parent / "fixtures" / "hello"
LANGUAGES = load_languages()
FOLDERS = {"accepted": Verdict.AC, "compile_error": Verdict.CE, "time_limit_exceeded": Verdict.TLE}


def fixtures_of(lang_id: str) -> dict[str, list[Path]]:
    """The fixture files detected as ``lang_id``, per folder."""
    out: dict[str, list[Path]] = {}
    for folder in FOLDERS:
        files = sorted((HELLO / "submissions" / folder).iterdir())
        out[folder] = [f for f in files if detect_language(f, LANGUAGES).id == lang_id]
    return out


def test_every_fixture_is_some_language() -> None:
    for folder in FOLDERS:
        for f in (HELLO / "submissions" / folder).iterdir():
            detect_language(f, LANGUAGES)  # raises SkipLanguage for an unknown extension


@pytest.mark.parametrize("lang_id", sorted(LANGUAGES))
def test_every_language_has_its_three_fixtures(lang_id: str) -> None:
    found = fixtures_of(lang_id)
    assert all(found[folder] for folder in FOLDERS), f"{lang_id}: missing fixtures: {found}"


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(make_runner(os.environ.get("JUDGE_SANDBOX", "auto")), LANGUAGES, toolchain())


@pytest.fixture(scope="module")
def hello(env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    return prepare(load_problem(HELLO), env, tmp_path_factory.mktemp("hello"))


@pytest.mark.parametrize("lang_id", sorted(LANGUAGES))
def test_hello_compile_error_and_time_limit(lang_id: str, env: Environment, hello: Prepared) -> None:
    lang = LANGUAGES[lang_id]
    missing = missing_tool(lang, env.tools)
    if missing is not None:
        pytest.skip(missing)
    for folder, expected in FOLDERS.items():
        for source in fixtures_of(lang_id)[folder]:
            result = judge_submission(hello, source, env)
            detail = result.compile_message[-2000:] or [(t.name, t.verdict, t.message[-500:]) for t in result.tests]
            assert result.verdict is expected, f"{folder}/{source.name}: {result.verdict}: {detail}"
            assert result.language == lang_id
            if expected is Verdict.AC:
                assert result.score == result.max_score and len(result.tests) == 3
            if expected is Verdict.TLE:
                assert result.tests[-1].verdict is Verdict.TLE
            if expected is Verdict.CE:
                assert result.compile_message.strip(), "a compile error says why"
