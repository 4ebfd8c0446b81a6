"""Issue 44's golden test: a contest folder written by the release before sites (tests/fixtures/serve_v12,
schema 12) opens with the current release as a site of one contest, is upgraded in place with nothing lost,
and answers every document, extension and feed exactly as that release did; its page session still works."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from serve_fixtures import FIXTURES, Api, FakeClock, make_server
from serve_v12_fixture import answers

from judge.serve.http.pages.sessions import COOKIE
from judge.serve.storage.schema import SCHEMA_VERSION

V12 = FIXTURES / "serve_v12"


@pytest.fixture
def old_contest(tmp_path: Path) -> Path:
    root = tmp_path / "contest"
    shutil.copytree(V12, root, ignore=shutil.ignore_patterns("answers.json", "session.txt", "README.md"))
    return root


def test_a_contest_of_the_release_before_sites_opens_upgraded_and_answers_as_it_did(old_contest: Path) -> None:
    golden = json.loads((V12 / "answers.json").read_text())
    with sqlite3.connect(old_contest / "contest.sqlite") as conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (12,)
    server = make_server(old_contest, FakeClock(golden["now"]))
    try:
        assert server.storage.schema_version() == SCHEMA_VERSION
        api = Api.of(server)
        got = answers(api)
        assert got.keys() == golden["answers"].keys()
        for key, want in golden["answers"].items():
            assert got[key] == want, key
        cookie = (V12 / "session.txt").read_text().strip()
        page = api.request("GET", "/submit", cookies={COOKIE: cookie})
        assert page.status_code == 200 and '<span class="user">Zeta</span>' in page.text  # team1 (Zeta) is logged in
        assert server.judging.pending() == 1 and server.judging.run_pending() == 1
    finally:
        server.close()
    assert sorted(p.name for p in old_contest.glob("*.sqlite")) == ["contest.sqlite"]  # one database, as before
    with sqlite3.connect(old_contest / "contest.sqlite") as conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (SCHEMA_VERSION,)
