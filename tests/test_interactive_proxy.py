"""The interactive proxy's record of which side's output ended first, and of a rejection that came before
the program's output ended (runner/interactive.py): the order one thread saw, or one lock, never the
launchers' clocks. No programs are started: four plain pipes."""

from __future__ import annotations

import os

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
