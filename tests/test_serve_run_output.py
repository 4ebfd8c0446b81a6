"""Why a run failed (issue 47): what each test's passes printed, kept per judgement within contest.yaml's
``output_storage``; the jury's submission page and run pages (output, answer, the diff, stderr, the
validator's messages, downloads of each whole); what a team sees of it (``team_outputs``: the sample
tests' by default, none, or all) on its pages, its downloads and the API; nobody else sees anything.
Judging is scripted (workbench_support.DetailedJudge), except the last test (the sandbox, for real)."""

from __future__ import annotations

import base64
import html as htmllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, HOUR, SUM_WA, T0, Api, FakeClock, db, make_server, write_contest
from test_serve_pages import client, login
from workbench_support import STDERR, WRONG_OUTPUT, workbench_server

from judge.judging.prepared import Packages
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import Runner
from judge.serve.model.contest import load_contest
from judge.serve.services.judging.judge_fn import local_judge
from judge.serve.site.server import Server

C = "/api/contests/test"
SAMPLE, SECRET = 1, 2  # the runs' ordinals: sum's tests, sample/00 first
SECRET_INPUT = (FIXTURES / "sum" / "data" / "secret" / "01.in").read_bytes()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0 + HOUR)


def judged_wa(server: Server) -> tuple[Api, int]:
    """team1's wrong submission, judged: its judgement's number in the database."""
    api = Api.of(server)
    assert api.submit("team1", files={"sum.py": SUM_WA}).status_code == 201
    assert server.judging.run_pending() == 1
    (jid,) = db(server).execute("SELECT id FROM judgements").fetchone()
    return api, int(jid)


@pytest.fixture
def wa(tmp_path: Path, clock: FakeClock) -> Iterator[tuple[Server, Api, int]]:
    server, _ = workbench_server(tmp_path, clock)
    api, jid = judged_wa(server)
    yield server, api, jid
    server.close()


def text(r: object) -> str:
    return htmllib.unescape(r.text)  # type: ignore[attr-defined]


def test_each_pass_is_kept_with_its_sizes_and_counted(wa: tuple[Server, Api, int]) -> None:
    server, _, jid = wa
    rows = (
        db(server)
        .execute(
            "SELECT ordinal, pass, output, output_bytes, stderr, judge_message, team_message FROM run_details "
            "WHERE judgement_id = ? ORDER BY ordinal",
            (jid,),
        )
        .fetchall()
    )
    assert [r[0] for r in rows] == [1, 2, 3, 4] and {r[1] for r in rows} == {1}
    assert rows[0][2:] == (WRONG_OUTPUT, len(WRONG_OUTPUT), STDERR, "judge: wrong on sample/00", "team: look again")
    counted = db(server).execute("SELECT value FROM meta WHERE key = 'run_details_bytes'").fetchone()
    assert int(counted[0]) == 4 * (len(WRONG_OUTPUT) + len(STDERR))


def test_the_jury_sees_why_it_failed_on_the_submission_page(wa: tuple[Server, Api, int]) -> None:
    server, _, jid = wa
    admin = login(server, "admin")
    page = text(admin.get("/admin/submissions/1"))
    assert "Why it failed" in page and 'id="failing"' in page
    failing = page.split('id="failing"')[1].split("<h2>Source</h2>")[0]
    assert "sample/00" in failing and "judge: wrong on sample/00" in failing and "team: look again" in failing
    assert "They first differ at line 1." in failing
    assert '<td class="l">-1</td>' in failing and '<td class="r">3</td>' in failing  # the diff, side by side
    assert STDERR.decode().strip() in failing and "exit status 0" in failing
    assert f"/admin/judgements/{jid}/runs/{SECRET}" in page  # every run links to its own page


