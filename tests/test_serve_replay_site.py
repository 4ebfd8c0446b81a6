"""Issue 44: `judge serve --replay A.zip B.zip` serves several finished contests' archives as one read-only
site: ``/api/contests`` lists them in the order given, each contest's documents and feed are byte for byte
those of its one-archive replay, ``/`` is a chooser and each contest's board is at ``/contests/<cid>/``;
an unknown path is a page for a browser (outside /api), JSON otherwise; two archives of one contest id are
refused (exit 2, one line). The archives are made as tests/test_serve_export.py makes one: a contest run to
the end, finalized, thawed, exported."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from serve_fixtures import FIXTURES, Api, write_contest
from test_serve_export import START, run_contest
from test_serve_process import free_port, wait_for

from judge.commands.cli import main
from judge.serve.http.replay import create_replay_app
from judge.serve.model.times import parse_time
from judge.serve.services.lifecycle.replay import PUBLIC, ReplayError, load_replay, load_replays

ROOT = Path(__file__).parent.parent
PRACTICE_START = "2019-12-31T09:30:00Z"  # the day before the main contest (START)
BROWSER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
BOARD = re.compile(r'<table class="board[^"]*" id="replay-board">.*?</table>', re.S)


def make_archives(folder: Path) -> dict[str, Path]:
    """Two finished contests' archives: ``practice`` (a day before) and ``test`` (the main contest); and
    ``test-again``, the main contest exported a second time (unpacked into a folder: another archive of the
    same contest id)."""
    practice = write_contest(folder / "practice", start=PRACTICE_START, scoreboard_type="pass-fail")
    text = (practice / "contest.yaml").read_text()
    (practice / "contest.yaml").write_text(text.replace("id: test", "id: practice").replace("Test contest", "Practice"))
    run_contest(practice, finalize=True, cid="practice", t0=parse_time(PRACTICE_START, "start"))
    contest = write_contest(folder / "c", start=START, scoreboard_type="pass-fail", extra=("medals: {gold: 1}",))
    run_contest(contest, finalize=True)
    out = {"practice": folder / "practice.zip", "test": folder / "test.zip", "test-again": folder / "again"}
    for name, root in (("practice", practice), ("test", contest), ("test-again", contest)):
        assert main(["contest", "export", str(root), str(out[name]), "--problems", str(FIXTURES)]) == 0
    return out


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_archives(tmp_path_factory.mktemp("archives"))


@pytest.fixture(scope="module")
def site(archives: dict[str, Path]) -> Api:
    return Api(create_replay_app(*load_replays([archives["practice"], archives["test"]])))


def paths_of(alone: Api, cid: str) -> list[str]:
    """Every document of a contest's replay: the contest, access, each endpoint and each of its objects, the
    feed (all of it and from a token), and a few that are not there."""
    c = f"/api/contests/{cid}"
    paths = [c, f"{c}/access", f"{c}/event-feed", f"{c}/event-feed?since_token=5", f"{c}/event-feed?since_token=x"]
    for kind in (*PUBLIC, "runs", "accounts", "nothing"):
        paths.append(f"{c}/{kind}")
        body = alone.get(f"{c}/{kind}").json()
        if isinstance(body, list):
            paths += [f"{c}/{kind}/{o['id']}" for o in body]
        paths.append(f"{c}/{kind}/nobody")
    return paths


def test_two_archives_serve_each_contest_as_its_own_replay(archives: dict[str, Path], site: Api) -> None:
    alone = {cid: Api(create_replay_app(load_replay(archives[cid]))) for cid in ("practice", "test")}
    contests = site.get("/api/contests")
    assert contests.status_code == 200
    assert [c["id"] for c in contests.json()] == ["practice", "test"]  # in the order given
    assert contests.json() == [alone[cid].get("/api/contests").json()[0] for cid in ("practice", "test")]
    assert site.get("/api").content == alone["practice"].get("/api").content
    for cid, api in alone.items():
        paths = paths_of(api, cid)
        assert len(paths) > 30
        for path in paths:
            mine, theirs = site.get(path), api.get(path)
            assert mine.status_code == theirs.status_code, path
            assert mine.headers["content-type"] == theirs.headers["content-type"], path
            assert mine.content == theirs.content, path
    # each contest's own documents, not the other's
    assert site.get("/api/contests/practice/state").json() != site.get("/api/contests/test/state").json()
    assert site.get("/api/contests/nope/state").status_code == 404
    assert site.get("/api/contests/nope").json()["message"] == "no contest 'nope'"
    reversed_site = Api(create_replay_app(*load_replays([archives["test"], archives["practice"]])))
    assert [c["id"] for c in reversed_site.get("/api/contests").json()] == ["test", "practice"]


def test_every_other_method_is_refused(site: Api) -> None:
    for path in ("/", "/contests/test/", "/api/contests", "/api/contests/test/submissions", "/api/contests/test"):
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            r = site.request(method, path, json={})
            assert r.status_code == 405, (method, path)
            assert r.json()["message"] == f"{method}: a replay is read-only"


def test_the_chooser_and_each_contests_board(archives: dict[str, Path], site: Api) -> None:
    page = site.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    rows = re.findall(r'<tr data-contest="([^"]+)">(.*?)</tr>', page.text, re.S)
    assert [cid for cid, _ in rows] == ["practice", "test"]
    practice, main_contest = (row for _, row in rows)
    assert '<a href="/contests/practice/">Practice</a>' in practice
    assert "2019-12-31 09:30 UTC" in practice and "2019-12-31 14:30 UTC" in practice
    assert '<a href="/contests/test/">Test contest</a>' in main_contest
    assert "2020-01-01 10:00 UTC" in main_contest and "2020-01-01 15:00 UTC" in main_contest
    assert 'href="/api/contests"' in page.text and 'id="replay-contests-link"' not in page.text
    for cid in ("practice", "test"):
        alone = Api(create_replay_app(load_replay(archives[cid]))).get("/").text
        board = site.get(f"/contests/{cid}/")
        assert board.status_code == 200 and board.headers["content-type"].startswith("text/html")
        table = BOARD.search(board.text)
        assert table is not None and table.group(0) == BOARD.findall(alone)[0]  # the one-archive board's
        assert f'The Contest API is under <a href="/api/contests/{cid}">' in board.text
        assert '<a href="/" id="replay-contests-link">' in board.text  # back to the chooser
        for same in (f"/contests/{cid}", f"/contests/{cid}/scoreboard"):
            assert site.get(same).text == board.text
    assert "Gold medal winner" in site.get("/contests/test/").text
    assert "Gold medal winner" not in site.get("/contests/practice/").text  # no medals in its contest.yaml
    assert site.get("/scoreboard").status_code == 404  # one archive's URL: in a site, each board is its contest's


@pytest.mark.parametrize("several", [False, True])
def test_an_unknown_path_is_a_page_for_a_browser_and_json_otherwise(
    archives: dict[str, Path], site: Api, several: bool
) -> None:
    api = site if several else Api(create_replay_app(load_replay(archives["test"])))
    page = api.get("/nowhere/at/all", headers=BROWSER)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert '<p class="warning" id="error">there is no page /nowhere/at/all</p>' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    home = "All contests" if several else "The final standings"
    assert f'<a href="/" id="replay-home">{home}</a>' in page.text
    # a board of another URL scheme: /contests/<cid>/ only with several archives, / only with one
    other = api.get("/contests/nope/" if several else "/contests/test/", headers=BROWSER)
    assert other.status_code == 404 and other.headers["content-type"].startswith("text/html")
    if several:
        assert "there is no contest &#39;nope&#39; in this replay" in other.text
    # the API and clients that do not ask for a page: JSON, as before
    for path, headers in (("/nowhere", {}), ("/api/nowhere", BROWSER), ("/api/contests/nope", BROWSER)):
        r = api.get(path, headers=headers)
        assert r.status_code == 404 and r.headers["content-type"] == "application/json", path
        assert r.json()["code"] == 404


def test_archives_of_one_contest_are_refused(archives: dict[str, Path]) -> None:
    with pytest.raises(ReplayError, match=r"contest 'test' is also .*test\.zip's"):
        load_replays([archives["practice"], archives["test"], archives["test-again"]])
    one = load_replay(archives["test"])
    with pytest.raises(ValueError):
        create_replay_app(one, one)
    with pytest.raises(ValueError):
        create_replay_app()
    for argv in (
        ["--replay", str(archives["test"]), "--replay", str(archives["test-again"])],
        ["--replay", str(archives["practice"]), str(archives["test"]), str(archives["test"])],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "judge", "serve", *argv, "--port", str(free_port())],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "contest 'test' is also" in lines[0], proc.stderr
        assert proc.stdout == ""


def test_the_command_serves_several_archives(archives: dict[str, Path], tmp_path: Path) -> None:
    """The real entry point: `--replay A B` (one option, several archives), on a loopback port."""
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "judge", "serve", "--replay", str(archives["practice"]), str(archives["test"])]
            + ["--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)),
            stdin=subprocess.DEVNULL,
        )
    try:
        base = f"http://127.0.0.1:{port}"

        def contests() -> list[str] | None:
            try:
                return [c["id"] for c in httpx.get(f"{base}/api/contests", timeout=5).json()]
            except httpx.HTTPError:
                return None

        assert wait_for("the replay", contests) == ["practice", "test"]
        assert 'data-contest="practice"' in httpx.get(f"{base}/", timeout=5).text
        assert httpx.get(f"{base}/contests/test/scoreboard", timeout=5).status_code == 200
        assert httpx.post(f"{base}/api/contests/test/submissions", json={}, timeout=5).status_code == 405
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert "replay of contests 'practice', 'test' (read-only) at http://127.0.0.1:" in log.read_text()


def test_a_contest_id_that_is_not_an_api_id_is_refused(archives: dict[str, Path], tmp_path: Path) -> None:
    """The id is in the pages' URLs (/contests/<cid>/): an archive whose contest.json says otherwise is
    refused, one line."""
    folder = tmp_path / "odd"
    folder.mkdir()
    for f in archives["test-again"].iterdir():
        if f.is_file():
            (folder / f.name).write_bytes(f.read_bytes())
    contest = json.loads((folder / "contest.json").read_text())
    (folder / "contest.json").write_text(json.dumps({**contest, "id": "a/b"}))
    with pytest.raises(ReplayError, match=r"contest.json's id 'a/b' is not a Contest API id"):
        load_replay(folder)
