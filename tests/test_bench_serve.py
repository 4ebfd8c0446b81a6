"""bench/serve.py with several `judge serve --shared` processes (issue 51): where the load generator sends
each team's requests before and after one process is killed, and the token a reopened feed resumes from.
The run itself (processes, a throwaway cluster, the checks) is the bench's: docs/benchmarks.md."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import serve_regional  # noqa: E402

from judge.serve.model.records import Audience, EventRecord, Scope  # noqa: E402


def _run(ports: list[int]) -> serve_regional.Run:
    return serve_regional.Run(ports, {}, {})


def test_each_team_keeps_its_process_and_moves_to_the_others_when_it_is_killed() -> None:
    run = _run([1, 2, 3])
    assert [run.port_of(n) for n in range(6)] == [1, 2, 3, 1, 2, 3]  # pinned, as a sticky proxy pins it
    assert [run.board_port(n) for n in range(4)] == [1, 2, 3, 1]  # the board round robin
    run.dead.add(1)
    moved = [run.port_of(n) for n in range(0, 12, 3)]  # process 1's teams
    assert set(moved) == {2, 3}  # spread over the others, not all onto one
    assert [run.port_of(n) for n in (1, 2, 4, 5)] == [2, 3, 2, 3]  # the others' teams stay where they were
    assert {run.board_port(n) for n in range(4)} == {2, 3}


def test_one_process_alone_serves_everything() -> None:
    run = _run([7])
    assert {run.port_of(n) for n in range(5)} == {run.board_port(n) for n in range(5)} == {7}


def test_a_feed_resumes_from_the_last_events_token_whatever_its_data_says() -> None:
    data = '{"id":"5","message":"\\"token\\":\\"not this\\"","end_time":null}'
    record = EventRecord(9, "judgements", "5", data, Audience(Scope.PUBLIC), 0.0)
    line = (record.feed_head + 'tok-42"}').encode()
    assert serve_regional.feed_token(line) == "tok-42"
    assert serve_regional.feed_token(b"") is None  # the feed's keep-alive newline
