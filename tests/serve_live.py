"""A `judge serve` app on a real socket for the tests that need one (a streaming feed, a body sent slowly,
a request whose body is never sent): uvicorn in a thread of this process, on a free loopback port, stopped
when the block ends."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette


@contextlib.contextmanager
def listening(app: Starlette) -> Iterator[tuple[str, int]]:
    """Serve ``app`` on 127.0.0.1; yields (host, port)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    uv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(400):
            if uv.started:
                break
            threading.Event().wait(0.05)
        assert uv.started, "the test server did not start"
        yield "127.0.0.1", port
    finally:
        uv.should_exit = True
        thread.join(timeout=10)
        sock.close()
