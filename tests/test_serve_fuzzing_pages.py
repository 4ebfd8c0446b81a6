"""Live fuzzing's pages (issue 33, docs/live-fuzzing.md), through the real app: the jury's Fuzzing page (per
problem: fuzzable or not, the counterexamples newest first), a counterexample's page (text or hex, cut with a
download link; the "Add as test" form with the CSRF token), the downloads, the Fuzzing link and the notice of
new counterexamples (per account, until it opens the Fuzzing page); teams and the public get what every
/admin page gives them, and not one of their pages holds a word of it. The counterexamples are stored as the
fuzzing stores them (storage's add_counterexample): the fuzz jobs are built in parallel (slice 2)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, HOUR, SUM_AC, T0, FakeClock, make_server, write_contest
from test_serve_pages import Browser, client, csrf_of, login, submit, text

from judge.serve.http.pages import fuzz_views
from judge.serve.model.records import Counterexample
from judge.serve.site.server import Server

MARK = "zq-counterexample-mark"  # in the stored counterexample's message, input and answer: found if shown
BINARY = bytes(range(256)) * 3  # not text: a hex dump, cut at HEX_BYTES


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    root = write_contest(tmp_path / "contest")
    shutil.copytree(FIXTURES / "sum", root / "problems" / "sum")  # the contest's own copy, with a fuzz.py
    (root / "problems" / "sum" / "fuzz.py").write_text("# the hooks: only their presence matters here\n")
    s = make_server(root, FakeClock(T0 + HOUR))
    yield s
    s.close()


def stored(server: Server, c: Counterexample) -> int:
    with server.storage.write() as w:
        return w.add_counterexample(c)


def wrong(submission_id: int, found_s: float, **kw: object) -> Counterexample:
    fields: dict[str, object] = {
        "problem_id": "sum",
        "submission_id": submission_id,
        "judgement_id": submission_id,
        "input": f"2 2\n# {MARK}\n".encode(),
        "answer": f"4\n# {MARK}-answer\n".encode(),
        "output": b"0\n",
        "verdict": "WA",
        "message": f"expected 4, got 0 <b>{MARK}</b>",
        "confirmed": True,
        "found_s": found_s,
    }
    return Counterexample(**{**fields, **kw})  # type: ignore[arg-type]


def accepted(server: Server, team: str) -> int:
    """A team's accepted submission of sum, judged; its id."""
    c = login(server, team)
    assert submit(c, SUM_AC).status_code == 303
    server.judging.run_pending()
    ids = [int(i) for i in re.findall(r'id="submission-(\d+)"', c.get("/submissions").text)]
    return max(ids)


def test_the_jury_sees_the_counterexamples_per_problem_newest_first(server: Server) -> None:
    one, two = accepted(server, "team1"), accepted(server, "team2")
    judge = login(server, "judge")
    empty = text(judge.get("/admin/fuzzing"))
    assert re.search(r'id="fuzz-summary-sum">.*?yes.*?<td class="count">0<', empty, re.S)
    assert re.search(r'id="fuzz-summary-divisor">.*?no \(no fuzz.py\)', empty, re.S)
    assert "no counterexample found" in empty and 'id="counterexample-' not in empty
    first = stored(server, wrong(one, T0 + HOUR + 60))
    second = stored(server, wrong(two, T0 + HOUR + 125, verdict="RTE", output=None, confirmed=False, message="exit 1"))
    for path in ("/admin/fuzzing", "/admin/fuzzing?fragment=1"):
        page = text(judge.get(path))
        rows = re.findall(r'id="counterexample-(\d+)">(.*?)</tr>', page, re.S)
        assert [int(i) for i, _ in rows] == [second, first]  # newest first
        newest, oldest = rows[0][1], rows[1][1]
        assert "1:02:05" in newest and "Alpha" in newest and f'href="/admin/submissions/{two}"' in newest
        assert ">RTE<" in newest and "exit 1" in newest and ">no<" in newest and "not added" in newest
        assert "1:01:00" in oldest and "Zeta" in oldest and ">WA<" in oldest and ">yes<" in oldest
        assert f"<b>{MARK}</b>" in oldest  # the validator's message, escaped (text() unescapes it)
        assert "&lt;b&gt;" + MARK in judge.get(path).text
        assert re.search(r'id="fuzz-summary-sum">.*?<span class="badge">2<', page, re.S)
    assert "/admin/fuzzing" in judge.get("/admin").text  # the jury's navigation links it


