"""Warm starts of a package's Python programs (validators): one warm interpreter per program version.

A Python validator run once per test pays a new interpreter and its imports every time (the project's
``reference``, numpy: often more than the submission's own run). Here the first run of a program (a
``RunSpec`` with ``warm``, see spec.WarmStart) starts a server on the program's own interpreter and
environment (warmserver.py) that imports the modules the program imports from outside its folder and
compiles it; every run of that program is then a fork of it, made into exactly what a new
``python PROGRAM ARGS`` process would be (warmserver.py says what that covers). The run's own limits, its
session and process-group kill, its status report and its result are those of any trusted run (launch.py).

The protocol, small and explicit (JSON over a SOCK_SEQPACKET socket, the run's fds attached): the server's
own failures come back apart from the program's, as ``WarmError``. A server that went away, refused a
request or is stale (its program or a module it loaded changed on disk) is dropped and started anew once;
when that does not work either, the run starts the usual way (a new interpreter): never a verdict of ours.
A server that does not answer a request in ``REPLY_TIMEOUT_S`` may have started the run, or may yet: it is
killed (its runs with it) and the run is the judge's error (a JE, judged again), never started a second
time on the same files. A server that cannot start warm at all (its program's folder shadows a module it
loads, say) is not tried again for that program. Servers are keyed by the program's command, environment
and version (the package's hash); at most ``MAX_SERVERS`` are kept, the least recently used one retired
when another is needed (it finishes its runs first).
"""

from __future__ import annotations

import ast
import importlib.machinery
import json
import os
import socket
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge.runner.osutil import anonymous_file
from judge.runner.spec import RunSpec

SERVER_SCRIPT = Path(__file__).with_name("warmserver.py")
MAX_SERVERS = 16
START_TIMEOUT_S = 120.0  # the server's imports (numpy on a loaded machine)
REPLY_TIMEOUT_S = 30.0
MAX_LOCAL_FILES = 50  # the program's own modules followed for their imports
Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str]

# CPython 3.11 keeps the AST constructor's recursion count per interpreter, not per thread (package/deps.py)
_PARSE_LOCK = threading.Lock()


class WarmError(OSError):
    """The warm server's own failure (never the program's): it is gone, refused the request, or is stale."""


class Stale(WarmError):
    """The program or a module the server loaded changed on disk since the server started."""


class NoAnswer(WarmError):
    """The server did not answer a run's request in time: it may have forked the run, or may yet."""


def _imports(path: Path) -> set[str]:
    """The absolute imports of a Python file (``import a.b``; ``from a import b``: ``a`` and maybe ``a.b``)."""
    try:
        source = path.read_bytes()
        with _PARSE_LOCK:
            tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def preload_modules(script: Path) -> tuple[str, ...]:
    """The modules a warm server loads for ``script``: what it and its own modules (in its folder, followed)
    import from outside its folder. Nothing is imported here."""
    folder = str(script.parent)
    wanted: set[str] = set()
    pending: list[Path] = [script]
    seen: set[Path] = set()
    while pending and len(seen) < MAX_LOCAL_FILES:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imports(path):
            spec = importlib.machinery.PathFinder.find_spec(name.split(".")[0], [folder])
            if spec is None:
                wanted.add(name)
            elif spec.origin is not None and spec.loader is not None and Path(spec.origin).is_file():
                pending.append(Path(spec.origin))
    return tuple(sorted(wanted))


def _receive(sock: socket.socket, timeout_s: float) -> dict[str, object]:
    sock.settimeout(timeout_s)
    try:
        data = sock.recv(65536)
    except TimeoutError as exc:
        raise NoAnswer(f"no answer in {timeout_s:g} s") from exc
    except OSError as exc:
        raise WarmError(str(exc)) from exc
    finally:
        sock.settimeout(None)
    if not data:
        raise WarmError("it is gone")
    try:
        message = json.loads(data)
    except ValueError as exc:
        raise WarmError(f"bad answer {data[:100]!r}") from exc
    if not isinstance(message, dict):
        raise WarmError(f"bad answer {data[:100]!r}")
    return message


