"""Problem statements for the contestants (issue 43): the spec's problem object lists a PDF `statement` (the
package's own, or one typeset with problemtools' problem2pdf) and the package's `attachments/`; the problem page
links to the PDF, the attachments and a `samples.zip`. All of it as secret as the problems (from the start for
teams and the public). Typesetting runs in a thread of its own, never in a request, once per statement (kept
under the contest's data directory, owner-only); a statement that does not typeset is served as its Markdown.
The real problem2pdf: tests/test_serve_statements_typeset.py."""

from __future__ import annotations

import io
import shutil
import stat
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import CHEAP_HASHER, FIXTURES, HOUR, T0, Api, FakeClock, feed, make_server, write_contest
from spec_shapes import PROBLEM, PROBLEM_SCHEMA, errors
from test_serve_pages import login

from judge.languages.table import load_languages
from judge.runner.typeset import problem2pdf
from judge.serve.model.contest import load_contest
from judge.serve.services.problems.statements import Typeset
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
TESTING_TOOL = b"#!/usr/bin/env python3\nprint('a testing tool')\n"
# a stand-in for problem2pdf with its command line: writes a "PDF" naming its arguments to the -o file
TOOL_SCRIPT = """#!/bin/sh
all="$*"
while [ $# -gt 0 ]; do case "$1" in -o) out="$2"; shift 2;; *) shift;; esac; done
printf '%%PDF-1.4\\n%% args: %s\\n' "$all" > "$out"
"""


def tiny_pdf(text: str) -> bytes:
    """A valid one-page PDF that says ``text``."""
    content = f"BT /F1 24 Tf 20 40 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def contest_with_files(root: Path, start: str = "2030-01-01T10:00:00Z") -> Path:
    """The fixture contest, its sum package copied in with a PDF statement of its own and attachments (a
    hidden file and a folder among them: not offered); divisor as it is (Markdown only)."""
    write_contest(root, start=start)
    pkg = root / "problems" / "sum"
    shutil.copytree(FIXTURES / "sum", pkg)
    (pkg / "problem_statement" / "problem.en.pdf").write_bytes(tiny_pdf("Sum"))
    att = pkg / "attachments"
    (att / "sub").mkdir(parents=True)
    (att / "testing_tool.py").write_bytes(TESTING_TOOL)
    (att / "my stub.c").write_text("int main(void) { return 0; }\n")
    (att / ".hidden").write_text("not for the teams")
    (att / "sub" / "deep.txt").write_text("not offered")
    return root


