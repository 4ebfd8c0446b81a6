"""A warm interpreter for one of a package's Python programs (a validator): the fork server of runner/warm.py.

    PYTHON [OPTIONS] warmserver.py SOCKFD SCRIPT [MODULE]...

Started by the judge (runner/warm.py) on the program's own interpreter, with the program's own environment,
it imports the MODULEs the program imports from outside its folder (the project's ``reference``, numpy, ...),
compiles SCRIPT, and says ``{"ready": ...}`` on SOCKFD (a SOCK_SEQPACKET socket). Then, per request
(``{"argv", "cwd", "rlimits", "nice"}`` with four fds: the run's status pipe, stdin, stdout, stderr), it forks;
the child becomes what ``PYTHON [OPTIONS] SCRIPT ARGS...`` would be (below) and the reply is its pid
(``{"pid": N}``), or ``{"stale": why}`` when SCRIPT or a loaded module changed on disk since the start (the
judge then starts a new server), or ``{"error": why}``: the server's own failures, apart from the program's.
When a child ends, the server kills its process group and writes, as the C launcher does, ``exit <wait
status> <utime us> <stime us> <maxrss KiB> <wall us> <end us>`` and ``done ...`` on the run's status pipe, and
closes it. EOF on SOCKFD (the judge is gone): every run's process group is killed, and the server exits.

The child, per run: a new session, the run's rlimits and nice value, the three standard fds, the working
directory, ``sys.argv``, new ``sys.stdin/stdout/stderr`` objects made as the interpreter makes them, a new
``__main__`` module, and the program's code executed in it; an uncaught exception prints its traceback
without this file's frames and exits 1, ``SystemExit`` is the interpreter's own. Each run is a fork of the
state after the imports: nothing a run changes reaches the next one.

Standard library only: this runs on the program's interpreter, with the program's ``sys.path``.
"""

import sys

STARTUP = frozenset(sys.modules)  # what every fresh interpreter has loaded before its script runs

import ctypes  # noqa: E402
import gc  # noqa: E402
import importlib.machinery  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import time  # noqa: E402
from types import CodeType, ModuleType, SimpleNamespace  # noqa: E402
from typing import Any  # noqa: E402

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MAX_MESSAGE = 65536
LIBC = ctypes.CDLL(None, use_errno=True)


def log(text: str) -> None:
    os.write(2, f"warm server: {text}\n".encode(errors="replace"))


def signature(path: str) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def shadowed(folder: str, names: set[str]) -> str | None:
    """A module loaded here (beyond a fresh interpreter's) that a file in the program's folder would shadow: the
    program would import its own, so it cannot start warm."""
    for name in sorted(names):
        spec = importlib.machinery.PathFinder.find_spec(name, [folder])
        if spec is not None and spec.origin is not None and spec.loader is not None:
            return name
    return None


def preload(script: str, modules: list[str]) -> tuple[list[str], dict[str, str]]:
    """Import the program's outside modules (a failure is the program's to meet, fresh, in the run)."""
    folder = os.path.dirname(script)
    done: list[str] = []
    skipped: dict[str, str] = {}
    for name in modules:
        top = name.split(".")[0]
        spec = importlib.machinery.PathFinder.find_spec(top, [folder])
        if spec is not None:
            skipped[name] = "in the program's folder"
            continue
        try:
            __import__(name)
        except BaseException as exc:  # noqa: BLE001 - not ours to report: the run imports it again
            if isinstance(exc, KeyboardInterrupt):
                raise
            skipped[name] = f"{type(exc).__name__}: {exc}"
        else:
            done.append(name)
    return done, skipped