class WarmServer:
    """One warm interpreter (warmserver.py) of one program; thread-safe."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str], script: Path) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._log = anonymous_file()  # the server's own stderr, for what it says when it fails
        self._lock = threading.Lock()
        self.retiring = False
        try:
            self.proc = subprocess.Popen(
                [*argv, str(SERVER_SCRIPT), str(theirs.fileno()), str(script), *preload_modules(script)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
                pass_fds=(theirs.fileno(),),
                env=dict(env),
                cwd=script.parent,
                close_fds=True,
            )
        except OSError as exc:
            ours.close()
            os.close(self._log)
            raise WarmError(f"cannot start: {exc}") from exc
        finally:
            theirs.close()
        self.sock = ours
        self.pid = self.proc.pid
        try:
            ready = _receive(ours, START_TIMEOUT_S)
        except WarmError as exc:
            self.close()
            raise WarmError(f"did not start: {exc}{self.ended()}") from None
        if "ready" not in ready:
            self.close()
            raise WarmError(f"cannot start warm: {ready.get('error', ready)}")
        self.preloaded = tuple(str(m) for m in ready["ready"]) if isinstance(ready["ready"], list) else ()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, request: Mapping[str, object], fds: Sequence[int]) -> int:
        """Fork a run (fds: its status pipe, stdin, stdout, stderr); its pid. Raises WarmError, Stale, and
        NoAnswer (then the server has been killed, with whatever it had started)."""
        data = json.dumps(request).encode()
        with self._lock:
            try:
                socket.send_fds(self.sock, [data], list(fds))
            except OSError as exc:
                raise WarmError(f"{exc}{self.ended()}") from exc
            try:
                answer = _receive(self.sock, REPLY_TIMEOUT_S)
            except NoAnswer as exc:
                self.kill()
                raise NoAnswer(f"the warm server gave {exc}{self.ended()}") from None
            except WarmError as exc:
                raise WarmError(f"{exc}{self.ended()}") from None
        pid = answer.get("pid")
        if isinstance(pid, int) and pid > 0:
            return pid
        if "stale" in answer:
            raise Stale(str(answer["stale"]))
        raise WarmError(str(answer.get("error", answer)))

    def ended(self) -> str:
        """How the server ended, and the end of what it said, for a message (empty while it runs)."""
        try:
            status = self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return ""
        how = f"exited with status {status}" if status >= 0 else f"was killed by signal {-status}"
        said = b""
        try:
            said = os.pread(self._log, 2000, max(0, os.fstat(self._log).st_size - 2000))
        except OSError:
            pass
        text = said.decode(errors="replace").strip()
        return f" (it {how}{': ' + text.splitlines()[-1] if text else ''})"

    def retire(self) -> None:
        """No more runs: the server ends once the runs under way have (closing its socket would kill them)."""
        with self._lock:
            try:
                self.sock.send(json.dumps({"retire": True}).encode())
            except OSError:
                pass

    def kill(self) -> None:
        """SIGKILL to the server: its runs die with it (their parent-death signal), none starts any more."""
        try:
            self.proc.kill()
        except OSError:
            pass

    def close(self) -> None:
        """End the server (and any run still in it)."""
        self.sock.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._log >= 0:
            os.close(self._log)
            self._log = -1


@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    server: WarmServer | None = None
    cold: str | None = None  # why this program does not start warm (not tried again)
    used: float = 0.0


class WarmServers:
    """The runner's warm servers, by program (see the module doc); thread-safe; ``close()`` ends them all."""

    def __init__(self, max_servers: int = MAX_SERVERS) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()
        self._max = max_servers
        self._closed = False
        self._owned: list[WarmServer] = []  # every server started and not yet closed

    @staticmethod
    def key(spec: RunSpec, env: Mapping[str, str]) -> Key:
        assert spec.warm is not None
        return (tuple(spec.argv[: spec.warm.script + 1]), tuple(sorted(env.items())), spec.warm.key)

    def start(
        self,
        spec: RunSpec,
        env: Mapping[str, str],
        fds: Sequence[int],
        rlimits: Sequence[tuple[int, int, int]],
        nice: int,
    ) -> tuple[int, WarmServer] | None:
        """Start ``spec`` (a trusted run with ``warm``) from its program's warm server: (the run's pid, the
        server); None when it cannot start warm (the caller starts it the usual way)."""
        warm = spec.warm
        if warm is None or not spec.trusted or len(spec.argv) <= warm.script or self._closed:
            return None
        key = self.key(spec, env)
        script = Path(spec.argv[warm.script])
        request = {
            "argv": list(spec.argv[warm.script + 1 :]),
            "cwd": str(spec.box),
            "rlimits": [list(r) for r in rlimits],
            "nice": nice,
        }
        entry = self._entry(key)
        with entry.lock:
            for _attempt in range(2):  # a server that failed is started anew once
                if entry.cold is not None:
                    return None
                server = entry.server
                if server is None or not server.alive():
                    if server is not None:
                        server.retire()
                    try:
                        server = entry.server = self._new(key[0][: warm.script], env, script)
                    except WarmError as exc:
                        entry.server, entry.cold = None, str(exc)
                        return None
                try:
                    return server.run(request, fds), server
                except NoAnswer:  # it may have started the run on these files: never a second one on them
                    entry.server = None
                    raise
                except WarmError:
                    entry.server = None
                    server.retire()  # it finishes the runs it has, if it can
            return None

    def _new(self, argv: Sequence[str], env: Mapping[str, str], script: Path) -> WarmServer:
        server = WarmServer(argv, env, script)
        with self._lock:
            self._owned.append(server)
            closed = self._closed
        if closed:
            server.close()
            raise WarmError("the runner is closed")
        return server

    def _entry(self, key: Key) -> _Entry:
        """The entry of ``key`` (made on first use); the least recently used ones beyond ``max`` retired."""
        evicted: list[WarmServer] = []
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = self._entries[key] = _Entry()
            self._entries.move_to_end(key)
            entry.used = time.monotonic()
            while len(self._entries) > self._max:
                _, old = self._entries.popitem(last=False)
                if old.server is not None:
                    evicted.append(old.server)
            alive = [s.alive() for s in self._owned]  # one wait per server per run
            ended = [s for s, up in zip(self._owned, alive, strict=True) if not up]
            self._owned = [s for s, up in zip(self._owned, alive, strict=True) if up]
        for server in evicted:
            server.retire()
        for server in ended:
            server.close()
        return entry

    def cold(self) -> dict[tuple[str, ...], str]:
        """The programs that do not start warm here, and why (for tests and `judge doctor`)."""
        with self._lock:
            return {k[0]: e.cold for k, e in self._entries.items() if e.cold is not None}

    def servers(self) -> list[WarmServer]:
        """The servers in use (not retired)."""
        with self._lock:
            return [e.server for e in self._entries.values() if e.server is not None]

    def close(self) -> None:
        """End every server (and any run still in one)."""
        with self._lock:
            self._closed = True
            self._entries.clear()
            owned, self._owned = self._owned, []
        for server in owned:
            server.close()
