"""Package versions and the rejudge preview (issue 33, slice 4 of docs/live-fuzzing.md), through the real app:
a counterexample added as a test is previewed on the accepted submissions only, the preview lists exactly
those that fail on it (and the board's change), applying rejudges exactly those against the new current
version (kept across a restart), discarding leaves everything as it was, a stale preview is refused, a bad
upload stores nothing, and teams and the public are refused everywhere alike.

The judge is scripted (no processes): it judges each version of a package by its hash, as
judging.prepared.Packages does; a submission that says ``weak`` passes every test but the fuzz ones."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import threading
import warnings
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from serve_fixtures import (
    CHEAP_HASHER,
    FIXTURES,
    HOUR,
    SUM_AC,
    SUM_WA,
    T0,
    Api,
    FakeClock,
    feed,
    make_server,
    write_contest,
)
from test_serve_pages import csrf_of, login

from judge.judging.jobs import JudgeJob
from judge.judging.results import CaseResult, SubmissionResult
from judge.judging.verdict import Verdict
from judge.languages.table import load_languages
from judge.package.problem import Problem
from judge.serve.model.contest import load_contest
from judge.serve.model.records import Counterexample
from judge.serve.model.viewer import Role, Viewer
from judge.serve.services.judging import previews
from judge.serve.services.judging.versions import NewTestRefused, VersionTools
from judge.serve.site.server import ServeOptions, Server, open_server

C = "/api/contests/test"
SUM_WEAK = "a, b = map(int, input().split())\nprint(a+b if abs(a) < 10**6 else 0)  # weak\n"


class VersionedJudge:
    """A JudgeFn that knows every version of a package by its hash (``register``), and answers per test:
    ``a + b`` passes everything, ``weak`` everything but the fuzz tests, ``slow`` that too but is TLE on
    the tests named ``huge``; the rest passes nothing."""

    def __init__(self, problems: Mapping[str, Problem]) -> None:
        self.versions = {(p.id, p.content_hash): p for p in problems.values()}
        self.calls: list[JudgeJob] = []
        self._lock = threading.Lock()

    def register(self, problem: Problem) -> None:
        with self._lock:
            self.versions[(problem.id, problem.content_hash)] = problem

    def answer(self, problem: Problem, test_input: bytes) -> bytes:
        numbers = test_input.split()
        if len(numbers) != 2:
            raise NewTestRefused("the input validator refuses the input: validate.py: expected two integers")
        return b"%d\n" % (int(numbers[0]) + int(numbers[1]))

    def __call__(self, job: JudgeJob) -> SubmissionResult:
        with self._lock:
            self.calls.append(job)
            problem = self.versions[(job.problem, job.package_hash)]
        text = b"".join(f.data for f in job.files)

        def verdict_on(name: str) -> Verdict:
            if b"slow" in text and "huge" in name:
                return Verdict.TLE
            ok = b"a + b" in text or ((b"weak" in text or b"slow" in text) and "fuzz-" not in name)
            return Verdict.AC if ok else Verdict.WA

        tests = tuple(CaseResult(t.name, t.group, verdict_on(t.name), 1.0, 0.01, 0.02, 1000) for t in problem.tests())
        verdict = next((t.verdict for t in tests if t.verdict is not Verdict.AC), Verdict.AC)
        score = problem.secret.max_score if verdict is Verdict.AC else 0.0
        scores = tuple(0.0 for _ in tests)
        return SubmissionResult(
            problem.id, job.label, job.language, verdict, score, problem.secret.max_score, 0.01, 1000,
            tests=tests, test_scores=scores,
        )  # fmt: skip


def open_contest(root: Path, clock: FakeClock, log: list[str] | None = None) -> tuple[Server, VersionedJudge]:
    contest = load_contest(root, FIXTURES)
    judge = VersionedJudge({p.id: p.problem for p in contest.problems})
    langs = {k: v for k, v in load_languages().items() if k == "python3"}
    tools = VersionTools(register=judge.register, make_answer=judge.answer)
    said = log if log is not None else []
    options = ServeOptions(hasher=CHEAP_HASHER, clock=clock, tools=tools, log=said.append)
    return open_server(contest, langs, judge, options), judge


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_contest(tmp_path / "contest", scoreboard_type="pass-fail")


@pytest.fixture
def served(root: Path) -> Iterator[tuple[Server, VersionedJudge]]:
    server, judge = open_contest(root, FakeClock(T0 + HOUR))
    yield server, judge
    server.close()


def submit_three(server: Server) -> dict[str, int]:
    """team1 right, team2 wrong but accepted (the weak test set), team3 wrong: judged."""
    api = Api.of(server)
    ids = {}
    for team, source in (("team1", SUM_AC), ("team2", SUM_WEAK), ("team3", SUM_WA)):
        r = api.submit(team, files={"sum.py": source})
        assert r.status_code == 201, r.text
        ids[team] = int(r.json()["id"])
    assert server.judging.run_pending() == 3
    return ids


def counterexample_of(server: Server, submission_id: int, test_input: bytes = b"1000000 1\n") -> int:
    found = Counterexample("sum", submission_id, 1, test_input, b"1000001\n", b"0\n", "WA", "wrong", True, T0 + HOUR)
    with server.storage.write() as w:
        return w.add_counterexample(found)


def verdicts(server: Server) -> dict[int, list[tuple[str | None, bool]]]:
    """Every submission's judgements (verdict, current), oldest first."""
    with server.storage.read() as r:
        out: dict[int, list[tuple[str | None, bool]]] = {}
        for j in r.judgements():
            out.setdefault(j.submission_id, []).append((j.verdict, j.current))
        return out