def watched_files(script: str) -> dict[str, tuple[int, int, int, int] | None]:
    """The files whose change makes this server stale: the script, and the loaded modules outside the
    interpreter's own prefixes (the standard library and site-packages change with the interpreter)."""
    prefixes = tuple(os.path.join(os.path.realpath(p), "") for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    files = {script: signature(script)}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and not os.path.realpath(path).startswith(prefixes):
            files[path] = signature(path)
    return files


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.send(json.dumps(message).encode())


class Kid:
    def __init__(self, status: int, start_ns: int) -> None:
        self.status = status
        self.start_ns = start_ns


def reap(kids: dict[int, Kid]) -> None:
    """Report every run that has ended; reap the orphans left to us (we are their subreaper)."""
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        kid = kids.pop(pid, None)
        if kid is None:
            continue
        end_ns = time.monotonic_ns()
        try:
            os.killpg(pid, signal.SIGKILL)  # what the program left in its group dies with it
        except OSError:
            pass
        ut, st = round(usage.ru_utime * 1e6), round(usage.ru_stime * 1e6)
        wall = (end_ns - kid.start_ns) // 1000
        line = f"exit {status} {ut} {st} {usage.ru_maxrss} {wall} {end_ns // 1000}\ndone {ut} {st} {usage.ru_maxrss}\n"
        try:
            os.write(kid.status, line.encode())
        except OSError:
            pass  # the judge stopped listening
        os.close(kid.status)


def child_setup(request: dict[str, Any], fds: list[int], server: int, own: list[int]) -> None:
    """In the child: everything but the interpreter's own state (the caller does that); on failure, say why
    on the status pipe and exit 125, as the launcher does. ``own``: the server's fds, closed here."""
    status, stdin, stdout, stderr = fds
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in own:
            os.close(fd)
        LIBC.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != server:
            raise OSError("the warm server is gone")
        os.setsid()
        for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
            os.dup2(fd, target)
        for fd in {stdin, stdout, stderr} - {0, 1, 2}:
            os.close(fd)
        os.chdir(request["cwd"])
        nice = int(request.get("nice", 0))
        if nice > 0:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        for res, soft, hard in request.get("rlimits", []):
            inf = resource.RLIM_INFINITY
            resource.setrlimit(res, (inf if soft < 0 else soft, inf if hard < 0 else hard))
    except BaseException as exc:  # noqa: BLE001 - the sandbox's failure, never the program's
        try:
            os.write(status, f"error warm start: {exc}\n".encode(errors="replace"))
        finally:
            os._exit(125)
    os.close(status)


class Loaded:
    """The modules loaded before a run (its exit leaves them alone: ``finish``), and the last of them."""

    def __init__(self) -> None:
        self.names = frozenset(sys.modules) - {"__main__"}
        self.count = len(sys.modules)
        self.last = next(reversed(sys.modules))
        self.last_module = sys.modules[self.last]

    def current(self) -> bool:
        return self.count == len(sys.modules)  # a server only ever adds modules

    def of_the_run(self) -> list[str]:
        """The modules the run loaded, in the order of ``sys.modules`` (the order in which they were added): those
        after the last one loaded before the run, found without counting references to every module's name
        (each count would copy a page of the server's); all names are looked at if the run moved that one (it
        is then not where it was). Not seen: a run that both removes another module loaded before it from
        ``sys.modules`` and moves that last one behind modules of its own leaves those uncleared (their
        buffered files unflushed at its exit)."""
        found: list[str] = []
        for n, name in enumerate(reversed(sys.modules)):
            if name == self.last:
                if sys.modules.get(name) is self.last_module and len(sys.modules) - n == self.count:
                    return found[::-1]
                break
            if name not in self.names:
                found.append(name)
        return [name for name in sys.modules if name not in self.names]


def serve(sock: socket.socket, script: str) -> tuple[dict[str, Any], Loaded]:
    """Answer requests until the judge goes away (then exit); returns only in a forked child: its request, and
    the modules loaded before the run (its exit leaves them alone: ``finish``)."""
    LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    watched = watched_files(script)
    kids: dict[int, Kid] = {}
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    poller.register(wake_r, select.POLLIN)
    me = os.getpid()
    retiring = False
    loaded = Loaded()
    while True:
        try:
            ready = {fd for fd, _ in poller.poll()}
        except InterruptedError:
            continue
        if wake_r in ready:
            try:
                while os.read(wake_r, 4096):
                    pass
            except BlockingIOError:
                pass
            reap(kids)
            if retiring and not kids:
                os._exit(0)
        if sock.fileno() not in ready:
            continue
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, MAX_MESSAGE, 8)
        except InterruptedError:
            continue
        except OSError:
            data, fds = b"", []
        if not data:  # the judge is gone: so are its runs
            for pid in kids:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
            os._exit(0)
        try:
            request = json.loads(data)
            if request.get("retire"):  # no more runs: end when the runs under way have
                for fd in fds:
                    os.close(fd)
                retiring = True
                if not kids:
                    os._exit(0)
                continue
            if len(fds) != 4:
                raise ValueError(f"{len(fds)} fds, not 4")
        except ValueError as exc:
            for fd in fds:
                os.close(fd)
            send(sock, {"error": f"bad request: {exc}"})
            continue
        changed = next((p for p, sig in watched.items() if signature(p) != sig), None)
        if changed is not None:
            for fd in fds:
                os.close(fd)
            send(sock, {"stale": f"{changed} changed on disk"})
            continue
        if not loaded.current():  # made here, where it is kept, not in every run
            loaded = Loaded()
        start_ns = time.monotonic_ns()
        try:
            pid = os.fork()
        except OSError as exc:
            for fd in fds:
                os.close(fd)
            send(sock, {"error": f"fork: {exc}"})
            continue
        if pid == 0:
            child_setup(request, fds, me, [sock.detach(), wake_r, wake_w, *(k.status for k in kids.values())])
            return dict(request), loaded
        kids[pid] = Kid(fds[0], start_ns)
        for fd in fds[1:]:
            os.close(fd)
        try:
            send(sock, {"pid": pid})
        except OSError:
            pass  # the judge is gone: EOF next


