"""Clarifications kept across a SIGKILL: a real `judge serve` process takes a team's question, the jury's
answer and a stream of announcements; it is killed with SIGKILL while announcements are being posted and
started again: every acknowledged clarification is there, with its id, in the API and in the event feed
(once each), and the answer still links to the question for the asking team."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

import httpx
from serve_fixtures import PASSWORDS
from test_serve_process import Serve, contest, wait_for  # noqa: F401 - fixtures


def post(server: Serve, user: str, **body: Any) -> httpx.Response:
    return httpx.post(server.url("clarifications"), json=body, auth=(user, PASSWORDS[user]), timeout=30)


def feed_clarifications(server: Serve, user: str) -> list[dict[str, Any]]:
    r = httpx.get(server.url("event-feed"), params={"stream": "false"}, auth=(user, PASSWORDS[user]), timeout=30)
    return [e for e in map(json.loads, r.text.splitlines()) if e["type"] == "clarifications"]


def test_every_acknowledged_clarification_survives_a_sigkill(
    contest: Path,  # noqa: F811 - the fixture
    tmp_path: Path,
    servers: list[Serve],  # noqa: F811
) -> None:
    log = tmp_path / "serve.log"
    server = Serve(contest, log)
    servers.append(server)
    question = post(server, "team1", text="Is n positive?", problem_id="sum").json()
    answer = post(server, "judge", text="Yes.", reply_to_id=question["id"]).json()
    acknowledged = [question["id"], answer["id"]]
    stop = threading.Event()

    def announce() -> None:
        n = 0
        while not stop.is_set():
            try:
                r = post(server, "admin", text=f"announcement {n}")
            except httpx.TransportError:
                return  # killed
            if r.status_code == 201:
                acknowledged.append(r.json()["id"])
            n += 1

    poster = threading.Thread(target=announce)
    poster.start()
    wait_for("some announcements", lambda: len(acknowledged) >= 12)
    assert server.kill(signal.SIGKILL) == -signal.SIGKILL
    stop.set()
    poster.join()

    again = Serve(contest, log)
    servers.append(again)
    stored = [c["id"] for c in again.get("clarifications")]
    assert set(acknowledged) <= set(stored)
    assert len(stored) - len(acknowledged) <= 1  # at most the one whose answer the kill cut off
    assert [e["id"] for e in feed_clarifications(again, "admin")] == stored  # each once, in the order sent
    mine = {c["id"]: c for c in again.get("clarifications", "team1")}
    assert mine[answer["id"]]["reply_to_id"] == question["id"]
    assert post(again, "team1", text="Still open after the restart?").status_code == 201
    assert again.kill(signal.SIGTERM) == 143