def start(api: Api, cid: int, user: str = "judge") -> str:
    r = api.request("POST", f"{C}/counterexamples/{cid}/add-as-test", user)
    assert r.status_code == 202, r.text
    return str(r.json()["id"])


def test_adding_a_counterexample_previews_exactly_the_submissions_that_fail_on_it(served: tuple) -> None:
    server, judge = served
    api = Api.of(server)
    ids = submit_three(server)
    cid = counterexample_of(server, ids["team2"])
    before_feed = feed(api, "admin")
    pid = start(api, cid)
    assert api.get(f"{C}/previews/{pid}", "judge").json()["state"] == "preparing"  # nothing runs in the request
    calls = len(judge.calls)
    assert server.previews is not None and server.previews.run_pending() >= 1
    shown = api.get(f"{C}/previews/{pid}", "judge").json()
    assert shown["state"] == "ready" and shown["kind"] == "add-test" and shown["test_name"] == f"secret/fuzz-{cid}"
    # the accepted submissions only, each on the new test only
    assert [(r["submission_id"], r["verdict_before"], r["verdict_after"], r["changes"]) for r in shown["runs"]] == [
        (str(ids["team1"]), "AC", "AC", False),
        (str(ids["team2"]), "AC", "WA", True),
    ]
    assert shown["runs"][1]["failing_test"] == f"secret/fuzz-{cid}" and shown["runs"][1]["team_id"] == "team2"
    ran = judge.calls[calls:]
    assert len(ran) == 2 and all(len(judge.versions[(j.problem, j.package_hash)].tests()) == 1 for j in ran)
    # the board's change: team2 loses its solve and its place (team1 keeps both: not listed)
    board = {c["team_id"]: c for c in shown["board"]}
    assert "team1" not in board and board["team2"]["score_before"]["num_solved"] == 1
    assert board["team2"]["score_after"]["num_solved"] == 0
    assert (board["team2"]["rank_before"], board["team2"]["rank_after"]) == (1, 2)  # tied with team1, then team3
    # nothing reached a judgement, the queue or the feed
    assert verdicts(server) == {
        ids["team1"]: [("AC", True)],
        ids["team2"]: [("AC", True)],
        ids["team3"]: [("WA", True)],
    }
    assert server.judging.pending() == 0 and feed(api, "admin") == before_feed
    # the new version's files: the package and the new test with the reference's answer, owner-only
    with server.storage.read() as r:
        (version,) = r.problem_versions("sum")
    path = Path(version.path)
    assert version.state == "preview" and (path / "data" / f"secret/fuzz-{cid}.ans").read_bytes() == b"1000001\n"
    assert (path.parent.parent.stat().st_mode & 0o077) == 0
    assert not path.is_relative_to(FIXTURES)  # the package the server started with is not written


