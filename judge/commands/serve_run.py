"""`judge serve`'s process around uvicorn (commands/serve.py starts it): the log lines, the listening socket,
the open-files limit, uvicorn's run (its log off the event loop, the garbage collector's frozen heap, the
switch interval, the stop that ends the event feeds) and the replay's run."""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import queue
import resource
import socket
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from judge.commands.collector import frozen_heap
from judge.commands.common import EXIT_OK, UsageError
from judge.commands.defaults import KEEP_ALIVE_S, SWITCH_INTERVAL_S

# descriptors a contest needs: each team's event feed and its browser's kept-alive connections (pages, board),
# and the server's own (database, logs, the runner's pipes, spectators and ICPC tools)
OPEN_FILES_PER_TEAM = 4
OPEN_FILES_BASE = 1024
OPEN_FILES = 65536  # the soft limit `judge serve` raises itself to (at most the hard one; more if the teams need it)


def _log(line: str) -> None:
    print(f"judge serve: {line}", file=sys.stderr, flush=True)


class _Enqueue(logging.handlers.QueueHandler):
    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        return record  # as it is: its handler formats it (uvicorn's access lines are made from its args)


@contextmanager
def _log_off_the_loop() -> Iterator[None]:
    """uvicorn's lines (one per request) are written by a thread of its own, not on the event loop: a write
    to the log gives up the GIL, and the loop waits to get it back while a worker thread draws a page."""
    listeners = []
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        if logger.handlers:
            lines: queue.SimpleQueue[logging.LogRecord] = queue.SimpleQueue()
            listeners.append(logging.handlers.QueueListener(lines, *logger.handlers, respect_handler_level=True))
            logger.handlers = [_Enqueue(lines)]
    for listener in listeners:
        listener.start()
    try:
        yield
    finally:
        for listener in listeners:
            listener.stop()  # writes what is queued


def _listen(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port}: not a port number")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def _open_files(teams: int) -> None:
    """Every connection is a descriptor, and the usual soft limit (1024) is less than 500 teams' feeds and
    kept-alive pages: raised, as servers do, to OPEN_FILES (or what the teams need, if more), at most the
    hard limit. Not to the hard limit itself, which may be a million: the jury's trusted runs (validators)
    inherit it, and some programs close every descriptor up to it. The judged programs get their own
    (Limits.open_files). A warning when even the hard limit is short of what ``teams`` may open."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = OPEN_FILES_BASE + OPEN_FILES_PER_TEAM * teams
    want = max(need, OPEN_FILES) if hard == resource.RLIM_INFINITY else min(hard, max(need, OPEN_FILES))
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            pass
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft != resource.RLIM_INFINITY and soft < need:
        _log(
            f"WARNING: this process may open {soft} files (RLIMIT_NOFILE), and {teams} teams' connections may "
            f"need {need}: raise the hard limit (`ulimit -Hn`, or LimitNOFILE= in a systemd unit)"
        )


def _replay(args: argparse.Namespace) -> int:
    """`judge serve --replay ARCHIVE [ARCHIVE ...]`: finished contests, read-only (services/lifecycle/replay.py)."""
    import uvicorn

    from judge.serve.http.replay import create_replay_app
    from judge.serve.services.lifecycle.replay import ReplayError, load_replays

    if args.contest_dir is not None:
        raise UsageError("--replay ARCHIVE serves the archive: give no CONTEST_DIR")
    try:
        replays = load_replays([Path(a) for a in args.replay])
    except ReplayError as exc:
        raise UsageError(str(exc)) from None
    sock = _listen(args.host, args.port)
    host, port = sock.getsockname()[:2]
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    if len(replays) == 1:
        _log(f"replay of contest {replays[0].contest_id!r} (read-only) at {base}/ , API at /api")
    else:
        ids = ", ".join(repr(r.contest_id) for r in replays)
        _log(f"replay of contests {ids} (read-only) at {base}/ (each at /contests/<id>/), API at /api")
    config = uvicorn.Config(create_replay_app(*replays), log_level="info", timeout_graceful_shutdown=3, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
    return EXIT_OK


def _run(
    app: object,
    args: argparse.Namespace,
    proxies: str,
    sock: socket.socket,
    stack: ExitStack,
    begin_stop: Callable[[], None],
) -> None:
    """uvicorn, until it stops. ``begin_stop`` (``Server.begin_stop``, ``Site.begin_stop``) is called as
    its stop begins (SIGTERM, Ctrl-C), before it waits for the open connections: the event feeds end then,
    as responses do, rather than being cut with a traceback when its graceful timeout is over (the lifespan's
    stop, which ends them too, comes only after that wait)."""
    import uvicorn

    class Uvicorn(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            _log("stopping: open event feeds end (their clients resume with since_token); running judgements finish")
            begin_stop()
            await super().shutdown(sockets)

    # X-Forwarded-For/-Proto only from the proxies named (uvicorn's default trusts 127.0.0.1: F3 of issue 27)
    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        log_level="info",
        timeout_graceful_shutdown=3,
        lifespan="on",
        # a team's browser polls its pages every 2-10 s: it keeps its connection (uvicorn's 5 s would drop
        # most between polls, and a new connection per request costs the event loop more than the page)
        timeout_keep_alive=KEEP_ALIVE_S,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or "",
    )
    # what was loaded so far (the packages, the roster, the event log's copy) lives as long as the server,
    # and so does most of what survives a full collection (open feeds, kept-alive connections): the
    # collector's full passes, each one stopping every thread, go through what is newer
    stack.enter_context(frozen_heap())
    stack.enter_context(_log_off_the_loop())
    stack.callback(sys.setswitchinterval, sys.getswitchinterval())
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    Uvicorn(config).run(sockets=[sock])
