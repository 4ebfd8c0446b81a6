"""The submit page's refusals speak of what the team did (issue 43): a file uploaded or pasted in the wrong
language is named as a file, not as "the zip" (the team made no zip), with the language its extension fits;
the list of known extensions names each once. The API's zip keeps its own words, and DOMjudge's form (files as
they are) gets the page's."""

from __future__ import annotations

import html as htmllib
from pathlib import Path

import pytest
from serve_fixtures import HOUR, SUM_AC, T0, Api, FakeClock, make_server, write_contest
from test_serve_domjudge import domjudge_submit
from test_serve_pages import csrf_of, login, stored, submit

from judge.languages.table import load_languages
from judge.serve.site.server import Server

LANGUAGES = ("python3", "pypy3", "java", "perl", "prolog")


@pytest.fixture
def server(tmp_path: Path) -> Server:
    langs = {k: v for k, v in load_languages().items() if k in LANGUAGES}
    s = make_server(write_contest(tmp_path / "c"), FakeClock(T0 + HOUR), languages=langs)
    yield s  # type: ignore[misc]
    s.close()


def message(r) -> str:  # type: ignore[no-untyped-def]
    return htmllib.unescape(r.text)


def test_a_python_file_uploaded_as_java(server: Server) -> None:
    r = submit(login(server, "team1"), SUM_AC, name="sol.py", language="java")
    assert r.status_code == 400
    said = message(r)
    assert "sol.py is not a Java (OpenJDK) source file (.java)" in said
    assert ".py is the extension of Python 3 and Python 3 (PyPy); choose one of those" in said
    assert "zip" not in said
    assert stored(server) == 0


def test_pasted_code_named_for_another_language(server: Server) -> None:
    c = login(server, "team1")
    token = csrf_of(c.get("/submit").text)
    data = {"csrf": token, "problem": "sum", "language": "python3", "code": "x = 1\n", "filename": "Main.java"}
    said = message(c.post("/submit", data=data))
    assert "Main.java is not a Python 3 source file (.py, .py3): .java is Java (OpenJDK)'s extension" in said
    assert "zip" not in said


def test_an_unknown_extension_lists_each_known_one_once(server: Server) -> None:
    r = submit(login(server, "team1"), SUM_AC, name="sol.txt")
    said = message(r)
    assert r.status_code == 400 and "no language has the extension '.txt'" in said
    known = said.split("no language has the extension '.txt' (", 1)[1].split(")", 1)[0].split(", ")
    assert len(known) == len(set(known)) and {".py", ".pl", ".java"} <= set(known), known


def test_the_apis_zip_and_domjudges_form_keep_their_own_words(server: Server) -> None:
    api = Api.of(server)
    r = api.submit("team1", language="java", files={"sol.py": SUM_AC})
    assert r.status_code == 400 and r.json()["message"] == "the zip holds no Java (OpenJDK) source file (.java)"
    r = domjudge_submit(api, "team1", {"problem": "sum", "language": "java"}, [("a.py", b"x"), ("b.py", b"y")])
    assert r.status_code == 400 and r.json()["message"] == "none of the files is a Java (OpenJDK) source file (.java)"
    assert stored(server) == 0
