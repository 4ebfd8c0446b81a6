"""The result cache never serves a stale verdict: what can change a verdict re-judges, what cannot does not.

A stored result is reused only under the same submission, package (its verdict-relevant files and the
modules outside it that its programs import), judge, language definition and toolchain version.
"""

from __future__ import annotations

import dataclasses
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from judge.commands.cli import main
from judge.grade.discovery import discover, load_problems
from judge.grade.options import GradeOptions
from judge.grade.schedule import Grading, Summary
from judge.grade.schedule import grade as grade_contest
from judge.grade.storage import Store
from judge.judging.results import SubmissionResult
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.languages.table import Language, load_languages, toolchain
from judge.package.deps import external_modules, program_sources, verdict_hash
from judge.runner import make_runner

FIXTURES = Path(__file__).parent / "fixtures"

VALIDATOR = """import sys
from pathlib import Path
from helperlib import check

team = sys.stdin.read().split()
answer = Path(sys.argv[2]).read_text().split()
sys.exit(42 if check.same(team, answer) else 43)
"""
HELPER = "def same(a, b):\n    return a == b\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A problem whose validator imports ``helperlib.check``, a module outside the package (as the
    shipped packages import ``reference``), importable by the judge and by the validator it runs."""
    lib = tmp_path / "lib" / "helperlib"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "check.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(lib.parent))
    monkeypatch.setenv("PYTHONPATH", str(lib.parent))
    problems = tmp_path / "problems"
    shutil.copytree(FIXTURES / "sum", problems / "sum", ignore=shutil.ignore_patterns("submissions"))
    validator = problems / "sum" / "output_validators" / "check"
    validator.mkdir(parents=True)
    (validator / "validate.py").write_text(VALIDATOR)
    (problems / "sum" / "README.md").write_text("# sum\n")
    contest = tmp_path / "contest"
    (contest / "ann").mkdir(parents=True)
    shutil.copy(FIXTURES / "sum" / "submissions" / "accepted" / "sum.py", contest / "ann" / "sum.py")
    return tmp_path


def with_check(languages: Mapping[str, Language], lang_id: str, check: tuple[str, ...]) -> dict[str, Language]:
    out = dict(languages)
    out[lang_id] = dataclasses.replace(languages[lang_id], check=check)
    return out


class Grader:
    """Grades the project's contest with a fake judge (counting what it is asked to judge)."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.judged: list[str] = []
        self.runner = make_runner("auto")

    def fake_judge(self, job, packages, env) -> SubmissionResult:  # type: ignore[no-untyped-def]
        self.judged.append(job.files[0].name)
        return SubmissionResult("sum", job.label, "python3", Verdict.AC, 100.0, 100.0, 0.0, 0)

    def grade(self, languages: Mapping[str, Language] | None = None) -> Summary:
        env = Environment(self.runner, languages or load_languages(), toolchain())
        problems, issues = load_problems(self.project / "problems")
        assert not issues
        with Store(self.project / "db.sqlite") as store:
            contest = discover(self.project / "contest", problems, env.languages)
            return grade_contest(Grading(contest, problems, env), store, GradeOptions(), judge_fn=self.fake_judge)


def test_the_dependency_scan_finds_the_module_outside_the_package(project: Path) -> None:
    root = project / "problems" / "sum"
    found = {m.name: m for m in external_modules(program_sources(root), root)}
    assert found["helperlib.check"].kind == "local"
    assert found["helperlib.check"].path == project / "lib" / "helperlib" / "check.py"
    assert "helperlib" in found  # the parent package's __init__ runs too
    assert not any(name.split(".")[0] in sys.stdlib_module_names for name in found)


def test_editing_an_imported_module_outside_the_package_re_judges(project: Path) -> None:
    g = Grader(project)
    assert g.grade().judged == 1
    assert g.grade().reused == 1
    (project / "lib" / "helperlib" / "check.py").write_text(HELPER + "# a change\n")
    again = g.grade()
    assert again.judged == 1 and g.judged == ["sum.py", "sum.py"]


def test_editing_what_cannot_change_a_verdict_re_judges_nothing(project: Path) -> None:
    g = Grader(project)
    root = project / "problems" / "sum"
    before = verdict_hash(root)
    assert g.grade().judged == 1
    (root / "README.md").write_text("# sum, reworded\n")
    (root / "problem_statement" / "problem.en.md").write_text("A reworded statement.\n")
    (root / "submissions" / "accepted").mkdir(parents=True)
    (root / "submissions" / "accepted" / "new.py").write_text("print(0)\n")
    assert verdict_hash(root) == before
    assert g.grade().reused == 1 and g.judged == ["sum.py"]
    (root / "data" / "secret" / "01.ans").write_text("different\n")  # but the data does
    assert g.grade().judged == 1


def test_another_toolchain_version_re_judges_its_language_only(project: Path) -> None:
    put = project / "contest" / "bob"
    put.mkdir()
    shutil.copy(FIXTURES / "sum" / "submissions" / "accepted" / "sum.c", put / "sum.c")
    g = Grader(project)
    langs = load_languages()
    v1 = with_check(langs, "c", ("/bin/echo", "cc (simulated) 1.0"))
    assert g.grade(v1).judged == 2
    # the same version printed by another command: nothing changed that can change a verdict
    same = with_check(langs, "c", ("/bin/sh", "-c", "echo 'cc (simulated) 1.0'"))
    assert g.grade(same).reused == 2
    v2 = with_check(langs, "c", ("/bin/echo", "cc (simulated) 2.0"))
    again = g.grade(v2)
    assert again.judged == 1 and again.reused == 1 and sorted(g.judged) == ["sum.c", "sum.c", "sum.py"]


def test_a_changed_language_definition_re_judges(project: Path) -> None:
    g = Grader(project)
    langs = load_languages()
    assert g.grade(langs).judged == 1
    changed = dict(langs)
    changed["python3"] = dataclasses.replace(langs["python3"], env={**langs["python3"].env, "X": "1"})
    assert g.grade(changed).judged == 1
    renamed = dict(langs)
    renamed["python3"] = dataclasses.replace(langs["python3"], name="Python (renamed)", packages=("python3-x",))
    assert g.grade(renamed).reused == 1


def test_a_database_of_an_older_judge_is_kept_aside(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import sqlite3

    out = project / "board"
    out.mkdir()
    db = out / "grade.sqlite"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);INSERT INTO meta VALUES ('schema', '1');"
    )
    con.close()
    code = main(["grade", str(project / "contest"), "--problems", str(project / "problems"), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "kept as" in capsys.readouterr().err
    assert len(list(out.glob("grade.sqlite.old-*"))) == 1
    with Store(db) as store:
        assert store.counts()[0] == 1


@pytest.mark.parametrize("problem", ["coins", "go", "klondike", "memory", "rummy"])
def test_each_shipped_package_is_keyed_on_the_reference_module_its_validator_imports(problem: str) -> None:
    root = Path(__file__).parent.parent / "problems" / problem
    verdict_sources = [p for p in program_sources(root) if "output_validator" in p.relative_to(root).parts[0]]
    names = {m.name for m in external_modules(verdict_sources, root)}
    assert f"reference.{problem}" in names
