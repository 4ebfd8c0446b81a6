"""The interactive proxy's record of which side's output ended first, and of a rejection that came before
the program's output ended (runner/interactive.py): the order one thread saw, or one lock, never the
launchers' clocks. No programs are started: four plain pipes."""

from __future__ import annotations

import os
import selectors
from typing import Any

import pytest

from judge.runner.interactive import Proxy, ProxyEnds, Transcript


def _proxy() -> tuple[Proxy, int, int, list[int]]:
    """A running proxy; the write ends of the program's and the peer's output, and the read ends of what
    each side would read (kept open so the proxy's writes succeed)."""
    prog_out_r, prog_out_w = os.pipe()
    peer_in_r, peer_in_w = os.pipe()
    peer_out_r, peer_out_w = os.pipe()
    prog_in_r, prog_in_w = os.pipe()
    ends = ProxyEnds(program_out=prog_out_r, peer_in=peer_in_w, peer_out=peer_out_r, program_in=prog_in_w)
    proxy = Proxy(ends, Transcript(), output_limit=1 << 20)
    proxy.start()
    return proxy, prog_out_w, peer_out_w, [peer_in_r, prog_in_r]


@pytest.mark.parametrize("peer_first", [True, False])
def test_the_proxy_knows_whose_output_ended_first(peer_first: bool) -> None:
    proxy, prog_out, peer_out, readers = _proxy()
    try:
        os.write(peer_out, b"higher\n")
        os.write(prog_out, b"5\n")
        first, second = (peer_out, prog_out) if peer_first else (prog_out, peer_out)
        os.close(first)
        while not proxy.ended:  # the proxy has seen the first end of file before the second is closed
            proxy.join(0.01)
        os.close(second)
        proxy.join(5)
        assert not proxy.is_alive()
        assert proxy.peer_closed_first() is peer_first
        assert proxy.ended == ([1, 0] if peer_first else [0, 1])
    finally:
        proxy.stop()
        for fd in readers:
            os.close(fd)


@pytest.mark.parametrize("program_output_ended", [False, True])
def test_a_rejection_claims_first_place_only_before_the_programs_output_ended(program_output_ended: bool) -> None:
    """``claim`` (the peer has rejected) and the proxy's reading of the end of the program's output are
    ordered by one lock: whichever came first decides, and the other does not change it."""
    proxy, prog_out, peer_out, readers = _proxy()
    try:
        if program_output_ended:
            os.close(prog_out)
            while not proxy.ended:
                proxy.join(0.01)
        assert proxy.claim() is not program_output_ended
        if not program_output_ended:
            os.close(prog_out)
            while not proxy.ended:
                proxy.join(0.01)
            assert proxy.claim()  # still first: reading that end afterwards changed nothing
        os.close(peer_out)
        proxy.join(5)
        assert not proxy.is_alive()
        assert proxy.claimed is not program_output_ended
        assert proxy.ended == [0, 1]
    finally:
        proxy.stop()
        for fd in readers:
            os.close(fd)


class _CountingSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The platform's selector, counting the calls that change what it waits for and the waits."""

    def __init__(self) -> None:
        super().__init__()
        self.changes = 0
        self.waits = 0

    def register(self, *args: Any, **kwargs: Any) -> selectors.SelectorKey:
        self.changes += 1
        return super().register(*args, **kwargs)

    def unregister(self, *args: Any, **kwargs: Any) -> selectors.SelectorKey:
        self.changes += 1
        return super().unregister(*args, **kwargs)

    def modify(self, *args: Any, **kwargs: Any) -> selectors.SelectorKey:
        self.changes += 1
        return super().modify(*args, **kwargs)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        self.waits += 1
        return super().select(timeout)


def test_a_long_conversation_costs_the_proxy_one_wait_per_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 50 (the judge's own cost per test: an interactive problem's proxy): what the proxy waits for is
    registered once, not again on every wait (two system calls per end per message), and what it read is
    passed on at once, not after another wait. 200 questions and answers, each read by the other side
    before the next is sent: the transcript has them all, in order."""
    made: list[_CountingSelector] = []

    def counting() -> _CountingSelector:
        made.append(_CountingSelector())
        return made[-1]

    monkeypatch.setattr(selectors, "DefaultSelector", counting)
    proxy, prog_out, peer_out, (peer_in, prog_in) = _proxy()
    rounds = 200
    try:
        for i in range(rounds):
            os.write(prog_out, b"q%d\n" % i)
            assert os.read(peer_in, 100) == b"q%d\n" % i
            os.write(peer_out, b"a%d\n" % i)
            assert os.read(prog_in, 100) == b"a%d\n" % i
        os.close(prog_out)
        os.close(peer_out)
        proxy.join(5)
        assert not proxy.is_alive()
    finally:
        proxy.stop()
        os.close(peer_in)
        os.close(prog_in)
    (sel,) = made
    lines = proxy.transcript.finish().decode().splitlines()
    assert lines == [line for i in range(rounds) for line in (f"> q{i}", f"< a{i}")]
    assert sel.changes <= 12, sel.changes  # the two sources once, each sink now and then; not per message
    assert sel.waits <= 2 * rounds + 10, sel.waits  # a message read and passed on in one wait
