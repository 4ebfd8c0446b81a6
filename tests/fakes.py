"""Test support: a scripted ``FakeRunner`` and small packages written on the fly (CMS' fake sandbox).

The judging rules (verdict precedence, multi-pass, scoring, "JE is never charged") are pure decisions over
what the runner reports; with a ``FakeRunner`` they are tested without root, bubblewrap or real processes.
The fake starts nothing: it answers every run from a script and writes what the real program or validator
would have written (the program's stdout, the validator's feedback files).

    runner = FakeRunner(
        programs=[ran(stdout=b"42\\n"), ran(limit=LimitHit.CPU_TIME)],
        validators=[accept(score=30), reject("wrong")],
    )

Program runs (untrusted) take the next reply of ``programs``; validator runs (trusted) the next of
``validators``; an interactive run one of each; compilations (and syntax checks) succeed unless
``compiles`` scripts them. ``calls`` records every ``RunSpec`` it was given.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from judge.judging.build import COMPILE_LIMITS
from judge.runner import Runner, SandboxInfo
from judge.runner.spec import InteractiveResult, LimitHit, RunResult, RunSpec

FAKE_INFO = SandboxInfo(backend="fake", enforced=("everything (scripted)",), mode="fake")


@dataclass(frozen=True)
class Reply:
    """One scripted run: what the runner reports, and the files the program would have written."""

    result: RunResult
    stdout: bytes | None = None  # written to the spec's stdout file
    feedback: Mapping[str, bytes] = field(default_factory=dict)  # validator: files in its feedback dir
    peer_first: bool = False  # interactive: the validator was first (InteractiveResult.peer_first)
    stderr: bytes | None = None  # a program's: written to the spec's stderr file


def ran(
    stdout: bytes = b"",
    *,
    exit_code: int = 0,
    signal: int | None = None,
    limit: LimitHit | None = None,
    cpu_time_s: float = 0.01,
    memory_kib: int = 1024,
    sandbox_error: str | None = None,
    peer_first: bool = False,
    stderr: bytes | None = None,
) -> Reply:
    """A program run."""
    result = RunResult(
        exit_code=None if signal is not None else exit_code,
        signal=signal,
        cpu_time_s=cpu_time_s,
        wall_time_s=cpu_time_s,
        memory_kib=memory_kib,
        stdout_bytes=len(stdout),
        stderr_bytes=len(stderr or b""),
        limit_hit=limit,
        sandbox_error=sandbox_error,
    )
    return Reply(result, stdout, peer_first=peer_first, stderr=stderr)


def _validator(exit_code: int | None, files: dict[str, bytes], sandbox_error: str | None = None) -> Reply:
    return Reply(RunResult(exit_code, None, 0.01, 0.01, 1024, 0, 0, sandbox_error=sandbox_error), None, files)


def accept(
    message: str = "", *, score: float | None = None, metric: float | None = None, nextpass: bytes | None = None
) -> Reply:
    """The validator accepts (exit 42), with the feedback files given."""
    files = {"judgemessage.txt": message.encode()}
    if score is not None:
        files["score.txt"] = f"{score}\n".encode()
    if metric is not None:
        files["metric.txt"] = f"{metric}\n".encode()
    if nextpass is not None:
        files["nextpass.in"] = nextpass
    return _validator(42, files)


def reject(message: str = "wrong", *, score: float | None = None) -> Reply:
    """The validator rejects (exit 43)."""
    files = {"judgemessage.txt": message.encode()}
    if score is not None:
        files["score.txt"] = f"{score}\n".encode()
    return _validator(43, files)


def crash(exit_code: int = 1) -> Reply:
    """The validator fails (neither 42 nor 43): the package's fault."""
    return _validator(exit_code, {})


def unrunnable(reason: str = "the launcher failed (scripted)") -> Reply:
    """The runner itself cannot run the program or validator."""
    return _validator(None, {}, sandbox_error=reason)


class ScriptExhausted(AssertionError):
    """The code under test made more runs than the script has replies for."""


