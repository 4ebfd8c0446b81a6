"""Similar submissions in `judge serve` (issue 49), through the real app as every role: the jury asks for a
problem's report, an idle slot computes it (here: the queue's job run by hand, as the pool runs it), the
problem's page ranks the pair of teams that copied with links to both submissions, the pair side by side,
"Mark reviewed" kept and in the audit log; reports made by themselves after the end; teams and the public
get what every /admin page gives them and not one of their pages holds a word of it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, T0, FakeClock, make_server, write_contest
from test_serve_fuzzing_pages import team_and_public_pages
from test_serve_pages import Browser, client, csrf_of, login, submit, text

from judge.serve.model.similarity import SimilarityState
from judge.serve.site.server import Server

FIXTURES = Path(__file__).parent / "fixtures" / "similarity"
MARK = "zqcopymark"  # a name in the copied program: found wherever the code is shown
ORIGINAL = (FIXTURES / "original.py").read_text().replace("read_grid", MARK)
COPY = (FIXTURES / "renamed.py").read_text().replace("parse", MARK + "_too")
OTHER = (FIXTURES / "independent.py").read_text()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path, clock: FakeClock) -> Iterator[Server]:
    s = make_server(write_contest(tmp_path / "contest"), clock)
    yield s
    s.close()


def submitted(server: Server, team: str, code: str) -> int:
    c = login(server, team)
    assert submit(c, code).status_code == 303
    server.judging.run_pending()
    return max(int(i) for i in re.findall(r'id="submission-(\d+)"', c.get("/submissions").text))


def compute_queued(server: Server) -> list[str]:
    """What the judging pool does on an idle slot: claim the queued reports and compute them."""
    assert server.similarity is not None
    done = []
    for job in server.similarity.claim_idle(4, ()):
        job.run(lambda: False)
        done.append(job.key)
    return done


def test_the_jury_asks_for_a_report_and_sees_the_pair_ranked_with_links(server: Server) -> None:
    one, two, three = (
        submitted(server, "team1", ORIGINAL),
        submitted(server, "team2", COPY),
        submitted(server, "team3", OTHER),
    )
    judge = login(server, "judge")
    overview = text(judge.get("/admin/similarity"))
    assert "not computed" in overview and "Compute every problem" in overview
    assert compute_queued(server) == []  # nothing asked for, and the contest runs: nothing to do
    token = csrf_of(judge.get("/admin/similarity").text)
    r = judge.post("/admin/similarity", data={"csrf": token, "problem": "sum"})
    assert r.status_code == 303 and r.headers["location"] == "/admin/similarity/sum"
    assert "queued" in text(judge.get("/admin/similarity?fragment=1"))
    assert compute_queued(server) == ["similarity:sum"]
    page = judge.get("/admin/similarity/sum")
    assert page.status_code == 200
    rows = re.findall(r"<tr>\s*<td class=\"num\">(\d+)</td>(.*?)</tr>", page.text, re.S)
    assert len(rows) == 1, rows  # team3's program is its own
    rank, row = rows[0]
    assert rank == "1" and "Zeta" in row and "Alpha" in row and "Mu" not in row and "100 %" in row
    assert f'href="/admin/submissions/{one}"' in row and f'href="/admin/submissions/{two}"' in row
    assert f"/admin/submissions/{three}" not in page.text
    pair = judge.get("/admin/similarity/sum/pairs/1")
    assert pair.status_code == 200 and MARK in pair.text and f"{MARK}_too" in pair.text and "<mark>" in pair.text
    for missing in ("/admin/similarity/sum/pairs/2", "/admin/similarity/sum/pairs/x", "/admin/similarity/nope"):
        assert judge.get(missing).status_code == 404, missing
    summary = text(judge.get("/admin/similarity"))
    assert re.search(r"computed .*?\(asked by judge\)", summary)


def test_mark_reviewed_is_kept_and_in_the_audit_log(server: Server) -> None:
    submitted(server, "team1", ORIGINAL)
    submitted(server, "team2", COPY)
    judge = login(server, "judge")
    judge.post("/admin/similarity", data={"csrf": csrf_of(judge.get("/admin/similarity").text), "problem": "sum"})
    compute_queued(server)
    page = judge.get("/admin/similarity/sum").text
    key = re.search(r'name="pair" value="([^"]+)"', page)
    assert key is not None
    token = csrf_of(page)
    bad = judge.post("/admin/similarity/sum/review", data={"csrf": token, "pair": "1~999", "note": ""})
    assert bad.status_code == 404
    note = "<b>talked to both</b>"
    r = judge.post("/admin/similarity/sum/review", data={"csrf": token, "pair": key.group(1), "note": note})
    assert r.status_code == 303
    shown = judge.get("/admin/similarity/sum")
    assert "by judge at" in text(shown) and note in text(shown) and "&lt;b&gt;talked" in shown.text
    assert "Mark reviewed" not in shown.text
    assert re.search(r"<td class=\"num\">1</td>", judge.get("/admin/similarity?fragment=1").text)  # 1 reviewed
    log = text(login(server, "admin").get("/admin/audit"))
    assert "similarity-reviewed" in log and key.group(1) in log and "talked to both" in log


def test_after_the_end_every_problem_gets_a_report_by_itself(server: Server, clock: FakeClock) -> None:
    submitted(server, "team1", ORIGINAL)
    submitted(server, "team2", COPY)
    assert compute_queued(server) == []
    clock.advance(5 * HOUR)  # past the end
    assert sorted(compute_queued(server)) == ["similarity:divisor", "similarity:sum"]
    assert compute_queued(server) == []  # nothing newer since
    with server.storage.read() as r:
        found = r.similarity_report("sum")
    assert found is not None and found.state is SimilarityState.READY and found.requested_by == "contest end"
    assert found.submissions == 2


def test_teams_and_the_public_see_nothing_of_it(server: Server) -> None:
    sid = submitted(server, "team1", ORIGINAL)
    submitted(server, "team2", COPY)
    admin = login(server, "admin")
    admin.post("/admin/similarity", data={"csrf": csrf_of(admin.get("/admin/similarity").text)})
    compute_queued(server)
    key = re.search(r'name="pair" value="([^"]+)"', admin.get("/admin/similarity/sum").text)
    assert key is not None
    for staff in (admin, login(server, "judge")):  # both kinds of staff see every page
        for path in ("/admin/similarity", "/admin/similarity/sum", "/admin/similarity/sum/pairs/1"):
            assert staff.get(path).status_code == 200, path
        assert 'href="/admin/similarity"' in staff.get("/admin").text  # the jury's navigation links it
    viewers: dict[str, Browser] = {"public": client(server), "team1": login(server, "team1")}
    viewers["team2"] = login(server, "team2")
    gets = [
        "/admin/similarity",
        "/admin/similarity?fragment=1",
        "/admin/similarity/sum",
        "/admin/similarity/sum/pairs/1",
        "/admin/similarity/divisor",
        "/admin/similarity/nope/pairs/9",
    ]
    others = {"public": (MARK,), "team1": (f"{MARK}_too",), "team2": (f"def {MARK}(",)}  # another's code
    for name, b in viewers.items():
        refusals = set()
        for path in gets:
            r = b.get(path)
            refusals.add((r.status_code, r.headers.get("location")))
            assert MARK not in r.text and "similar" not in r.text.lower(), (name, path)
        token = csrf_of(b.get("/login").text)
        for path, data in (
            ("/admin/similarity", {"csrf": token, "problem": "sum"}),
            ("/admin/similarity/sum/review", {"csrf": token, "pair": key.group(1), "note": "x"}),
        ):
            r = b.post(path, data=data)
            refusals.add((r.status_code, r.headers.get("location")))
        if name == "public":
            assert refusals == {(303, "/login")}, refusals
        else:
            assert refusals == {(403, None)}, refusals
        for path in team_and_public_pages(server, sid):
            r = b.get(path, follow_redirects=True)
            assert r.status_code in (200, 403, 404), (name, path, r.status_code)
            assert "similar" not in r.text.lower(), (name, path)
            assert not any(m in r.text for m in others[name]), (name, path)
    with server.storage.read() as r:
        assert r.similarity_reviews("sum") == []  # the teams' POSTs changed nothing
        assert all(e.action != "similarity-reviewed" for e in r.audit(100))


def test_three_teams_that_copied_are_shown_as_a_group_by_their_names(server: Server) -> None:
    submitted(server, "team1", ORIGINAL)
    submitted(server, "team2", COPY)
    submitted(server, "team3", (FIXTURES / "comments.py").read_text())
    judge = login(server, "judge")
    judge.post("/admin/similarity", data={"csrf": csrf_of(judge.get("/admin/similarity").text), "problem": "sum"})
    compute_queued(server)
    page = text(judge.get("/admin/similarity/sum"))
    assert re.search(r"A group of 3 teams:(</strong>)? Alpha, Mu, Zeta", page) and "team1" not in page
    assert len(re.findall(r'name="pair" value="', page)) == 3


def test_the_similarity_queues_own_thread_computes_only_while_its_process_leads(server: Server) -> None:
    """On a cluster the reports are computed by a thread of their own (not the pool's idle slots): with several
    processes on one database (issue 51, --shared) only the lead process's thread computes them."""
    from judge.serve.services.judging.similarity_queue import SimilarityQueue

    submitted(server, "team1", ORIGINAL)
    submitted(server, "team2", COPY)
    assert server.similarity is not None
    assert server.similarity._leads == server.storage.leads  # the wiring's: the storage's lead lock
    leading = [False]
    queue = SimilarityQueue(server.similarity.setup, own_thread=True, leads=lambda: leading[0])
    with server.storage.write() as w:
        assert w.request_similarity("sum", "judge", T0 + HOUR)

    def state() -> SimilarityState:
        with server.storage.read() as r:
            (found,) = r.similarity_reports(with_report=False)
        return found.state

    assert queue.run_once() == 0 and state() is SimilarityState.QUEUED  # another process leads
    leading[0] = True
    assert queue.run_once() == 1 and state() is SimilarityState.READY