def standard_streams() -> None:
    """New sys.stdin, sys.stdout, sys.stderr over fds 0-2, made as the interpreter makes them at its start
    (pylifecycle.c, create_stdio) with this interpreter's settings (encoding, errors, -u)."""
    for fd, attr, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        old = getattr(sys, f"__{attr}__")
        if old is None:
            continue
        write_through = bool(getattr(old, "write_through", False))
        buffering = 0 if (write_through and mode == "w") else -1
        buf: Any = open(fd, mode + "b", buffering, None, None, None, False)
        raw = buf.raw if buffering else buf
        raw.name = f"<{attr}>"
        line_buffering = not write_through and (raw.isatty() or fd == 2)
        stream: Any = io.TextIOWrapper(buf, old.encoding, old.errors, "\n", line_buffering, write_through)
        stream.mode = mode
        setattr(sys, attr, stream)
        setattr(sys, f"__{attr}__", stream)


def main_module(script: str) -> ModuleType:
    """A new ``__main__`` as the interpreter makes it for a script."""
    main = ModuleType("__main__")
    main.__dict__.update(
        __package__=None,
        __loader__=importlib.machinery.SourceFileLoader("__main__", script),
        __spec__=None,
        __annotations__={},
        __builtins__=sys.modules["builtins"],
        __file__=script,
        __cached__=None,
    )
    sys.modules["__main__"] = main
    return main


def compiled(script: str) -> CodeType | None:
    try:
        with open(script, "rb") as f:
            return compile(f.read(), script, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError):
        return None  # the run compiles it again, and fails as a fresh one would