def test_applying_rejudges_only_those_against_the_new_version_which_a_restart_keeps(root: Path) -> None:
    clock = FakeClock(T0 + HOUR)
    server, judge = open_contest(root, clock)
    api = Api.of(server)
    ids = submit_three(server)
    cid = counterexample_of(server, ids["team2"])
    pid = start(api, cid)
    assert server.previews is not None
    server.previews.run_pending()
    assert api.request("POST", f"{C}/previews/{pid}/apply", "judge").status_code == 403  # admins apply
    applied = api.request("POST", f"{C}/previews/{pid}/apply", "admin")
    assert applied.status_code == 202, applied.text
    assert applied.json() == {"submission_ids": [str(ids["team2"])]}
    assert server.judging.pending() == 1 and server.judging.run_pending() == 1
    assert verdicts(server) == {
        ids["team1"]: [("AC", True)],
        ids["team2"]: [("AC", False), ("WA", True)],  # the old judgement kept, non-current
        ids["team3"]: [("WA", True)],
    }
    # issue 47: the rejudge is a rejudging set (the one mechanism), applying itself, with its before -> after
    (rejudged,) = api.get(f"{C}/rejudgings", "judge").json()
    assert (rejudged["scope"], rejudged["state"], rejudged["auto_apply"], rejudged["changes"]) == (
        "problem sum",
        "applied",
        True,
        1,
    )
    new = server.contest.problem("sum")
    assert new is not None and f"secret/fuzz-{cid}" in [t.name for t in new.problem.tests()]
    assert judge.calls[-1].package_hash == new.problem.content_hash  # the rejudge used the new version
    assert api.get(f"{C}/counterexamples/{cid}", "judge").json()["id"] == str(cid)
    with server.storage.read() as r:
        assert r.counterexample(cid).added_as == f"secret/fuzz-{cid}"  # type: ignore[union-attr]
        assert [(v.version, v.state) for v in r.problem_versions("sum")] == [(2, "current")]
        assert [a.action for a in r.audit(10)][:2] == ["apply preview", "preview"]
    assert api.request("POST", f"{C}/previews/{pid}/apply", "admin").status_code == 409  # once
    zipped = login(server, "judge").get("/admin/problems/sum/package.zip")
    assert zipped.status_code == 200 and zipped.headers["content-disposition"] == 'attachment; filename="sum-v2.zip"'
    assert f"sum/data/secret/fuzz-{cid}.in" in zipfile.ZipFile(io.BytesIO(zipped.content)).namelist()
    server.close()
    said: list[str] = []
    again, _ = open_contest(root, clock, said)  # a restart loads the current version from the data directory
    try:
        kept = again.contest.problem("sum")
        assert kept is not None and kept.problem.content_hash == new.problem.content_hash
        assert any(line.startswith("package sum: version 2, from ") for line in said), said
        assert again.changed_packages() == []  # the unchanged judgements were previewed: no rejudge is due
    finally:
        again.close()
    (new.problem.path / "problem.yaml").write_text("name: [broken\n")  # someone broke it on disk
    said.clear()
    third, _ = open_contest(root, clock, said)
    try:
        first = third.contest.problem("sum")
        assert first is not None and first.problem.path.is_relative_to(FIXTURES)  # version 1, said loudly
        assert any(line.startswith("WARNING: package sum version 2 cannot be read") for line in said), said
    finally:
        third.close()


