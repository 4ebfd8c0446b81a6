"""The interactive proxy's record of which side's output ended first (runner/interactive.py): the order one
thread saw, exact whatever the launchers' clocks say. No programs are started: four plain pipes."""

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