def start() -> tuple[dict[str, Any], str, CodeType | None, tuple[int, int, int, int] | None, Loaded]:
    """The server's life; returns in a run's child."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    script, modules = os.path.abspath(sys.argv[2]), sys.argv[3:]
    interpreter = sys.orig_argv[: len(sys.orig_argv) - len(sys.argv)]
    sys.path[0] = os.path.dirname(os.path.realpath(script))  # the script's folder, as for `python SCRIPT`
    sys.argv = [script]  # what the modules see while they are imported
    try:
        loaded, skipped = preload(script, modules)
        blocked = shadowed(os.path.dirname(script), {m.split(".")[0] for m in set(sys.modules) - STARTUP})
        if blocked is not None:
            send(sock, {"error": f"the program's folder has its own {blocked!r}, a module this server loaded"})
            os._exit(0)
        code = compiled(script)
        gc.collect()
        gc.freeze()  # what the runs inherit is never scanned again (nor copied by their collections)
        send(sock, {"ready": loaded, "skipped": skipped})
    except OSError:
        os._exit(0)  # the judge is gone
    request, before = serve(sock, script)
    sys.argv = [script, *request["argv"]]
    sys.orig_argv = [*interpreter, script, *request["argv"]]
    return request, script, code, signature(script), before


def exit_status(exc: SystemExit) -> int:
    """The status of an uncaught ``SystemExit``, and its message written, as the interpreter does
    (pythonrun.c, _Py_HandleSystemExit)."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    stderr = getattr(sys, "stderr", None)
    try:
        if stderr is not None:
            stderr.write(str(code))
            stderr.write("\n")
    except Exception:  # noqa: BLE001 - as the interpreter: nothing more to do
        pass
    return 1


def flush_std_files() -> bool:
    """sys.stdout and sys.stderr flushed, as at the interpreter's exit; False when stdout's failed."""
    ok = True
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name, None)
        if stream is None or getattr(stream, "closed", True):
            continue
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            if name == "stdout":
                kind, value, tb = sys.exc_info()
                hook: Any = sys.unraisablehook
                hook(SimpleNamespace(exc_type=kind, exc_value=value, exc_traceback=tb, err_msg=None, object=stream))
            ok = False
    return ok


def finish(status: int, server_modules: Loaded) -> int:
    """What the interpreter does at its exit that a program can see (pylifecycle.c, Py_FinalizeEx): its
    non-daemon threads joined, its atexit functions, the standard streams flushed (status 120 when stdout
    cannot be); then the modules of the run cleared and the garbage collected, so that the files it left
    open are flushed and closed as at a real exit. The rest of a real exit (freeing the interpreter) cannot
    be seen: the process then ends with ``os._exit``, sparing the server's modules' teardown."""
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()
        except BaseException:  # noqa: BLE001
            pass
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        pass
    ok = flush_std_files()
    try:
        for name in [*server_modules.of_the_run(), "__main__"]:
            module = sys.modules.get(name)
            namespace = getattr(module, "__dict__", None)
            if isinstance(namespace, dict):
                for key in [k for k in namespace if k.startswith("_") and k != "__builtins__"]:
                    namespace[key] = None
                for key in [k for k in namespace if k != "__builtins__"]:
                    namespace[key] = None
        gc.collect()
    except BaseException:  # noqa: BLE001 - a __del__ that failed: ignored at exit
        pass
    ok = flush_std_files() and ok
    return status if ok else 120


if __name__ == "__main__":
    _request, _script, _code, _signature, _server_modules = start()
    # The run: from here on, this process is ``PYTHON [OPTIONS] SCRIPT ARGS...``.
    del _request
    standard_streams()
    _main = main_module(_script)
    try:
        if _code is None or _signature != signature(_script):
            with open(_script, "rb") as _f:
                _code = compile(_f.read(), _script, "exec", dont_inherit=True)
        exec(_code, _main.__dict__)
        _status = 0
    except SystemExit as _exc:
        _status = exit_status(_exc)
    except BaseException as _exc:  # what the interpreter does with an uncaught exception, without our frames
        _tb = _exc.__traceback__.tb_next if _exc.__traceback__ is not None else None
        _exc.__traceback__ = _tb  # what the hook prints
        sys.last_type, sys.last_value, sys.last_traceback = type(_exc), _exc, _tb
        try:
            sys.excepthook(type(_exc), _exc, _tb)
        except BaseException:  # noqa: BLE001
            pass
        _status = 1
        if isinstance(_exc, KeyboardInterrupt):  # the interpreter then ends by SIGINT
            finish(1, _server_modules)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        del _exc, _tb
    os._exit(finish(_status, _server_modules))