def test_the_jury_reads_and_downloads_a_secret_run(wa: tuple[Server, Api, int]) -> None:
    server, _, jid = wa
    admin = login(server, "admin")
    page = text(admin.get(f"/admin/judgements/{jid}/runs/{SECRET}"))
    assert "secret/01" in page and "-5 5" in page and "judge: wrong on secret/01" in page
    got = {f: admin.get(f"/admin/judgements/{jid}/runs/{SECRET}/{f}") for f in ("output", "stderr", "input", "answer")}
    assert {f: r.status_code for f, r in got.items()} == dict.fromkeys(got, 200)
    assert got["output"].content == WRONG_OUTPUT and got["stderr"].content == STDERR
    assert got["input"].content == SECRET_INPUT and got["answer"].content == b"0\n"
    assert got["input"].headers["content-disposition"].startswith("attachment")
    assert admin.get(f"/admin/judgements/{jid}/runs/{SECRET}/source").status_code == 404
    assert admin.get(f"/admin/judgements/{jid}/runs/99").status_code == 404
    assert admin.get(f"/admin/judgements/{jid + 1}/runs/1").status_code == 404


def test_a_team_sees_its_sample_runs_output_and_nothing_of_a_secret_one(wa: tuple[Server, Api, int]) -> None:
    server, _, jid = wa
    team1 = login(server, "team1")
    feedback = text(team1.get("/submissions/1"))
    assert "/submissions/1/runs/1" in feedback and "/submissions/1/runs/2" not in feedback
    page = text(team1.get(f"/submissions/1/runs/{SAMPLE}"))
    assert "team: look again" in page and '<td class="l">-1</td>' in page
    assert "judge: wrong" not in page  # the validator's message for the jury stays the jury's
    assert team1.get(f"/submissions/1/runs/{SAMPLE}/output").content == WRONG_OUTPUT
    for path in (f"/submissions/1/runs/{SECRET}", *(f"/submissions/1/runs/{SECRET}/{f}" for f in ("output", "input"))):
        r = team1.get(path)
        assert r.status_code == 404 and "-5 5" not in r.text, path
    assert team1.get(f"/admin/judgements/{jid}/runs/{SAMPLE}").status_code == 403
    team2 = login(server, "team2")
    assert team2.get(f"/submissions/1/runs/{SAMPLE}").status_code == 404
    assert team2.get(f"/submissions/1/runs/{SAMPLE}/output").status_code == 404
    public = client(server)
    assert public.get(f"/submissions/1/runs/{SAMPLE}").headers["location"] == "/login"
    assert public.get(f"/admin/judgements/{jid}/runs/{SAMPLE}").headers["location"] == "/login"


def test_the_api_gives_it_to_whoever_may_read_it(wa: tuple[Server, Api, int]) -> None:
    _, api, _ = wa
    full = api.get(f"{C}/runs/1-{SECRET}/output", "judge")
    assert full.status_code == 200
    (p,) = full.json()["passes"]
    assert base64.b64decode(p["output"]) == WRONG_OUTPUT and p["judge_message"] == "judge: wrong on secret/01"
    assert base64.b64decode(full.json()["input"]["data"]) == SECRET_INPUT and p["first_difference"] == 1
    own = api.get(f"{C}/runs/1-{SAMPLE}/output", "team1").json()
    assert "judge_message" not in own["passes"][0] and own["passes"][0]["team_message"] == "team: look again"
    for user, run in (("team1", SECRET), ("team2", SAMPLE), (None, SAMPLE), ("team1", 99)):
        r = api.get(f"{C}/runs/1-{run}/output", user)
        assert r.status_code == 404 and "-5 5" not in r.text, (user, run)


@pytest.mark.parametrize("rule", ["none", "all"])
def test_team_outputs_none_or_all(tmp_path: Path, clock: FakeClock, rule: str) -> None:
    server, _ = workbench_server(tmp_path, clock, extra=(f"team_outputs: {rule}",))
    api, _ = judged_wa(server)
    team1 = login(server, "team1")
    sample, secret = (team1.get(f"/submissions/1/runs/{n}/input") for n in (SAMPLE, SECRET))
    api_secret = api.get(f"{C}/runs/1-{SECRET}/output", "team1")
    if rule == "none":
        assert (sample.status_code, secret.status_code, api_secret.status_code) == (404, 404, 404)
    else:  # a classroom's choice: the secret tests too
        assert secret.status_code == 200 and secret.content == SECRET_INPUT
        assert base64.b64decode(api_secret.json()["passes"][0]["output"]) == WRONG_OUTPUT
    assert login(server, "team2").get(f"/submissions/1/runs/{SAMPLE}").status_code == 404
    server.close()


