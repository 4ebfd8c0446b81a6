"""The contest package archive round-trips: a pass-fail contest run to the end, finalized and thawed, exported by
`judge contest export DIR OUT` (and the admin download), holds every file the spec's contest package lists
(accounts without passwords, each submission's files), and `judge serve --replay` serves from it the same
scoreboard, awards and judgements as the live server did, read-only and as the public sees them."""

from __future__ import annotations

import base64
import io
import json
import re
import stat
import zipfile
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, Api, FakeClock, make_server, write_contest
from spec_shapes import AWARDS, SCOREBOARD, errors
from test_serve_pages import login
from test_serve_passfail import MarkedJudge, source

from judge.commands.cli import main
from judge.serve.http.replay import create_replay_app
from judge.serve.model.contest import load_contest
from judge.serve.model.times import format_time, parse_time
from judge.serve.model.upload import pack
from judge.serve.services.lifecycle.replay import ReplayError, load_replay

START = "2020-01-01T10:00:00Z"  # in the past: the export (the real clock) sees the contest ended
T0 = parse_time(START, "T0")
C = "/api/contests/test"
FILES = {
    "api.json",
    "contest.json",
    "state.json",
    "judgement-types.json",
    "languages.json",
    "problems.json",
    "groups.json",
    "organizations.json",
    "teams.json",
    "accounts.json",
    "submissions.json",
    "judgements.json",
    "runs.json",
    "clarifications.json",
    "awards.json",
    "scoreboard.json",
    "event-feed.ndjson",
}


def upload(files: dict[str, str]) -> str:
    """A submission's ``files[0].data``: the files zipped, in base64."""
    return base64.b64encode(pack({k: v.encode() for k, v in files.items()})).decode()


def run_contest(
    root: Path, *, finalize: bool, thaw: bool = True, cid: str = "test", t0: float = T0
) -> dict[str, object]:
    """Submissions, a question and an answer to it alone, an announcement; the end; finalize, then the thaw
    (the ICPC's order). Returns what the live server answers the public then. ``cid``: the contest's id,
    ``t0``: its start."""
    c = f"/api/contests/{cid}"
    clock = FakeClock(t0)
    judge = MarkedJudge({p.id: p.problem for p in load_contest(root, FIXTURES).problems})
    server = make_server(root, clock, judge)
    try:
        api = Api.of(server)
        for minute, team, problem, verdict in [
            (10, "team1", "sum", "AC"),
            (20, "team2", "sum", "WA"),
            (30, "team2", "sum", "AC"),
            (250, "team3", "divisor", "AC"),  # in the freeze
        ]:
            clock.t = t0 + minute * 60
            body = {"problem_id": problem, "language_id": "python3", "files": [{"data": upload(source(verdict))}]}
            assert api.request("POST", f"{c}/submissions", team, json=body).status_code == 201
            server.judging.run_pending()
        q = api.request("POST", f"{c}/clarifications", "team1", json={"text": "Is n > 0?"}).json()
        api.request(
            "POST",
            f"{c}/clarifications",
            "judge",
            json={"text": "Yes.", "reply_to_id": q["id"], "to_team_ids": ["team1"]},
        )
        api.request("POST", f"{c}/clarifications", "judge", json={"text": "B's sample 2 is fixed."})
        clock.t = t0 + 301 * 60
        if finalize:
            assert api.request("POST", f"{c}/finalize", "admin").status_code == 200
        if thaw:
            body = {"id": cid, "scoreboard_thaw_time": format_time(clock.now())}
            assert api.request("PATCH", c, "admin", json=body).status_code == 200
        download = login(server, "admin").get("/admin/contest-package.zip")  # the admin page's download
        with zipfile.ZipFile(io.BytesIO(download.content)) as zf:
            assert FILES <= set(zf.namelist())
        return {
            k: api.get(f"{c}/{k}").json() for k in ("scoreboard", "awards", "judgements", "state", "clarifications")
        }
    finally:
        server.close()


@pytest.fixture
def contest(tmp_path: Path) -> Path:
    return write_contest(tmp_path / "c", start=START, scoreboard_type="pass-fail", extra=("medals: {gold: 1}",))


