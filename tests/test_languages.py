"""Languages as data: detection, placeholders, missing toolchains are reasons, not tracebacks."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Mapping
from pathlib import Path

import pytest

from judge.judging.build import SkipLanguage, build, detect_language
from judge.judging.environment import Environment
from judge.languages.table import (
    EntryPoint,
    LanguageError,
    Placeholders,
    entry_class,
    expand,
    language_for,
    load_languages,
    missing_tool,
    package_program_language,
    select_languages,
    setup_plan,
    toolchain,
    trusted_command,
    trusted_language,
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


# What the scan below looks for: every language id, extension and compile/run program of languages.toml.
def table_words() -> dict[str, str]:
    """Each literal that would name a language in the code -> what it is."""
    words: dict[str, str] = {}
    languages = load_languages()
    for lang in languages.values():
        for argv in (lang.compile, lang.run):
            if argv and "{" not in argv[0] and not argv[0].startswith("./"):
                words[argv[0]] = f"a program of {lang.id}"
        for ext in lang.extensions + lang.detect_extensions:
            words[ext] = f"an extension of {lang.id}"
    return words | {lang_id: "a language id" for lang_id in languages}


OPEN_MODES = set("rwxabt+")


def _is_open_mode(node: ast.Constant, parent: ast.AST | None) -> bool:
    """``open(p, "r")``, ``path.open("r")``, ``os.fdopen(fd, mode="r")``: a file mode, not the R language."""
    if not isinstance(parent, ast.Call) or not (isinstance(node.value, str) and set(node.value) <= OPEN_MODES):
        return False
    func = parent.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name in ("open", "fdopen")


def language_literals(source: str, words: Mapping[str, str]) -> list[tuple[str, str, int]]:
    """(scope, literal, line) of each string constant of ``source`` that is one of ``words``; the scope is the
    enclosing ``Class.function`` (or ``<module>``). File modes of open() calls are not languages."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, scope: str, parent: ast.AST | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            scope = node.name if scope == "<module>" else f"{scope}.{node.name}"
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in words:
            if not _is_open_mode(node, parent):
                found.append((scope, node.value, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, scope, node)

    visit(ast.parse(source), "<module>", None)
    return found


# Literals of the table allowed outside judge/languages/: (file under judge/, scope, literal) -> why.
EXEMPT = {
    # The sandbox's own launcher (judge/runner/helper.c) is C, built with the host's C compiler when the judge
    # starts: a tool of the judge, not a language submissions are written in.
    ("runner/helper.py", "_build", "gcc"): "the sandbox launcher's C compiler, not a contestant language",
    ("runner/helper.py", "_build", ".c"): "the sandbox launcher's own C sources, not a contestant language",
    # Python's import system: `import a` loads a.py. The import analysis (verdict hash, `judge export`) parses
    # the package's Python modules with Python's own parser, so which files it reads is Python's rule, not a
    # choice of language the table could make (a .py3 file is never imported).
    ("package/deps.py", "<module>", ".py"): "Python's import system: the file `import a` loads is a.py",
    ("runner/interactive.py", "Proxy._loop", "r"): "a pipe end that is read (select), not the R language",
    ("runner/interactive.py", "Proxy._wanted", "r"): "a pipe end that is read (select), not the R language",
    ("runner/warmserver.py", "standard_streams", "r"): "sys.stdin's mode (as the interpreter sets it), not R",
    ("course/demo.py", "<module>", "go"): "the Go position problem's id (problems/go), not the Go language",
    ("course/values.py", "<module>", "d"): "a day in a time span (1d), not the D language",
    ("serve/http/pages/team_pages.py", "<module>", ".js"): (
        "the content type of the server's own static scripts, not submissions"
    ),
}


def test_no_code_names_a_language() -> None:
    """What the judge does per language comes from languages.toml (issues 12, 25): no language id, extension
    or compile/run program of the table in judge/ outside judge/languages/, but for the exemptions above."""
    words = table_words()
    root = Path(__file__).parent.parent / "judge"
    found: dict[tuple[str, str, str], list[int]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("languages/"):
            continue
        for scope, literal, line in language_literals(path.read_text(encoding="utf-8"), words):
            found.setdefault((rel, scope, literal), []).append(line)
    named = [
        f"judge/{rel}:{lines[0]} ({scope}) names {literal!r}, {words[literal]}: say it in languages.toml instead"
        for (rel, scope, literal), lines in found.items()
        if (rel, scope, literal) not in EXEMPT
    ]
    assert not named, "\n".join(named)
    stale = sorted(set(EXEMPT) - set(found))
    assert not stale, f"exemptions for literals that are gone (remove them): {stale}"


def test_the_scan_sees_a_language_choice() -> None:
    """The scan finds a language named in a comparison, a collection or an argument; not a file mode."""
    words = table_words()
    code = """
def pick(lang, path):
    if lang.id == "java":
        return {".cxx", ".h"}
    with open(path, "r") as f, path.open("r") as g:
        return run(["g++", f.name], "r")
"""
    found = {(scope, literal) for scope, literal, _ in language_literals(code, words)}
    assert found == {("pick", "java"), ("pick", ".cxx"), ("pick", "g++"), ("pick", "r")}


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


def test_package_programs_run_in_place_or_from_their_build_folder(tmp_path: Path) -> None:
    langs = load_languages()
    tools = toolchain(inherited_pythonpath="/elsewhere")
    # Python and sh programs run in place, on the judge's own interpreter and /bin/sh (trusted_run).
    assert trusted_language(Path("v/validate.py"), langs) is langs["python3"]
    assert trusted_language(Path("v/check.sh"), langs) is langs["sh"]
    assert trusted_language(Path("v/validate.cxx"), langs) is None
    assert package_program_language(Path("v/validate.cxx"), langs) is langs["cpp"]
    argv, env = trusted_command(langs["python3"], tmp_path / "validate.py", tools)
    assert argv == (tools.python, str(tmp_path / "validate.py"))
    assert env == {"PYTHONPATH": tools.package_pythonpath}
    no_path = dataclasses.replace(tools, reference_root="", inherited_pythonpath="")
    assert trusted_command(langs["python3"], tmp_path / "v.py", no_path)[1] == {}  # the judge's own stays
    assert trusted_command(langs["sh"], tmp_path / "v.sh", tools) == (("/bin/sh", str(tmp_path / "v.sh")), {})
    # A built program run from elsewhere names its build folder's files by their full paths.
    box = tmp_path / "build"
    java = Placeholders("Check.java", ("Check.java",), tools, 2048, entry="Check", folder=box)
    assert java.expand(langs["java"].run)[-3:] == ("-cp", str(box), "Check")
    assert expand(langs["java"].run, main="Check.java", files=(), tools=tools, memory_mib=2048)[-3:] == (
        "-cp",
        ".",
        "Check",
    )
    assert Placeholders("v.cxx", ("v.cxx",), tools, 64, folder=box).expand(langs["cpp"].run) == (f"{box}/prog",)
    assert Placeholders("v.js", ("v.js",), tools, 64, folder=box).expand(langs["javascript"].run) == (
        "node",
        f"{box}/v.js",
    )


def test_entry_points_come_from_the_table() -> None:
    langs = load_languages()
    assert sorted(lang.id for lang in langs.values() if lang.takes_entry_point) == ["java", "python3"]
    java, python = langs["java"], langs["python3"]
    assert java.entry_point is EntryPoint.CLASS and python.entry_point is EntryPoint.FILE
    assert java.entry_point_names("zoo.b.Main", "Main.java") and java.entry_point_names("Main.java", "Main.java")
    assert not java.entry_point_names("zoo.b.Main", "Other.java")
    assert python.entry_point_names("solve.py", "solve.py") and not python.entry_point_names("solve", "solve.py")
    assert java.default_entry_point("x.java", "public final class Solve {") == "Solve"
    assert java.default_entry_point("Solve.java", "class Helper {}") == "Solve"
    assert python.default_entry_point("solve.py", "") == "solve.py"
    assert langs["cpp"].default_entry_point("a.cpp", "") is None
    assert (java.default_file_name, python.default_file_name, langs["c"].default_file_name) == (
        "Main.java",
        "main.py",
        "main.c",
    )


def test_new_fields_are_checked(tmp_path: Path) -> None:
    bad = tmp_path / "languages.toml"
    for text, message in [
        ('[x]\nextensions = [".x"]\nrun = ["x"]\nentry_point = "module"\n', "entry_point: one of"),
        ('[x]\nextensions = [".x"]\nrun = ["x"]\ntrusted_env = { A = "b" }\n', "trusted_env needs trusted_run"),
        ('[x]\nextensions = [".x"]\nrun = ["x"]\ntrusted_env = { A = 1 }\ntrusted_run = ["x"]\n', "table of strings"),
        (
            '[x]\nextensions = [".x"]\nrun = ["x"]\ntrusted_run = ["x"]\npriority = 1\n'
            '[y]\nextensions = [".x"]\nrun = ["y"]\ntrusted_run = ["y"]\npriority = 2\n',
            "share an extension",
        ),
    ]:
        bad.write_text(text)
        with pytest.raises(LanguageError, match=message):
            load_languages(bad)
