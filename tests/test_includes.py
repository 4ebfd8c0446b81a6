"""include/<language>/ (Kattis format): the package's files are added to every submission of the language.

The `addfunc` fixture's submissions are functions only; the driver (main.c, main.cpp, __main__.py) comes
from include/<language>/ and the shared header from include/default/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from judge.package.includes import add_includes, include_files, is_main_name

FIXTURE = Path(__file__).parent / "fixtures" / "addfunc"
ROOT = Path(__file__).parent.parent


def verify(package: Path) -> dict:  # type: ignore[type-arg]
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "verify", str(package), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_functions_only_submissions_get_the_driver() -> None:
    report = verify(FIXTURE)
    got = {s["submission"]: s["result"]["verdict"] for s in report["submissions"]}
    assert got == {
        "accepted/add.c": "AC",
        "accepted/add.cpp": "AC",
        "accepted/add.py": "AC",
        "accepted/own_header": "AC",  # its own add.h (an #error) is overwritten by the package's
        "compile_error/own_main.c": "CE",  # a second main() beside the driver's
        "wrong_answer/sub.py": "WA",
    }
    assert report["ok"]


def test_without_the_include_folder_the_functions_do_not_build(tmp_path: Path) -> None:
    package = tmp_path / "addfunc"
    shutil.copytree(FIXTURE, package)
    shutil.rmtree(package / "include")
    report = verify(package)
    got = {s["submission"]: s["result"]["verdict"] for s in report["submissions"]}
    assert got["accepted/add.c"] == "CE"  # no main(), no add.h
    assert not report["ok"]


def test_language_files_override_default_ones(tmp_path: Path) -> None:
    (tmp_path / "include" / "default").mkdir(parents=True)
    (tmp_path / "include" / "c").mkdir()
    (tmp_path / "include" / "default" / "x.h").write_text("default")
    (tmp_path / "include" / "default" / "only_default.txt").write_text("d")
    (tmp_path / "include" / "c" / "x.h").write_text("c")
    files = dict(include_files(tmp_path, "c"))
    assert {str(k) for k in files} == {"x.h", "only_default.txt"}
    assert files[Path("x.h")].read_text() == "c"
    assert {str(k) for k, _ in include_files(tmp_path, "java")} == {"x.h", "only_default.txt"}


def test_an_included_main_file_becomes_the_main(tmp_path: Path) -> None:
    (tmp_path / "include" / "python3").mkdir(parents=True)
    (tmp_path / "include" / "python3" / "__main__.py").write_text("import sol\n")
    box = tmp_path / "box"
    box.mkdir()
    (box / "sol.py").write_text("x = 1\n")
    main, added = add_includes(tmp_path, "python3", (".py",), box, "sol.py")
    assert main == "__main__.py" and added == ["__main__.py"]
    assert (box / "__main__.py").read_text() == "import sol\n"
    main, _ = add_includes(tmp_path, "c", (".c",), box, "sol.c")
    assert main == "sol.c"  # nothing included for C: the submission's own main stays


def test_main_names() -> None:
    assert is_main_name("main.c", (".c",)) and is_main_name("Main.java", (".java",))
    assert is_main_name("__main__.py", (".py",))
    assert not is_main_name("main.h", (".c",)) and not is_main_name("domain.c", (".c",))