def test_export_holds_every_file_and_replays_the_same(contest: Path, tmp_path: Path) -> None:
    live = run_contest(contest, finalize=True)
    out = tmp_path / "archive.zip"
    assert main(["contest", "export", str(contest), str(out), "--problems", str(FIXTURES)]) == 0
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert FILES <= names
        assert {f"submissions/{i}/files.zip" for i in range(1, 5)} <= names
        accounts = json.loads(zf.read("accounts.json"))
        assert {a["username"] for a in accounts} == {"team1", "team2", "team3", "judge", "admin"}
        assert all("password" not in a for a in accounts)
        assert errors(AWARDS, json.loads(zf.read("awards.json"))) == []
        assert json.loads(zf.read("state.json"))["finalized"] is not None
        last = zf.read("event-feed.ndjson").decode().splitlines()[-1]
        assert json.loads(last)["data"]["end_of_updates"] is not None
    folder = tmp_path / "unpacked"
    assert main(["contest", "export", str(contest), str(folder), "--problems", str(FIXTURES)]) == 0
    assert FILES <= {p.name for p in folder.iterdir()}
    # every team's code is in it: owner-only (issue 43: the archive was 0644, the folder's files too)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    modes = {p.relative_to(folder).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in [folder, *folder.rglob("*")]}
    assert modes["submissions/1/files.zip"] == 0o600 and modes["submissions/1"] == 0o700
    assert {m for m in modes.values()} == {0o600, 0o700}, modes
    assert all(m == 0o700 for k, m in modes.items() if (folder / k).is_dir())

    for archive in (out, folder):
        api = Api(create_replay_app(load_replay(archive)))
        board = api.get(f"{C}/scoreboard").json()
        assert errors(SCOREBOARD, board) == []
        assert board["rows"] == live["scoreboard"]["rows"]  # type: ignore[index]
        assert board["rows"][0]["team_id"] == "team1" and len(board["rows"]) == 3
        assert api.get(f"{C}/awards").json() == live["awards"]
        assert api.get(f"{C}/judgements").json() == live["judgements"]
        assert api.get(f"{C}/state").json() == live["state"]
        # read-only, the public's view: no accounts, runs, files; only the announcement among clarifications
        assert api.request("POST", f"{C}/submissions", json={}).status_code == 405
        assert api.request("PATCH", f"{C}/awards/winner", json={}).status_code == 405
        for hidden in ("accounts", "submissions/1/files", "nothing"):
            assert api.get(f"{C}/{hidden}").status_code == 404, hidden
        assert api.get(f"{C}/runs").json() == []
        assert "accounts" not in {e["type"] for e in api.get(f"{C}/access").json()["endpoints"]}
        assert api.get(f"{C}/clarifications").json() == live["clarifications"]
        assert [c["text"] for c in api.get(f"{C}/clarifications").json()] == ["B's sample 2 is fixed."]
        feed = [json.loads(line) for line in api.get(f"{C}/event-feed").text.splitlines()]
        assert [e["token"] for e in feed] == [str(i) for i in range(1, len(feed) + 1)]
        assert {e["type"] for e in feed} >= {"contest", "state", "submissions", "judgements", "awards"}
        assert not {e["type"] for e in feed} & {"accounts", "runs"}
        assert feed[-1]["type"] == "state" and feed[-1]["data"]["end_of_updates"] is not None
        page = api.get("/").text
        assert 'id="replay-board"' in page and "Gold medal winner" in page and "Zeta" in page
        # the live board's cells (issue 43: the replay's classes matched no style): first to solve, solved, tried
        cells = re.findall(r'<tr data-team="(team\d)">.*?</tr>', page, re.S)
        assert len(cells) == 3 and page.count('class="cell pf pf-first"') == 2 and 'class="cell pf pf-solved"' in page
        assert 'class="legend small"' in page and 'href="/favicon.ico"' in page


def test_only_a_finalized_contest_is_replayed(contest: Path, tmp_path: Path) -> None:
    run_contest(contest, finalize=False)
    out = tmp_path / "archive.zip"
    assert main(["contest", "export", str(contest), str(out), "--problems", str(FIXTURES)]) == 0
    with pytest.raises(ReplayError, match="not finalized and thawed"):
        load_replay(out)
    assert main(["serve", "--replay", str(out)]) == 2
    assert main(["serve", "--replay", str(tmp_path / "nothing.zip")]) == 2
    assert main(["contest", "export", str(tmp_path), str(tmp_path / "x.zip")]) == 2  # not a contest package


def test_a_contest_finalized_but_still_frozen_is_not_replayed(tmp_path: Path) -> None:
    """Issue 43: the finalize keeps the freeze (the ceremony comes before the thaw); the archive's board is
    then the staff's, not yet the public's."""
    contest = write_contest(tmp_path / "c", start=START, scoreboard_type="pass-fail")
    state = run_contest(contest, finalize=True, thaw=False)["state"]
    assert isinstance(state, dict) and state["finalized"] and not state["thawed"] and not state["end_of_updates"]
    out = tmp_path / "archive.zip"
    assert main(["contest", "export", str(contest), str(out), "--problems", str(FIXTURES)]) == 0
    with pytest.raises(ReplayError, match="not finalized and thawed"):
        load_replay(out)