def test_discarding_leaves_everything_as_it_was(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    assert server.previews is not None
    server.previews.run_pending()
    hash_before = server.contest.problem("sum").problem.content_hash  # type: ignore[union-attr]
    before = (verdicts(server), feed(api, "admin"), api.get(f"{C}/scoreboard", "admin").json())
    with server.storage.read() as r:
        path = Path(r.problem_versions("sum")[0].path)
    assert path.is_dir()
    assert api.request("POST", f"{C}/previews/{pid}/discard", "judge").status_code == 403
    assert api.request("POST", f"{C}/previews/{pid}/discard", "admin").status_code == 204
    assert api.get(f"{C}/previews/{pid}", "judge").json()["state"] == "discarded"
    assert not path.parent.exists()  # its files removed
    assert (verdicts(server), feed(api, "admin"), api.get(f"{C}/scoreboard", "admin").json()) == before
    assert server.contest.problem("sum").problem.content_hash == hash_before  # type: ignore[union-attr]
    assert server.judging.pending() == 0
    assert api.request("POST", f"{C}/previews/{pid}/apply", "admin").status_code == 409
    with server.storage.read() as r:
        assert [(v.version, v.state) for v in r.problem_versions("sum")] == [(2, "discarded")]
        assert r.audit(1)[0].action == "discard preview"


def test_a_preview_made_on_a_version_no_longer_current_is_refused(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    first = start(api, counterexample_of(server, ids["team2"]))
    second = start(api, counterexample_of(server, ids["team2"], b"-1000000 -1\n"))
    assert server.previews is not None
    server.previews.run_pending()
    assert api.request("POST", f"{C}/previews/{first}/apply", "admin").status_code == 202
    assert api.get(f"{C}/previews/{second}", "admin").json()["stale"] is True
    refused = api.request("POST", f"{C}/previews/{second}/apply", "admin")
    assert refused.status_code == 409 and refused.json()["message"] == "the package changed; preview again"


def test_an_input_the_validator_refuses_is_not_added(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"], b"1 2 3\n"))
    assert server.previews is not None
    server.previews.run_pending()
    shown = api.get(f"{C}/previews/{pid}", "judge").json()
    assert shown["state"] == "refused" and "validate.py: expected two integers" in shown["message"]
    assert shown["runs"] == []
    with server.storage.read() as r:
        (version,) = r.problem_versions("sum")
    assert version.state == "discarded" and not Path(version.path).exists()


def package_zip(source: Path, change: Mapping[str, bytes] = {}) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for path in sorted(source.rglob("*")):
            if path.is_file():
                name = path.relative_to(source).as_posix()
                z.writestr(f"sum/{name}", change.get(name, path.read_bytes()))
    return out.getvalue()


def stored_versions(server: Server) -> tuple[int, int, list[Path]]:
    conn = sqlite3.connect(server.storage.path)
    try:
        counts = tuple(
            conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("problem_versions", "previews")
        )
    finally:
        conn.close()
    packages = server.storage.path.parent / "packages"
    files = sorted(p for p in packages.rglob("*") if p.is_file()) if packages.exists() else []
    return counts[0], counts[1], files


def odd_zip(*names: str) -> bytes:
    """The sum package with more members of these names (each holding a line)."""
    out = io.BytesIO(package_zip(FIXTURES / "sum", {}))
    with zipfile.ZipFile(out, "a") as z:
        for name in names:
            z.writestr(name, b"x\n")
    return out.getvalue()


@pytest.mark.parametrize(
    "names, message",
    [
        (("sum/a", "sum/a/b"), "'sum/a' both as a file and as a folder"),
        (("sum/data/secret",), "'sum/data/secret' both as a file and as a folder"),
        (("sum/" + "n" * 300,), "a name longer than 255 bytes"),
        ((".",), "a file without a name"),
        (("sum/x", "sum/x"), "'sum/x' twice"),
    ],
)
def test_a_zip_the_file_system_cannot_hold_is_a_400(served: tuple, names: tuple[str, ...], message: str) -> None:
    """Issue 43: a package zip holding ``a`` and ``a/b``, a 300-character member name or a member ``.`` was a
    500 with a traceback (the staging folder could not be written)."""
    server, _ = served
    api = Api.of(server)
    zip_type = {"content-type": "application/zip"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile's "Duplicate name"
        body = odd_zip(*names)
    r = api.request("POST", f"{C}/problems/sum/package", "admin", content=body, headers=zip_type)
    assert r.status_code == 400 and message in r.json()["message"], r.text
    assert "\n" not in r.json()["message"]
    assert stored_versions(server) == (0, 0, [])


def test_an_uploaded_package_is_previewed_in_full_and_a_bad_upload_stores_nothing(served: tuple) -> None:
    server, judge = served
    api = Api.of(server)
    ids = submit_three(server)
    zip_type = {"content-type": "application/zip"}
    bad_yaml = package_zip(FIXTURES / "sum", {"problem.yaml": b"name: [unclosed\n"})
    for body, status in ((b"not a zip", 400), (bad_yaml, 400), (b"", 400)):
        r = api.request("POST", f"{C}/problems/sum/package", "admin", content=body, headers=zip_type)
        assert r.status_code == status, r.text
        assert "\n" not in r.json()["message"]
        assert stored_versions(server) == (0, 0, [])
    assert api.request("POST", f"{C}/problems/sum/package", "judge", content=b"x", headers=zip_type).status_code == 403
    assert (
        api.request("POST", f"{C}/problems/nosuch/package", "admin", content=b"x", headers=zip_type).status_code == 404
    )
    # a fixed answer file (the scripted judge reads no answers): every judged submission, in full, on the new version
    fixed = package_zip(FIXTURES / "sum", {"data/secret/01.ans": b"1\n"})
    r = api.request("POST", f"{C}/problems/sum/package", "admin", content=fixed, headers=zip_type)
    assert r.status_code == 202, r.text
    assert server.previews is not None
    server.previews.run_pending()
    shown = api.get(f"{C}/previews/{r.json()['id']}", "admin").json()
    assert shown["kind"] == "package" and shown["state"] == "ready"
    assert [r["submission_id"] for r in shown["runs"]] == [str(i) for i in sorted(ids.values())]  # every one, in full
    new_hash = next(
        h for (p, h) in judge.versions if p == "sum" and h != server.contest.problem("sum").problem.content_hash
    )  # type: ignore[union-attr]
    assert judge.calls[-1].package_hash == new_hash


def test_teams_and_the_public_get_one_refusal_everywhere(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    before = {user: feed(api, user) for user in (None, "team1", "team2")}
    answers = set()
    for method, path in (
        ("POST", f"counterexamples/{ids['team2']}/add-as-test"),
        ("POST", "counterexamples/999/add-as-test"),
        ("GET", f"previews/{pid}"),
        ("GET", "previews/999"),
        ("POST", f"previews/{pid}/apply"),
        ("POST", f"previews/{pid}/discard"),
        ("POST", "previews/999/apply"),
    ):
        assert api.request(method, f"{C}/{path}").status_code == 401, path
        for team in ("team1", "team2"):
            refused = api.request(method, f"{C}/{path}", team)
            answers.add((refused.status_code, json.loads(refused.text)["code"]))
    assert answers == {(403, 403)}
    assert {user: feed(api, user) for user in before} == before
    with server.storage.read() as r:
        assert [p.state for p in r.previews()] == ["preparing"]  # nothing a team did started or changed one


def test_a_preview_resumes_where_a_cancelled_run_stopped(served: tuple) -> None:
    server, judge = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    assert server.previews is not None
    (job,) = server.previews.claim_idle(2, ())
    asked = iter([False, True])  # one submission, then real work waits
    job.run(lambda: next(asked))
    assert api.get(f"{C}/previews/{pid}", "judge").json()["state"] == "running"
    assert len(api.get(f"{C}/previews/{pid}", "judge").json()["runs"]) == 1
    assert server.previews.claim_idle(2, {job.key}) == []  # busy: not claimed twice
    calls = len(judge.calls)
    server.previews.run_pending()
    assert len(judge.calls) == calls + 1  # only the one not run yet
    assert api.get(f"{C}/previews/{pid}", "judge").json()["state"] == "ready"


def test_the_pages_add_as_test_show_the_preview_and_apply_it(served: tuple) -> None:
    server, _ = served
    ids = submit_three(server)
    cid = counterexample_of(server, ids["team2"])
    judge = login(server, "judge")
    token = csrf_of(judge.get("/admin").text)
    asked = judge.post(f"/admin/counterexamples/{cid}/add-as-test", data={"csrf": token})  # not confirmed
    assert asked.status_code == 200 and f"Add the input of counterexample {cid} as a new secret test" in asked.text
    with server.storage.read() as r:
        assert r.previews() == []  # nothing started
    started = judge.post(f"/admin/counterexamples/{cid}/add-as-test", data={"csrf": token, "confirmed": "yes"})
    assert started.status_code == 303
    url = started.headers["location"]
    assert url.startswith("/admin/previews/")
    page = judge.get(url)
    assert page.status_code == 200 and "preparing" in page.text and "data-live=" in page.text
    assert server.previews is not None
    server.previews.run_pending()
    shown = judge.get(url + "?fragment=1").text
    assert f'id="run-{ids["team2"]}" class="changes"' in shown and f'id="run-{ids["team1"]}">' in shown
    assert f"secret/fuzz-{cid}" in shown and "data-live-done" in shown and 'id="preview-board"' in shown
    assert 'id="apply"' not in shown  # a judge starts previews; admins apply them
    admin = login(server, "admin")
    page = admin.get(url).text
    assert 'id="apply"' in page and "rejudge 1 submission(s)" in page
    asked = admin.post(url + "/apply", data={"csrf": csrf_of(page)})
    assert asked.status_code == 200 and "rejudged" in asked.text and server.judging.pending() == 0
    applied = admin.post(url + "/apply", data={"csrf": csrf_of(page), "confirmed": "yes"})
    assert applied.status_code == 303 and applied.headers["location"] == url
    assert "applied" in admin.get(url).text and server.judging.pending() == 1
    team = login(server, "team2")
    for path in (url, "/admin/problems/sum/package", "/admin/problems/sum/package.zip"):
        assert team.get(path).status_code == 403, path
    refused = team.post(f"/admin/counterexamples/{cid}/add-as-test", data={"csrf": csrf_of(team.get("/submit").text)})
    assert refused.status_code == 403


def test_an_input_already_a_test_shows_added_and_is_not_added_twice(served: tuple) -> None:
    """Issue 43: a second counterexample with the input of one already added as a test said "not added" and
    offered "Add as test", which made a package version with the same test twice (docs/live-fuzzing.md: it
    shows "added"). Nor may an input that is already one of the package's own tests be added."""
    server, _ = served
    ids = submit_three(server)
    api = Api.of(server)
    first = counterexample_of(server, ids["team2"])
    pid = start(api, first)
    assert server.previews is not None
    server.previews.run_pending()
    assert api.request("POST", f"{C}/previews/{pid}/apply", "admin").status_code == 202
    second = counterexample_of(server, ids["team2"])  # found again (another fuzz job), the same bytes
    with server.storage.read() as r:
        versions = len(r.problem_versions("sum"))
    listed = {str(c["id"]): c for c in api.get(f"{C}/counterexamples", "judge").json()}
    assert listed[str(second)]["added_as"] == listed[str(first)]["added_as"] == f"secret/fuzz-{first}"
    judge = login(server, "judge")
    row = judge.get("/admin/fuzzing?fragment=1").text.split(f'id="counterexample-{second}"')[1].split("</tr>")[0]
    assert "added" in row and "not added" not in row
    page = judge.get(f"/admin/counterexamples/{second}").text
    assert 'id="add-test"' not in page and f"secret/fuzz-{first}" in page
    r = api.request("POST", f"{C}/counterexamples/{second}/add-as-test", "judge")
    assert r.status_code == 409 and f"secret/fuzz-{first}" in r.json()["message"]
    token = csrf_of(judge.get("/admin").text)
    r = judge.post(f"/admin/counterexamples/{second}/add-as-test", data={"csrf": token, "confirmed": "yes"})
    assert r.status_code == 409
    own = counterexample_of(server, ids["team2"], (FIXTURES / "sum" / "data" / "secret" / "01.in").read_bytes())
    r = api.request("POST", f"{C}/counterexamples/{own}/add-as-test", "judge")
    assert r.status_code == 409 and "secret/01" in r.json()["message"]
    with server.storage.read() as r:
        assert len(r.problem_versions("sum")) == versions  # no package version made


def test_the_upload_form_refuses_a_bad_zip_with_one_line_and_stores_nothing(served: tuple) -> None:
    server, _ = served
    admin = login(server, "admin")
    form = admin.get("/admin/problems/sum/package")
    assert form.status_code == 200 and "Current version: 1" in form.text
    sent = admin.post(
        "/admin/problems/sum/package",
        data={"csrf": csrf_of(form.text)},
        files={"package": ("sum.zip", b"not a zip at all")},
    )
    assert sent.status_code == 400 and 'id="error"' in sent.text and "not a readable zip archive" in sent.text
    assert stored_versions(server) == (0, 0, [])
    good = admin.post(
        "/admin/problems/sum/package",
        data={"csrf": csrf_of(form.text)},
        files={"package": ("sum.zip", package_zip(FIXTURES / "sum"))},
    )
    assert good.status_code == 303 and good.headers["location"].startswith("/admin/previews/")


def test_a_server_that_judges_elsewhere_makes_no_versions(tmp_path: Path) -> None:
    server = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + HOUR))  # no VersionTools: a cluster's
    try:
        api = Api.of(server)
        cid = counterexample_of(server, 1)
        zip_type = {"content-type": "application/zip"}
        for r in (
            api.request("POST", f"{C}/counterexamples/{cid}/add-as-test", "admin"),
            api.request("POST", f"{C}/problems/sum/package", "admin", content=b"PK", headers=zip_type),
        ):
            assert r.status_code == 409 and "(a cluster)" in r.json()["message"], r.text
        assert stored_versions(server) == (0, 0, [])
    finally:
        server.close()


def test_a_new_test_before_the_one_a_submission_fails_is_run_on_it_too(tmp_path: Path) -> None:
    """Judging order: ``secret/fuzz-<n>`` comes before ``secret/huge``, so a submission that is TLE on
    ``huge`` may now fail earlier, on the new test (WA): it is previewed and rejudged; one that fails an
    earlier test (01) cannot change and is not run."""
    root = write_contest(tmp_path / "contest", scoreboard_type="pass-fail")
    package = root / "problems" / "sum"
    shutil.copytree(FIXTURES / "sum", package)
    (package / "data" / "secret" / "huge.in").write_bytes(b"1000000000 1\n")
    (package / "data" / "secret" / "huge.ans").write_bytes(b"1000000001\n")
    server, _ = open_contest(root, FakeClock(T0 + HOUR))
    try:
        api = Api.of(server)
        ids = submit_three(server)  # team3: SUM_WA, WA at 01
        slow = api.submit("team3", files={"sum.py": SUM_WEAK.replace("weak", "slow")}).json()["id"]
        server.judging.run_pending()
        assert verdicts(server)[int(slow)] == [("TLE", True)]
        pid = start(api, counterexample_of(server, ids["team2"]))
        assert server.previews is not None
        server.previews.run_pending()
        shown = api.get(f"{C}/previews/{pid}", "judge").json()
        runs = {r["submission_id"]: (r["verdict_before"], r["verdict_after"], r["failing_test"]) for r in shown["runs"]}
        assert str(ids["team3"]) not in runs  # fails 01, before the new test: cannot change
        assert runs[slow] == ("TLE", "WA", shown["test_name"])
        assert runs[str(ids["team2"])] == ("AC", "WA", shown["test_name"])
        assert runs[str(ids["team1"])] == ("AC", "AC", None)
        applied = api.request("POST", f"{C}/previews/{pid}/apply", "admin").json()
        assert sorted(applied["submission_ids"]) == sorted([str(ids["team2"]), slow])
    finally:
        server.close()


def test_a_preview_discarded_while_its_test_is_made_leaves_no_files(served: tuple) -> None:
    server, judge = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    admin = Viewer(Role.ADMIN, account_id="admin", username="admin")

    def answer_while_discarded(problem: Problem, test_input: bytes) -> bytes:
        previews.discard(server, admin, int(pid), T0 + HOUR)  # the admin clicks Discard meanwhile
        return judge.answer(problem, test_input)

    assert server.previews is not None
    server.previews.tools = VersionTools(register=judge.register, make_answer=answer_while_discarded)
    server.previews.run_pending()
    assert api.get(f"{C}/previews/{pid}", "admin").json()["state"] == "discarded"
    assert stored_versions(server)[2] == []  # no file left behind


def test_applying_a_version_that_cannot_be_read_is_one_line(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    assert server.previews is not None
    server.previews.run_pending()
    with server.storage.read() as r:
        (version,) = r.problem_versions("sum")
    (Path(version.path) / "problem.yaml").write_text("name: [broken\n")
    refused = api.request("POST", f"{C}/previews/{pid}/apply", "admin")
    assert refused.status_code == 409 and refused.json()["message"].startswith("version 2 cannot be read: ")
    assert server.judging.pending() == 0 and api.get(f"{C}/previews/{pid}", "admin").json()["state"] == "ready"


def test_a_preview_is_applied_only_when_it_covers_every_judged_submission(served: tuple) -> None:
    server, _ = served
    api = Api.of(server)
    ids = submit_three(server)
    pid = start(api, counterexample_of(server, ids["team2"]))
    assert server.previews is not None
    server.previews.run_pending()
    late = api.submit("team3", files={"sum.py": SUM_WEAK}).json()["id"]  # after the preview ran
    busy = api.request("POST", f"{C}/previews/{pid}/apply", "admin")
    assert busy.status_code == 409 and busy.json()["message"].startswith("1 submission(s) of sum are being judged")
    server.judging.run_pending()
    again = api.request("POST", f"{C}/previews/{pid}/apply", "admin")
    assert again.status_code == 409 and "it runs again on them" in again.json()["message"]
    assert api.get(f"{C}/previews/{pid}", "admin").json()["state"] == "running"
    server.previews.run_pending()
    shown = api.get(f"{C}/previews/{pid}", "admin").json()
    assert shown["state"] == "ready" and late in [r["submission_id"] for r in shown["runs"]]
    applied = api.request("POST", f"{C}/previews/{pid}/apply", "admin")
    assert applied.status_code == 202 and sorted(applied.json()["submission_ids"]) == sorted([str(ids["team2"]), late])
