"""The files a run reads and writes: its three standard fds (opened by the runner, closed with the run)."""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import ExitStack

from judge.runner.spec import RunResult, RunSpec
from judge.runner.start import Plumbing


def file_size(fd: int) -> int:
    try:
        st = os.fstat(fd)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def open_io(spec: RunSpec, stack: ExitStack, *, stdin: int | None = None, stdout: int | None = None) -> Plumbing:
    """Open the program's stdin/stdout/stderr (closed when the stack unwinds).

    stdout=None gets an anonymous temporary file, so that the output limit still applies.
    """

    def keep(fd: int) -> int:
        stack.callback(os.close, fd)
        return fd

    if stdin is None:
        stdin = keep(os.open(spec.stdin if spec.stdin is not None else os.devnull, os.O_RDONLY | os.O_CLOEXEC))
    if stdout is None:
        if spec.stdout is not None:
            stdout = keep(os.open(spec.stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644))
        else:
            stdout = keep(_anonymous_file())
    if spec.stderr is not None:
        stderr = keep(os.open(spec.stderr, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644))
    else:
        stderr = keep(os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC))
    return Plumbing(stdin=stdin, stdout=stdout, stderr=stderr)


def _anonymous_file() -> int:
    directory = tempfile.gettempdir()
    try:
        return os.open(directory, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except OSError:
        fd, name = tempfile.mkstemp()
        os.unlink(name)
        return fd


def error_result(message: str) -> RunResult:
    return RunResult(
        exit_code=None,
        signal=None,
        cpu_time_s=0.0,
        wall_time_s=0.0,
        memory_kib=0,
        stdout_bytes=0,
        stderr_bytes=0,
        sandbox_error=message,
    )


# -- construction --------------------------------------------------------------------