class FakeTypeset:
    """A Typeset that writes a PDF (or fails), counting its calls: what the service does around the tool."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[Path] = []

    def __call__(self, package: Path, dest: Path) -> str | None:
        self.calls.append(package)
        if self.fail:
            return "problem2pdf exited with 1: ! LaTeX Error: File `fullpage.sty' not found."
        dest.write_bytes(tiny_pdf(package.name))
        return None


def serve(root: Path, clock: FakeClock, typeset: Typeset | None, log: list[str] | None = None) -> Server:
    contest = load_contest(root, FIXTURES)
    langs = {k: v for k, v in load_languages().items() if k == "python3"}
    options = ServeOptions(
        hasher=CHEAP_HASHER, clock=clock, typeset=typeset, log=(log.append if log is not None else lambda line: None)
    )
    return open_server(contest, langs, lambda job: None, options)  # type: ignore[arg-type, return-value]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = make_server(contest_with_files(tmp_path / "c"), FakeClock(T0 + HOUR))
    yield s
    s.close()


def test_the_packages_pdf_and_attachments_in_the_api(server: Server) -> None:
    api = Api.of(server)
    sum_, divisor = api.get(f"{C}/problems", "team1").json()
    assert sum_["statement"] == [
        {"href": f"{C[5:]}/problems/sum/statement", "filename": "sum.pdf", "mime": "application/pdf"}
    ]
    href = f"{C[5:]}/problems/sum/attachments"
    assert sum_["attachments"] == [
        {"href": f"{href}/my%20stub.c", "filename": "my stub.c", "mime": "text/plain"},
        {"href": f"{href}/testing_tool.py", "filename": "testing_tool.py", "mime": "text/x-python"},
    ]
    assert divisor["statement"][0]["mime"] == "text/markdown" and "attachments" not in divisor  # no PDF, none
    assert errors(PROBLEM, sum_) == [] and errors(PROBLEM, divisor) == []
    assert errors(PROBLEM_SCHEMA, sum_) != []  # the spec's schema has no attachments yet: strict leaves them out
    strict = api.get(f"{C}/problems?strict=1", "team1").json()
    assert [errors(PROBLEM_SCHEMA, p) for p in strict] == [[], []]
    assert "attachments" not in api.get(f"{C}/problems/sum?strict=true", "team1").json()

    r = api.get(f"{C}/problems/sum/statement", "team1")
    assert (r.status_code, r.headers["content-type"]) == (200, "application/pdf")
    assert r.content == tiny_pdf("Sum")
    r = api.get(f"{C}/problems/divisor/statement", "team1")
    assert r.headers["content-type"].startswith("text/markdown") and b"divisor" in r.content.lower()
    r = api.get(f"{C}/problems/sum/attachments/testing_tool.py", "team1")
    assert r.status_code == 200 and r.content == TESTING_TOOL
    assert (
        r.headers["content-disposition"].startswith("attachment;") and r.headers["x-content-type-options"] == "nosniff"
    )
    assert api.get(f"{C}/problems/sum/attachments/my%20stub.c", "team1").status_code == 200
    for missing in (".hidden", "sub", "deep.txt", "nope.py", "..%2Fproblem.yaml"):
        assert api.get(f"{C}/problems/sum/attachments/{missing}", "team1").status_code == 404, missing
    assert api.get(f"{C}/problems/divisor/attachments/testing_tool.py", "team1").status_code == 404
    # the event feed carries the same objects
    fed = {e["id"]: e["data"] for e in feed(api, "team1") if e["type"] == "problems"}
    assert fed["sum"] == sum_ and fed["divisor"] == divisor


@pytest.mark.parametrize("user", [None, "team1"])
def test_statements_attachments_and_samples_are_secret_until_the_start(tmp_path: Path, user: str | None) -> None:
    clock = FakeClock(T0 - 600)
    s = make_server(contest_with_files(tmp_path / "c"), clock)
    try:
        api = Api.of(s)
        browser = login(s, user) if user is not None else None
        paths = [f"{C}/problems/sum/statement", f"{C}/problems/sum/attachments/testing_tool.py"]
        pages = [
            "/problems/sum/statement.pdf",
            "/problems/sum/samples.zip",
            "/problems/sum/attachments/testing_tool.py",
        ]
        for path in paths:
            assert api.get(path, user).status_code == 404, path
            assert api.get(path, "judge").status_code == 200, path
        for page in pages:
            assert (browser or login(s, "team2")).get(page).status_code == 404, page
            assert login(s, "admin").get(page).status_code == 200, page
        clock.advance(601)  # the contest has started
        for path in paths:
            assert api.get(path, user).status_code == 200, path
        for page in pages:
            assert (browser or login(s, "team2")).get(page).status_code == 200, page
    finally:
        s.close()


def test_the_problem_page_offers_the_pdf_the_attachments_and_samples_zip(server: Server) -> None:
    team = login(server, "team1")
    page = team.get("/problems/sum/").text
    assert 'href="/problems/sum/statement.pdf"' in page
    assert 'href="/problems/sum/samples.zip"' in page
    assert (
        'href="/problems/sum/attachments/testing_tool.py"' in page
        and 'href="/problems/sum/attachments/my%20stub.c"' in page
    )
    assert ".hidden" not in page and "deep.txt" not in page
    r = team.get("/problems/sum/samples.zip")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert r.headers["content-disposition"] == "attachment; filename*=UTF-8''samples-A.zip"
    sample = FIXTURES / "sum" / "data" / "sample"
    with zipfile.ZipFile(io.BytesIO(r.content)) as zf:
        assert zf.namelist() == ["1.in", "1.ans"]
        assert (zf.read("1.in"), zf.read("1.ans")) == (
            (sample / "00.in").read_bytes(),
            (sample / "00.ans").read_bytes(),
        )
    r = team.get("/problems/sum/statement.pdf")
    assert (r.status_code, r.headers["content-type"], r.content) == (200, "application/pdf", tiny_pdf("Sum"))
    r = team.get("/problems/sum/attachments/testing_tool.py")
    assert r.content == TESTING_TOOL and r.headers["content-disposition"].startswith("attachment;")
    # divisor: no PDF, no attachments; its sample in a zip too
    page = team.get("/problems/divisor/").text
    assert "statement.pdf" not in page and "Attachments" not in page and "samples.zip" in page
    assert team.get("/problems/divisor/statement.pdf").status_code == 404


def test_a_missing_pdf_is_typeset_in_the_background_once_and_kept(tmp_path: Path) -> None:
    root = contest_with_files(tmp_path / "c")
    typeset, log = FakeTypeset(), []
    s = serve(root, FakeClock(T0 + HOUR), typeset, log)
    try:
        api = Api.of(s)
        # nothing is typeset in a request: divisor's statement is its Markdown until the thread has made the PDF
        assert api.get(f"{C}/problems/divisor", "team1").json()["statement"][0]["mime"] == "text/markdown"
        assert api.get(f"{C}/problems/divisor/statement", "team1").headers["content-type"].startswith("text/markdown")
        assert typeset.calls == []
        assert s.statements.run_pending() == 1  # what the thread does: divisor only (sum has its own PDF)
        assert typeset.calls == [FIXTURES / "divisor"]
        obj = api.get(f"{C}/problems/divisor", "team1").json()
        assert obj["statement"] == [
            {"href": f"{C[5:]}/problems/divisor/statement", "filename": "divisor.pdf", "mime": "application/pdf"}
        ]
        assert api.get(f"{C}/problems/divisor/statement", "team1").content == tiny_pdf("divisor")
        assert [e["data"] for e in feed(api, "team1") if e["id"] == "divisor"][-1] == obj  # published again
        assert "statements: divisor: PDF typeset with problem2pdf" in log
        cache = root / "statements"
        (made,) = cache.iterdir()
        assert made.name.startswith("divisor-") and made.suffix == ".pdf"
        assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and stat.S_IMODE(made.stat().st_mode) == 0o600
        assert s.statements.run_pending() == 0  # asked again: nothing more to do
        assert api.get(f"{C}/problems", "team1").status_code == 200 and s.statements.run_pending() == 0
    finally:
        s.close()
    again = FakeTypeset()
    s = serve(root, FakeClock(T0 + HOUR), again)  # a restart: the kept PDF, nothing typeset
    try:
        assert Api.of(s).get(f"{C}/problems/divisor", "team1").json()["statement"][0]["mime"] == "application/pdf"
        assert s.statements.run_pending() == 0 and again.calls == []
    finally:
        s.close()


def test_a_statement_that_does_not_typeset_is_said_once_and_served_as_markdown(tmp_path: Path) -> None:
    root = contest_with_files(tmp_path / "c")
    typeset, log = FakeTypeset(fail=True), []
    s = serve(root, FakeClock(T0 + HOUR), typeset, log)
    try:
        assert s.statements.run_pending() == 1
        (said,) = [line for line in log if line.startswith("statements:")]
        assert said.startswith("statements: divisor: no PDF: problem2pdf exited with 1: ! LaTeX Error")
        api = Api.of(s)
        assert api.get(f"{C}/problems/divisor", "team1").json()["statement"][0]["mime"] == "text/markdown"
        assert s.statements.run_pending() == 0 and len(typeset.calls) == 1  # not tried again
        assert not list((root / "statements").glob("*.pdf"))
    finally:
        s.close()


def test_without_problem2pdf_nothing_is_typeset(server: Server, tmp_path: Path) -> None:
    assert not server.statements.typesets and server.statements.run_pending() == 0
    assert not (tmp_path / "c" / "statements").exists()


# ------------------------------------------------------------------------------------------ the runner's part


def test_problem2pdf_runs_the_tool_and_keeps_only_a_pdf(tmp_path: Path) -> None:
    tool = tmp_path / "problem2pdf"
    tool.write_text(TOOL_SCRIPT)
    tool.chmod(0o755)
    dest = tmp_path / "out" / "sum.pdf"
    dest.parent.mkdir()
    assert problem2pdf(tool, FIXTURES / "sum", dest) is None
    assert dest.read_bytes().startswith(b"%PDF-") and b"args: -q -l en -o " in dest.read_bytes()
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600
    assert list(dest.parent.iterdir()) == [dest]  # its work folder is gone

    bad = tmp_path / "out" / "bad.pdf"
    (tmp_path / "nopdf").write_text("#!/bin/sh\necho 'no LaTeX here' >&2\nexit 3\n")
    (tmp_path / "nopdf").chmod(0o755)
    assert problem2pdf(tmp_path / "nopdf", FIXTURES / "sum", bad) == "nopdf exited with 3: no LaTeX here"
    said = problem2pdf(tmp_path / "missing", FIXTURES / "sum", bad)
    assert said is not None and said.startswith("missing") and "No such file" in said, said
    assert not bad.exists() and list(dest.parent.iterdir()) == [dest]


def test_the_thread_typesets_and_tells_and_a_left_work_folder_goes(tmp_path: Path) -> None:
    from judge.package.problem import load_problem
    from judge.serve.services.problems.statements import Statements

    cache = tmp_path / "statements"
    (cache / "typeset-left-by-a-kill").mkdir(parents=True)
    typeset, ready = FakeTypeset(), threading.Event()
    statements = Statements(cache, typeset, on_ready=ready.set)
    problem = load_problem(FIXTURES / "divisor")
    assert statements.files(problem).pdf is None  # queued, not typeset here
    statements.start()
    try:
        assert ready.wait(60), "the thread did not typeset"
        assert not (cache / "typeset-left-by-a-kill").exists()
        made = statements.files(problem).pdf
        assert made is not None and made.read_bytes() == tiny_pdf("divisor") and typeset.calls == [problem.path]
    finally:
        statements.stop()