def test_a_run_is_cut_at_run_kib_and_its_size_said(tmp_path: Path, clock: FakeClock) -> None:
    big = b"7\n" * 2000  # 4000 bytes
    server, judge = workbench_server(tmp_path, clock, extra=("output_storage: {run_kib: 1}",), output=big)
    judged_wa(server)
    assert judge.calls[0].keep_bytes == 1024
    admin = login(server, "admin")
    (jid,) = db(server).execute("SELECT id FROM judgements").fetchone()
    assert admin.get(f"/admin/judgements/{jid}/runs/1/output").content == big[:1024]
    assert "4000 bytes" in text(admin.get(f"/admin/judgements/{jid}/runs/1"))
    server.close()


def test_the_contests_cap_keeps_no_more_output(tmp_path: Path, clock: FakeClock) -> None:
    big = b"x" * (700 * 1024)
    extra = ("output_storage: {run_kib: 1024, contest_mib: 1}",)
    server, _ = workbench_server(tmp_path, clock, extra=extra, output=big)
    _, jid = judged_wa(server)
    rows = db(server).execute("SELECT ordinal, output IS NULL FROM run_details ORDER BY ordinal").fetchall()
    assert rows == [(1, 0), (2, 1), (3, 1), (4, 1)]  # the first fits, the rest only say how they ended
    page = text(login(server, "admin").get(f"/admin/judgements/{jid}/runs/2"))
    assert "cap on stored output was reached" in page and "judge: wrong on secret/01" in page
    server.close()


def test_no_output_is_kept_when_the_contest_keeps_none(tmp_path: Path, clock: FakeClock) -> None:
    server, judge = workbench_server(tmp_path, clock, extra=("output_storage: {contest_mib: 0}",))
    _, jid = judged_wa(server)
    assert judge.calls[0].keep_bytes == 0
    assert db(server).execute("SELECT count(*) FROM run_details").fetchone()[0] == 0
    page = text(login(server, "admin").get(f"/admin/judgements/{jid}/runs/1"))
    assert 'id="not-kept"' in page and "-1" not in page.split('id="not-kept"')[1].split("test input")[0]
    server.close()


def test_each_pass_of_a_multi_pass_run_has_its_part(tmp_path: Path, clock: FakeClock) -> None:
    server, _ = workbench_server(tmp_path, clock, passes=2)
    _, jid = judged_wa(server)
    admin = login(server, "admin")
    page = text(admin.get(f"/admin/judgements/{jid}/runs/{SECRET}"))
    assert 'id="pass-1"' in page and 'id="pass-2"' in page and "Pass 2:" in page
    assert "this pass's input (nextpass.in)" in page.split('id="pass-2"')[1]
    assert admin.get(f"/admin/judgements/{jid}/runs/{SECRET}/input?pass=2").content == b"round 2\n"
    assert admin.get(f"/admin/judgements/{jid}/runs/{SECRET}/input").content == SECRET_INPUT  # the test's
    out = Api.of(server).get(f"{C}/runs/1-{SECRET}/output", "judge").json()
    assert [p["pass"] for p in out["passes"]] == [1, 2] and base64.b64decode(out["passes"][1]["input"]) == b"round 2\n"
    server.close()


def test_a_wrong_submission_judged_in_the_sandbox(tmp_path: Path, clock: FakeClock, sandbox_runner: Runner) -> None:
    root = write_contest(tmp_path / "contest")
    contest = load_contest(root, FIXTURES)
    env = Environment(sandbox_runner, load_languages(), toolchain())
    with Packages({p.id: p.problem for p in contest.problems}, env) as packages:
        server = make_server(root, clock, local_judge(packages, env))
        api, jid = judged_wa(server)
        out = api.get(f"{C}/runs/1-{SAMPLE}/output", "admin").json()
        (p,) = out["passes"]
        assert base64.b64decode(p["output"]) == b"-1\n" and p["exit_code"] == 0 and p["first_difference"] == 1
        assert base64.b64decode(out["answer"]["data"]) == b"3\n"
        page = text(login(server, "judge").get("/admin/submissions/1"))
        assert '<td class="l">-1</td>' in page and '<td class="r">3</td>' in page
        server.close()
