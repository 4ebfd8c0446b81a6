"""The fuzzer's run slots: at most N runs at once, and a slot given back to a waiting search is held
by the giver until that search's program has started (judge.fuzz.handover). No processes, no timing."""

from __future__ import annotations

import threading
import time

import pytest

import judge.fuzz.handover
from judge.fuzz.handover import RunSlots


@pytest.fixture(autouse=True)
def patient(monkeypatch: pytest.MonkeyPatch) -> None:
    # the giver's wait must not run out on a loaded machine: the order below is then exact
    monkeypatch.setattr(judge.fuzz.handover, "HANDOVER_WAIT_S", 60.0)


def _until(condition: object) -> None:
    while not condition():  # type: ignore[operator]
        time.sleep(0.001)


def test_a_slot_is_handed_over_to_a_waiting_search() -> None:
    events: list[str] = []
    slots = RunSlots(1)
    done = threading.Event()

    def taker() -> None:
        with slots.run() as started:
            events.append("taker started")
            started()
            done.wait()

    with slots.run() as started:
        started()
        thread = threading.Thread(target=taker)
        thread.start()
        _until(lambda: slots.waiting == 1)
        events.append("giver ends its run")
    events.append("giver goes on")
    done.set()
    thread.join()
    assert events == ["giver ends its run", "taker started", "giver goes on"]


def test_a_slot_is_given_back_when_the_program_ends_before_the_run_is_over() -> None:
    events: list[str] = []
    slots = RunSlots(1)

    def taker() -> None:
        with slots.run() as turn:
            events.append("taker started")
            turn()

    with slots.run() as turn:
        turn()
        thread = threading.Thread(target=taker)
        thread.start()
        _until(lambda: slots.waiting == 1)
        events.append("giver's program ends")
        turn.ended()
        events.append("giver collects its result")
        turn.ended()  # once only: the slot is not given back twice
    thread.join()
    assert events == ["giver's program ends", "taker started", "giver collects its result"]
    assert slots.free == 1


def test_a_run_that_never_starts_hands_over_when_it_ends() -> None:
    slots = RunSlots(1)
    events: list[str] = []

    def taker() -> None:
        with slots.run():
            events.append("taker's run fails before starting")

    with slots.run() as started:
        started()
        thread = threading.Thread(target=taker)
        thread.start()
        _until(lambda: slots.waiting == 1)
    events.append("giver goes on")
    thread.join()
    assert events == ["taker's run fails before starting", "giver goes on"]


def test_no_handover_without_a_waiting_search_and_at_most_n_runs() -> None:
    slots = RunSlots(2)
    inside = 0
    most = 0
    lock = threading.Lock()

    def one() -> None:
        nonlocal inside, most
        for _ in range(50):
            with slots.run() as started:
                with lock:
                    inside += 1
                    most = max(most, inside)
                started()
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most <= 2
    with slots.run():  # nobody waits: giving back does not block
        pass
    assert slots.waiting == 0