class FakeRunner:
    """A ``Runner`` (judge/runner/protocol.py) that runs nothing (see the module doc). Thread-safe."""

    def __init__(
        self, programs: Iterable[Reply] = (), validators: Iterable[Reply] = (), compiles: Iterable[Reply] = ()
    ) -> None:
        self.info = FAKE_INFO
        self._programs = list(programs)
        self._validators = list(validators)
        self._compiles = list(compiles)
        self._lock = threading.Lock()
        self.calls: list[RunSpec] = []
        self.stdins: list[bytes] = []  # what each program run was given on stdin

    @property
    def can_run(self) -> bool:
        return True

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.info.warnings

    def close(self) -> None:
        pass

    def __enter__(self) -> FakeRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def held_uids(self) -> tuple[int, ...]:
        return ()

    def start_paths(self) -> tuple[tuple[str, Runner], ...]:
        return (("fake", self),)

    def _next(self, queue: list[Reply], what: str) -> Reply:
        with self._lock:
            if not queue:
                raise ScriptExhausted(f"no scripted reply left for a {what} run")
            return queue.pop(0)

    def run(
        self,
        spec: RunSpec,
        *,
        on_start: Callable[[], object] | None = None,
        on_end: Callable[[], object] | None = None,
    ) -> RunResult:
        with self._lock:
            self.calls.append(spec)
        if on_start is not None:
            on_start()
        if spec.limits == COMPILE_LIMITS:
            with self._lock:
                reply = self._compiles.pop(0) if self._compiles else ran()
        elif spec.trusted:
            reply = self._next(self._validators, "validator")
            _write_feedback(spec, reply)
        else:
            reply = self._next(self._programs, "program")
            with self._lock:
                self.stdins.append(spec.stdin.read_bytes() if spec.stdin is not None else b"")
        if spec.stdout is not None and reply.stdout is not None:
            spec.stdout.write_bytes(reply.stdout)
        if spec.stderr is not None and reply.stderr is not None and not spec.trusted:
            spec.stderr.write_bytes(reply.stderr)
        if on_end is not None:
            on_end()
        return reply.result

    def run_interactive(
        self, program: RunSpec, peer: RunSpec, transcript: Path | None = None, *, peer_rejects: int | None = None
    ) -> InteractiveResult:
        with self._lock:
            self.calls += [program, peer]
        prog = self._next(self._programs, "program")
        val = self._next(self._validators, "validator")
        _write_feedback(peer, val)
        if program.stderr is not None and prog.stderr is not None:
            program.stderr.write_bytes(prog.stderr)
        if transcript is not None:
            transcript.write_text("> (scripted)\n")
        return InteractiveResult(prog.result, val.result, prog.peer_first)


_CHECKED: type[Runner] = FakeRunner  # mypy tests/fakes.py: FakeRunner satisfies the Runner protocol


def _write_feedback(spec: RunSpec, reply: Reply) -> None:
    """The validator's argv ends ``input answer feedback_dir/ [args...]``: write its files there."""
    folder = next((Path(a) for a in spec.argv if a.endswith("/")), None)
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in reply.feedback.items():
        (folder / name).write_bytes(data)


# -- packages written on the fly --------------------------------------------------------------

VALIDATOR_STUB = "import sys\nsys.exit(42)  # never run under a FakeRunner\n"


def make_package(
    root: Path,
    config: Mapping[str, object],
    tests: Mapping[str, tuple[bytes, bytes]],
    *,
    groups: Mapping[str, Mapping[str, object]] | None = None,
    validator: bool = True,
) -> Path:
    """A Kattis package at ``root``: ``problem.yaml`` from ``config``, ``tests`` as
    ``{"secret/g1/01": (input, answer)}``, ``groups`` as ``{"secret/g1": testdata.yaml}``, and a Python
    output validator (when ``validator``)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "problem.yaml").write_text(yaml.safe_dump(dict(config)))
    for name, (given, answer) in tests.items():
        path = root / "data" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".in").write_bytes(given)
        path.with_suffix(".ans").write_bytes(answer)
    (root / "data" / "secret").mkdir(parents=True, exist_ok=True)
    for group, settings in (groups or {}).items():
        (root / "data" / group).mkdir(parents=True, exist_ok=True)
        (root / "data" / group / "testdata.yaml").write_text(yaml.safe_dump(dict(settings)))
    if validator:
        folder = root / "output_validators" / "check"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "validate.py").write_text(VALIDATOR_STUB)
    return root