def test_a_counterexamples_page_shows_its_bytes_and_the_add_as_test_form(server: Server) -> None:
    sid = accepted(server, "team1")
    cid = stored(server, wrong(sid, T0 + HOUR + 60))
    binary = stored(server, wrong(sid, T0 + HOUR + 61, input=BINARY, output=None, answer=b"x" * 10_000))
    admin = login(server, "admin")
    page = admin.get(f"/admin/counterexamples/{cid}")
    assert page.status_code == 200
    shown = text(page)
    assert f"2 2\n# {MARK}\n" in shown and f"4\n# {MARK}-answer\n" in shown and ">0\n<" in shown
    assert f"expected 4, got 0 <b>{MARK}</b>" in shown and "Zeta" in shown and f"/admin/submissions/{sid}" in shown
    form_re = r'<form method="post" action="/admin/counterexamples/(\d+)/add-as-test".*?</form>'
    form = re.search(form_re, page.text, re.S)
    assert form is not None and int(form.group(1)) == cid
    assert csrf_of(form.group(0)) == csrf_of(admin.get("/admin").text)  # the session's token, as every admin form
    assert "cut here" not in shown
    for part, data, ext in (("input", f"2 2\n# {MARK}\n".encode(), "in"), ("output", b"0\n", "out")):
        got = admin.get(f"/admin/counterexamples/{cid}/{part}")
        assert got.status_code == 200 and got.content == data
        assert got.headers["content-disposition"] == f'attachment; filename="counterexample-{cid}.{ext}"'
        assert got.headers["content-type"] == "application/octet-stream"
    other = text(admin.get(f"/admin/counterexamples/{binary}"))
    assert "not text: a hex dump" in other and "00000000  00 01 02 03" in other
    assert f"{fuzz_views.HEX_BYTES:08x}" not in other  # cut after HEX_BYTES
    assert "none: the submission crashed" in other and 'id="output-download"' not in other
    assert other.count("cut here") == 2 and f"download all {len(BINARY)} bytes" in other  # input and answer
    assert admin.get(f"/admin/counterexamples/{binary}/input").content == BINARY
    assert admin.get(f"/admin/counterexamples/{binary}/output").status_code == 404
    for missing in (str(binary + 1), "x", "1" * 30):
        for path in (f"/admin/counterexamples/{missing}", f"/admin/counterexamples/{missing}/input"):
            assert admin.get(path).status_code == 404, path


def test_the_notice_of_new_counterexamples_is_per_account_until_it_opens_the_fuzzing_page(server: Server) -> None:
    sid = accepted(server, "team1")
    judge, admin = login(server, "judge"), login(server, "admin")
    quiet = judge.get("/admin/fuzzing/notice").text
    assert 'id="fuzz-link"' in quiet and "fuzz-count" not in quiet and "fuzz-toast" not in quiet
    stored(server, wrong(sid, T0 + HOUR + 60))
    for who in (judge, admin):
        page = text(who.get("/admin/judging"))
        assert re.search(r'id="fuzz-count"[^>]*>1<', page) and "New counterexample for problem A" in page
    stored(server, Counterexample("divisor", sid, sid, b"1\n", b"1\n", b"2\n", "WA", "no", True, T0 + HOUR + 70))
    notice = text(judge.get("/admin/fuzzing/notice"))
    assert re.search(r'id="fuzz-count"[^>]*>2<', notice) and "2 new counterexamples for problem B, A" in notice
    judge.get("/admin/fuzzing")  # the judge has seen them
    for path in ("/admin/fuzzing/notice", "/admin", "/admin/fuzzing"):
        assert "fuzz-toast" not in judge.get(path).text, path
    assert "2 new counterexamples" in text(admin.get("/admin/fuzzing/notice"))  # the admin has not
    stored(server, wrong(sid, T0 + HOUR + 80))
    assert "New counterexample for problem A" in text(judge.get("/admin"))


def team_and_public_pages(server: Server, sid: int) -> list[str]:
    """Every page a team or the public may open (the route tables' GETs, with ids filled in)."""
    return [
        "/",
        "/login",
        "/scoreboard",
        "/scoreboard?fragment=1",
        "/problems",
        "/problems/sum/",
        "/submit",
        "/submissions",
        "/submissions?fragment=1",
        f"/submissions/{sid}",
        f"/submissions/{sid}?fragment=1",
        "/clarifications",
        "/clarifications/notice",
        "/print",
        "/status",
        "/static/live.js",
        "/static/serve.css",
    ]


def test_teams_and_the_public_see_nothing_of_it(server: Server) -> None:
    sid = accepted(server, "team1")
    accepted(server, "team2")
    cid = stored(server, wrong(sid, T0 + HOUR + 60))
    viewers: dict[str, Browser] = {"public": client(server), "team1": login(server, "team1")}
    viewers["team2"] = login(server, "team2")
    admin_paths = [
        "/admin/fuzzing",
        "/admin/fuzzing?fragment=1",
        "/admin/fuzzing/notice",
        *(f"/admin/counterexamples/{i}{part}" for i in (cid, 999) for part in ("", "/input", "/output", "/answer")),
    ]
    for name, b in viewers.items():
        refusals = set()
        for path in admin_paths:
            r = b.get(path)
            refusals.add((r.status_code, r.headers.get("location"), "this page is for judges and admins" in r.text))
            assert MARK not in r.text and "counterexample" not in r.text.lower(), (name, path)
        if name == "public":  # the login page, as every /admin page answers the public
            assert refusals == {(303, "/login", False)}, refusals
        else:  # one and the same 403 for every path and id, stored or not
            assert refusals == {(403, None, True)}, refusals
        for path in team_and_public_pages(server, sid):
            r = b.get(path, follow_redirects=True)
            assert r.status_code in (200, 403, 404), (name, path, r.status_code)
            body = r.text.lower()
            assert "fuzz" not in body and "counterexample" not in body and MARK not in body, (name, path)
