"""Languages as data: detection, placeholders, missing toolchains are reasons, not tracebacks."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from judge.judging.build import SkipLanguage, build, detect_language
from judge.judging.environment import Environment
from judge.languages.table import (
    LanguageError,
    entry_class,
    expand,
    language_for,
    load_languages,
    missing_tool,
    select_languages,
    setup_plan,
    toolchain,
)
from judge.runner import make_runner


def test_every_language_is_declared() -> None:
    langs = load_languages()
    assert {"python3", "c", "cpp", "pascal", "java"} <= set(langs)  # the shipped problems' languages
    wanted = {"rust", "go", "javascript", "kotlin", "csharp", "haskell", "pypy3", "ruby", "php", "ocaml", "scala"}
    assert wanted | {"lisp", "r", "fortran", "ada", "lua", "perl", "prolog", "bash", "sh", "awk"} <= set(langs)
    assert language_for(Path("a.CPP"), langs).id == "cpp"  # type: ignore[union-attr]
    assert language_for(Path("a.pas"), langs).id == "pascal"  # type: ignore[union-attr]
    assert language_for(Path("a.txt"), langs) is None
    for lang in langs.values():
        assert lang.check, f"{lang.id}: `judge doctor` needs a version command"
        assert lang.packages or lang.install_hint, f"{lang.id}: say what to install"


def _detect(tmp_path: Path, name: str, text: str) -> str | None:
    path = tmp_path / name
    path.write_text(text)
    lang = language_for(path, load_languages())
    return None if lang is None else lang.id


def test_detection_by_extension_content_and_priority(tmp_path: Path) -> None:
    # DOMjudge's and problemtools' extensions.
    for name, lang_id in [
        ("a.cc", "cpp"),
        ("a.c++", "cpp"),
        ("a.R", "r"),
        ("a.f95", "fortran"),
        ("a.adb", "ada"),
        ("a.p", "pascal"),
        ("a.plg", "prolog"),
        ("a.mjs", "javascript"),
        ("a.kt", "kotlin"),
        ("A.scala", "scala"),
        ("a.cs", "csharp"),
        ("a.hs", "haskell"),
        ("a.lisp", "lisp"),
        ("a.ml", "ocaml"),
        ("a.go", "go"),
        ("a.rs", "rust"),
        ("a.rb", "ruby"),
        ("a.php", "php"),
        ("a.lua", "lua"),
        ("a.bash", "bash"),
        ("a.sh", "sh"),
        ("a.awk", "awk"),
        ("a.py2", "python2"),
        ("a.swift", "swift"),
    ]:
        assert _detect(tmp_path, name, "x\n") == lang_id, name
    # .pl: Perl (DOMjudge) unless it has Prolog clauses (problemtools).
    assert _detect(tmp_path, "p.pl", 'print "Hello world!\\n";\n') == "perl"
    assert _detect(tmp_path, "q.pl", "main :- write(hello), nl.\n") == "prolog"
    # .py: Python 3, unless the first line is a python2 (or pypy, PyPy 2) or pypy3 #! line.
    assert _detect(tmp_path, "a.py", "print(1)\n") == "python3"
    assert _detect(tmp_path, "b.py", "#!/usr/bin/env python2\nprint 1\n") == "python2"
    assert _detect(tmp_path, "c.py", "#!/usr/bin/pypy\nprint 1\n") == "python2"
    assert _detect(tmp_path, "d.py", "#!/usr/bin/env pypy3\nprint(1)\n") == "pypy3"
    assert _detect(tmp_path, "e.py", "print(1)\n#!/usr/bin/env python2\n") == "python3"
    # A folder: the language most of its files count for; a tie goes to the higher priority.
    folder = tmp_path / "mixed"
    folder.mkdir()
    for name in ("main.cc", "util.c", "notes.txt"):
        (folder / name).write_text("int x;\n")
    assert language_for(folder, load_languages()).id == "cpp"  # type: ignore[union-attr]
    (folder / "more.c").write_text("int y;\n")
    assert language_for(folder, load_languages()).id == "c"  # type: ignore[union-attr]


def test_bad_language_files_are_one_line_errors(tmp_path: Path) -> None:
    bad = tmp_path / "languages.toml"
    for text, message in [
        ('[x]\nextensions = [".x"]\nrun = ["x"]\ncolour = "red"\n', "unknown field"),
        ('[x]\nextensions = ["x"]\nrun = ["x"]\n', "starting with '.'"),
        ('[x]\nextensions = [".x"]\nrun = ["x"]\nmain_regex = "("\n', "bad regex"),
        ('[x]\nextensions = [".x"]\nrun = ["x"]\n[y]\nextensions = [".y"]\nrun = ["y"]\n', "same priority"),
        ('[x]\nrun = ["x"]\n', "extensions"),
    ]:
        bad.write_text(text)
        with pytest.raises(LanguageError, match=message):
            load_languages(bad)


def test_no_code_names_a_language() -> None:
    """What the judge does per language comes from languages.toml (issue 12): no language id in the code
    that builds and detects submissions (package validators, which are not submissions, aside)."""
    ids = set(load_languages())
    root = Path(__file__).parent.parent / "judge"
    problemtypes = [f"judging/problemtypes/{p.name}" for p in sorted((root / "judging/problemtypes").glob("*.py"))]
    for module in (
        "languages/table.py",
        "judging/build.py",
        "languages/status.py",
        "judging/submission.py",
        *problemtypes,
    ):
        tree = ast.parse((root / module).read_text())
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and fn.name == "trusted_program":
                fn.body = []
        named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and n.value in ids}
        assert not named, f"{module} names languages {named}"


def test_placeholders() -> None:
    langs = load_languages()
    tools = toolchain()
    argv = expand(langs["c"].compile, main="a.c", files=("a.c", "b.c"), tools=tools, memory_mib=256)
    assert argv[-4:] == ("prog", "a.c", "b.c", "-lm")
    run = expand(langs["java"].run, main="Main.java", files=(), tools=tools, memory_mib=256)
    assert "-Xmx192m" in run and run[-1] == "Main"
    assert expand(langs["python3"].run, main="s.py", files=(), tools=tools, memory_mib=1)[0] == tools.python


def test_missing_toolchain_names_the_package(tmp_path: Path) -> None:
    langs = load_languages()
    fake = dataclasses.replace(langs["pascal"], compile=("no-such-fpc-compiler", "{main}"))
    message = missing_tool(fake, toolchain())
    assert message is not None and "apt-get install fp-compiler" in message
    src = tmp_path / "a.pas"
    src.write_text("begin end.")
    with pytest.raises(SkipLanguage, match="fp-compiler"):
        build(src, fake, Environment(make_runner("auto"), langs, toolchain()), problem=None, workdir=tmp_path)


def test_unknown_extension_is_a_reason(tmp_path: Path) -> None:
    src = tmp_path / "a.xyz"
    src.write_text("puts 1")
    with pytest.raises(SkipLanguage, match="unknown language"):
        detect_language(src, load_languages())


def test_the_class_to_run(tmp_path: Path) -> None:
    langs = load_languages()
    java, scala = langs["java"], langs["scala"]
    assert entry_class(java, "a.java", "class Main {\n  public static void main(String[] a) {}\n}\n") == "Main"
    text = "/* the class of the year */\npackage zoo.b;\nimport x.A;\npublic class B {\n"
    text += " static public void main(String[] a) {}\n}"
    assert entry_class(java, "B.java", text) == "zoo.b.B"
    text = "class Helper { int f() { return 1; } }\n"
    text += "final class Solution {\n  public static void main(final String... a) {}\n}"
    assert entry_class(java, "x.java", text) == "Solution"
    assert entry_class(java, "main.java", "public class main {\n  int main() { return 0; }\n}") is None
    text = "import java.util.*;\n\npublic class Solve {\n    static class Pair { int a; }\n"
    text += "    public static void main(String[] args) {}\n}\n"
    assert entry_class(java, "s.java", text) == "Solve"  # not the nested class before main
    text = "class Main {\n    static class Node { }\n    public static void main(String[] args) {}\n}\n"
    assert entry_class(java, "m.java", text) == "Main"
    text = "object Util { val x = 1 }\nobject Hello {\n  def main(a: Array[String]) = ()\n}"
    assert entry_class(scala, "h.scala", text) == "Hello"
    text = "object Hello {\n  object Inner { val y = 2 }\n  def main(a: Array[String]) = ()\n}"
    assert entry_class(scala, "h.scala", text) == "Hello"
    assert entry_class(scala, "h.scala", "package p.q\nobject App1 extends App {\n  println(1)\n}") == "p.q.App1"
    assert entry_class(langs["c"], "x.c", "int main(){}") == "x"


def test_setup_installs_the_selected_languages_packages() -> None:
    langs = load_languages()
    defaults = {lang.id for lang in select_languages("", langs)}
    assert defaults == {"python3", "c", "cpp", "pascal", "java"}
    assert {lang.id for lang in select_languages("rust, go", langs)} == defaults | {"rust", "go"}
    assert len(select_languages("all", langs)) == len(langs) and select_languages("none", langs) == []
    with pytest.raises(LanguageError, match="unknown language.*cobra"):
        select_languages("rust,cobra", langs)
    absent = {
        "x": dataclasses.replace(langs["rust"], compile=("no-such-rustc", "{main}"), packages=("rustc",)),
        "y": dataclasses.replace(langs["swift"], compile=("no-such-swiftc",)),
    }
    packages, notes = setup_plan("all", absent)
    assert packages == ["rustc"] and len(notes) == 1 and "not packaged" in notes[0]
