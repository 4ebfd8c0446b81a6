"""Live fuzzing's jury-only extension endpoint (issue 33, docs/live-fuzzing.md), through the real app:
the jury reads the counterexamples; a team and the public are refused, and nothing of them is in anyone's
event feed. (The counterexample is stored as the fuzzing will store it: the fuzz jobs are the next slice.)"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_fixtures import HOUR, T0, Api, FakeClock, feed, make_server, write_contest

from judge.serve.model.records import Counterexample
from judge.serve.site.server import Server

C = "/api/contests/test"
WRONG = Counterexample("sum", 1, 1, b"2\n1 \xff\n", b"3\n", b"4\n", "WA", "expected 3, got 4", True, T0 + HOUR)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = make_server(write_contest(tmp_path / "contest"), FakeClock(T0 + 2 * HOUR))
    yield s
    s.close()


def stored(server: Server, c: Counterexample) -> int:
    with server.storage.write() as w:
        return w.add_counterexample(c)


def test_the_jury_reads_the_counterexamples_newest_first(server: Server) -> None:
    api = Api.of(server)
    first = stored(server, WRONG)
    second = stored(server, Counterexample("hello", 2, 2, b"x\n", b"y\n", None, "RTE", "exit 1", False, T0 + HOUR))
    for user in ("judge", "admin"):
        listed = api.get(f"{C}/counterexamples", user)
        assert listed.status_code == 200, listed.text
        assert [(c["id"], c["problem_id"], c["verdict"]) for c in listed.json()] == [
            (str(second), "hello", "RTE"),
            (str(first), "sum", "WA"),
        ]
        assert "input" not in listed.json()[0]  # the list is small: sizes, not contents
        assert listed.json()[1]["input_size"] == len(WRONG.input) and listed.json()[0]["output_size"] is None
        only = api.get(f"{C}/counterexamples", user, params={"problem_id": "sum"}).json()
        assert [c["id"] for c in only] == [str(first)]
        one = api.get(f"{C}/counterexamples/{first}", user).json()
        assert base64.b64decode(one["input"]) == WRONG.input and base64.b64decode(one["answer"]) == WRONG.answer
        assert base64.b64decode(one["output"]) == WRONG.output and one["message"] == WRONG.message
        assert api.get(f"{C}/counterexamples/{second}", user).json()["output"] is None
        for missing in (str(second + 1), "x", "1" * 30):
            assert api.get(f"{C}/counterexamples/{missing}", user).status_code == 404, missing


def test_teams_and_the_public_see_nothing_of_it(server: Server) -> None:
    api = Api.of(server)
    before = {user: feed(api, user) for user in (None, "team1", "team2", "judge")}
    cid = stored(server, WRONG)
    answers = set()
    for path in ("counterexamples", f"counterexamples/{cid}", "counterexamples/999", "fuzzing", "fuzzing/jobs"):
        assert api.get(f"{C}/{path}").status_code == 401, path
        for team in ("team1", "team2"):  # team1's submission or not, stored or not: one refusal, nothing told
            refused = api.get(f"{C}/{path}", team)
            answers.add((refused.status_code, refused.text))
    assert len(answers) == 1 and next(iter(answers))[0] == 403, answers
    assert {user: feed(api, user) for user in before} == before  # no event, for anyone
