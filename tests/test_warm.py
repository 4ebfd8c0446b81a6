"""Warm starts of a package's Python programs (judge/runner/warm.py, warmserver.py): a fork of a warm
interpreter per run must be exactly what a new ``python PROGRAM ARGS`` process is.

Every test runs the same trusted program both ways through the real runner, a new interpreter
(``spec.warm`` None) and warm (``spec.warm`` set), and compares what a validator can show: its exit status,
standard output and error, the files it wrote, the limit it hit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reports import comparable

from judge.runner import RunnerConfig, make_runner
from judge.runner.api import SandboxRunner
from judge.runner.spec import LimitHit, Limits, RunResult, RunSpec, WarmStart
from judge.runner.warm import WarmServer, preload_modules

ROOT = Path(__file__).parent.parent
LIMITS = Limits(time_s=10, wall_time_s=20, memory_kib=4 * 1024 * 1024, processes=64, stderr_bytes=64 * 1024)
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# What a validator can tell about the process it runs in, printed as one JSON line.
PROBE = r"""
import hashlib, json, os, sys
from pathlib import Path
import helperlib  # on PYTHONPATH, outside the program's folder: the warm server imports it first

feedback, code, how, *rest = sys.argv[1:]
plan = json.loads(Path("plan.json").read_text())
data = sys.stdin.buffer.read()
helperlib.calls.append(len(data))
print(json.dumps({
    "argv": sys.argv, "orig_argv_tail": sys.orig_argv[1:], "stdin": data.hex(), "cwd": os.getcwd(),
    "name": __name__, "file": __file__, "path0": sys.path[0], "path": sys.path,
    "env": dict(sorted(os.environ.items())),
    "streams": [(s.encoding, s.errors, s.line_buffering, s.write_through, s.buffer.raw.name, s.mode)
                for s in (sys.stdin, sys.stdout, sys.stderr)],
    "fds": sorted(int(f) for f in os.listdir("/proc/self/fd") if int(f) < 3),
    "leader": os.getpgid(0) == os.getpid() == os.getsid(0),
    "calls": helperlib.calls, "main_keys": sorted(k for k in globals() if k.startswith("__")),
    "self": hashlib.sha256(Path(__file__).read_bytes()).hexdigest(),
    "rlimit_fsize": __import__("resource").getrlimit(__import__("resource").RLIMIT_FSIZE),
    "nice": os.getpriority(os.PRIO_PROCESS, 0),
}))
for name, text in plan["files"].items():
    Path(feedback, name).write_text(text)
print("to stderr:", len(data), rest, file=sys.stderr)
left_open = open(Path(feedback, "left_open.txt"), "w")
left_open.write("buffered, never closed")
if how == "exit":
    sys.exit(int(code))
if how == "raise":
    raise ValueError("boom " + code)
if how == "message":
    sys.exit("a message " + code)
if how == "os_exit":
    sys.stdout.flush()
    os._exit(int(code))
"""


@dataclass(frozen=True)
class Outcome:
    """What one run showed."""

    exit_code: int | None
    signal: int | None
    limit_hit: LimitHit | None
    sandbox_error: str | None
    stdout: str
    stderr: str
    files: dict[str, str]

    @classmethod
    def of(cls, result: RunResult, out: Path, err: Path, feedback: Path) -> Outcome:
        files = {p.name: p.read_text(errors="replace") for p in sorted(feedback.iterdir())} if feedback.is_dir() else {}
        return cls(
            result.exit_code,
            result.signal,
            result.limit_hit,
            result.sandbox_error,
            out.read_text(errors="replace") if out.exists() else "",
            err.read_text(errors="replace") if err.exists() else "",
            files,
        )


@pytest.fixture(scope="module")
def runner() -> Iterator[SandboxRunner]:
    r = make_runner(RunnerConfig(sandbox="auto"))
    if not r.can_run:
        pytest.skip(f"no sandbox here: {r.info.warnings}")
    yield r
    r.close()


@pytest.fixture()
def own_runner() -> Iterator[SandboxRunner]:
    """A runner of the test's own (its warm servers are the test's)."""
    r = make_runner(RunnerConfig(sandbox="auto"))
    if not r.can_run:
        pytest.skip(f"no sandbox here: {r.info.warnings}")
    yield r
    r.close()


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The probe in a folder of its own, with a library module outside it (on PYTHONPATH)."""
    root = tmp_path_factory.mktemp("warm")
    (root / "lib").mkdir()
    (root / "lib" / "helperlib.py").write_text("calls = []\n")
    (root / "prog").mkdir()
    (root / "prog" / "probe.py").write_text(PROBE)
    return root / "prog" / "probe.py"


def spec_for(script: Path, args: tuple[str, ...], box: Path, warm: bool | WarmStart, **kw: object) -> RunSpec:
    fields: dict[str, object] = {
        "argv": (sys.executable, str(script), *args),
        "box": box,
        "limits": LIMITS,
        "stdin": box.parent / "stdin",
        "stdout": box.parent / "out",
        "stderr": box.parent / "err",
        "env": {"PYTHONPATH": str(script.parent.parent / "lib")},
        "trusted": True,
        "warm": warm if isinstance(warm, WarmStart) else WarmStart(key="test") if warm else None,
    }
    fields.update(kw)
    return RunSpec(**fields)  # type: ignore[arg-type]


def run_once(
    runner: SandboxRunner,
    work: Path,
    script: Path,
    args: tuple[str, ...],
    stdin: bytes,
    warm: bool | WarmStart,
    **kw: object,
) -> Outcome:
    """``script args`` with ``stdin``, its box ``work/box`` holding ``plan.json`` if ``work`` has one."""
    box = work / "box"
    feedback = box / "feedback"
    if feedback.exists():
        shutil.rmtree(feedback)
    feedback.mkdir(parents=True)
    (work / "stdin").write_bytes(stdin)
    result = runner.run(spec_for(script, args, box, warm, **kw))
    return Outcome.of(result, work / "out", work / "err", feedback)


def both(
    runner: SandboxRunner,
    tmp: Path,
    script: Path,
    args: tuple[str, ...],
    stdin: bytes = b"",
    plan: object = None,
    **kw: object,
) -> tuple[Outcome, Outcome]:
    """(fresh, warm): the same run both ways, each in a box of its own with the same path."""
    outcomes = []
    for warm in (False, True):
        work = tmp / "run"
        shutil.rmtree(work, ignore_errors=True)
        (work / "box").mkdir(parents=True)
        (work / "box" / "plan.json").write_text(json.dumps(plan or {"files": {}}))
        feedback = str(work / "box" / "feedback") + "/"
        outcomes.append(
            run_once(runner, work, script, tuple(a.replace("{feedback}", feedback) for a in args), stdin, warm, **kw)
        )
    return outcomes[0], outcomes[1]


def warm_servers(runner: SandboxRunner, script: Path | None = None) -> list[WarmServer]:
    """The runner's warm servers (of ``script`` only, when given)."""
    assert runner._backend is not None and runner._backend.warm is not None
    servers = runner._backend.warm.servers()
    return [s for s in servers if script is None or str(script) in s.proc.args]  # type: ignore[operator]


ARG = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
FILES = st.dictionaries(
    st.sampled_from(["judgemessage.txt", "teammessage.txt", "score.txt", "nextpass.in", "metric.txt"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=30),
    max_size=3,
)


@PROPERTY
@given(
    rest=st.lists(ARG, max_size=4),
    stdin=st.binary(max_size=200),
    code=st.integers(0, 255),
    how=st.sampled_from(["exit", "raise", "message", "os_exit", "end"]),
    files=FILES,
)
def test_a_warm_run_is_a_fresh_process(runner, program, tmp_path, rest, stdin, code, how, files) -> None:
    fresh, warm = both(runner, tmp_path, program, ("{feedback}", str(code), how, *rest), stdin, {"files": files})
    assert warm == fresh
    assert fresh.sandbox_error is None and fresh.limit_hit is None
    expected = {"exit": code, "os_exit": code, "raise": 1, "message": 1, "end": 0}[how]
    assert fresh.exit_code == expected
    assert fresh.files.get("left_open.txt") == ("buffered, never closed" if how != "os_exit" else "")
    seen = json.loads(warm.stdout.splitlines()[0])
    assert seen["calls"] == [len(stdin)]  # the library's state is the import's, never an earlier run's
    assert seen["leader"] and seen["fds"] == [0, 1, 2]
    assert any("helperlib" in s.preloaded for s in warm_servers(runner))  # it did start warm


def test_a_traceback_shows_only_the_programs_frames(runner, program, tmp_path) -> None:
    fresh, warm = both(runner, tmp_path, program, ("{feedback}", "7", "raise"))
    assert warm.stderr == fresh.stderr
    assert "warmserver" not in warm.stderr and warm.stderr.count('File "') == 1
    assert warm.stderr.rstrip().endswith("ValueError: boom 7")


def test_module_state_never_reaches_the_next_run(runner, tmp_path) -> None:
    """A program that mutates its own and a library's module state, a builtin, and sys: each run starts
    from the state after the imports."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helperlib.py").write_text("calls = []\n")
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "mutate.py"
    script.write_text(
        "import builtins, json, sys, helperlib\n"
        "helperlib.calls.append(1)\n"
        "print(len(helperlib.calls), hasattr(builtins, 'leak'), getattr(json, 'leak', None), len(sys.path))\n"
        "builtins.leak = 1\njson.leak = 2\nsys.path.append('/x')\nsys.exit(42)\n"
    )
    outcomes = [both(runner, tmp_path, script, ())[1] for _ in range(3)]
    assert {o.stdout for o in outcomes} == {outcomes[0].stdout}
    assert outcomes[0].stdout.startswith("1 False None ")


@pytest.mark.parametrize("moves", ["nothing", "the last module loaded before it"])
def test_the_modules_a_program_imports_are_cleared_at_its_exit(runner, tmp_path, moves) -> None:
    """A file left open, and buffered, in a module the run imported (of its own folder, so never preloaded) is
    flushed at its exit as in a fresh process; also when the run moves modules around in ``sys.modules``
    (the warm server finds the run's modules after the last one loaded before it: warmserver.Loaded)."""
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "keeper.py").write_text("kept = open('kept.txt', 'w')\nkept.write('buffered in a module')\n")
    script = tmp_path / "prog" / "imports.py"
    move = {
        "nothing": "",
        "the last module loaded before it": "sys.modules[before[-1]] = sys.modules.pop(before[-1])\n",
    }[moves]
    script.write_text(f"import sys\nbefore = list(sys.modules)\nimport keeper\n{move}sys.exit(42)\n")
    outcomes = []
    for _ in range(2):
        fresh, warm = both(runner, tmp_path, script, ())
        kept = tmp_path / "run" / "box" / "kept.txt"
        outcomes.append((fresh, warm, kept.read_text() if kept.exists() else None))
    for fresh, warm, kept in outcomes:
        assert warm == fresh and warm.exit_code == 42, (warm, fresh)
        assert kept == "buffered in a module"


def test_a_program_that_forks_and_leaves_processes(runner, tmp_path) -> None:
    """Its children run and write; whatever it left running in its session is killed when it ends."""
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "forks.py"
    script.write_text(
        "import os, subprocess, sys\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    open('child.txt', 'w').write('child')\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "out = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True).stdout\n"
        "p = subprocess.Popen(['sleep', '1000'])\n"
        "open('left.pid', 'w').write(str(p.pid))\n"
        "print(open('child.txt').read(), out.strip())\n"
        "sys.exit(42)\n"
    )
    fresh, warm = both(runner, tmp_path, script, ())
    assert warm == fresh and warm.exit_code == 42 and warm.stdout == "child 42\n"
    left = int((tmp_path / "run" / "box" / "left.pid").read_text())
    deadline = time.monotonic() + 60  # a bound for a hang, not a timing: the kill is sent before the result
    while running(left):
        assert time.monotonic() < deadline, "the program's sleep survived its run"
        time.sleep(0.05)


def running(pid: int) -> bool:
    """The process exists and is not a zombie (it may go at any moment: between two questions, say)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_program_that_reads_its_own_file(runner, tmp_path) -> None:
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "me.py"
    script.write_text("import sys\nprint(open(__file__).read().count('import'), __file__, sys.argv[0])\n")
    fresh, warm = both(runner, tmp_path, script, ())
    assert warm == fresh and warm.stdout == f"2 {script} {script}\n"


@pytest.mark.parametrize(
    "source",
    [
        "import not_a_module_anywhere\n",
        "import localbroken\n",  # a module of its own folder that fails while it is imported
        "x = (\n",  # a syntax error
        "raise SystemExit(3)\n",
        "import sys\nsys.exit(None)\n",
    ],
)
def test_a_program_that_fails_while_it_is_imported(runner, tmp_path, source) -> None:
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "localbroken.py").write_text("import json\nraise RuntimeError('broken at import')\n")
    script = tmp_path / "prog" / "v.py"
    script.write_text(source)
    fresh, warm = both(runner, tmp_path, script, ())
    assert warm == fresh
    assert fresh.sandbox_error is None


def test_a_program_changed_on_disk_is_run_as_it_is_now(runner, tmp_path) -> None:
    """Between two runs the program, then a library it imports, changes: the next run sees the change (a
    new warm server: the old one is stale)."""
    (tmp_path / "lib").mkdir()
    lib = tmp_path / "lib" / "helperlib.py"
    lib.write_text("calls = []\nVERSION = 'lib 1'\n")
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "v.py"
    script.write_text("import helperlib\nprint('prog 1', helperlib.VERSION)\n")
    assert both(runner, tmp_path, script, ())[1].stdout == "prog 1 lib 1\n"
    before = {s.pid for s in warm_servers(runner)}
    script.write_text("import helperlib\nprint('prog 2 (longer)', helperlib.VERSION)\n")
    assert both(runner, tmp_path, script, ())[1].stdout == "prog 2 (longer) lib 1\n"
    lib.write_text("calls = []\nVERSION = 'lib 2 (longer)'\n")
    fresh, warm = both(runner, tmp_path, script, ())
    assert warm == fresh and warm.stdout == "prog 2 (longer) lib 2 (longer)\n"
    assert {s.pid for s in warm_servers(runner)} - before, "no new warm server"


def test_another_package_version_gets_another_server(runner, program, tmp_path) -> None:
    both(runner, tmp_path, program, ("{feedback}", "42", "exit"))
    first = {s.pid for s in warm_servers(runner)}
    work = tmp_path / "run"
    run_once(runner, work, program, (str(work / "box" / "feedback") + "/", "42", "exit"), b"", WarmStart(key="v2"))
    assert {s.pid for s in warm_servers(runner)} - first


@pytest.mark.parametrize(
    ("source", "limits", "hit"),
    [
        ("while True: pass\n", Limits(time_s=0.5, wall_time_s=20), LimitHit.CPU_TIME),
        ("import time\ntime.sleep(100)\n", Limits(time_s=5, wall_time_s=1), LimitHit.WALL_TIME),
        (
            "x = bytearray(300 * 1024 * 1024)\nx[::4096] = b'1' * len(x[::4096])\n",
            Limits(memory_kib=100 * 1024),
            LimitHit.MEMORY,
        ),
        ("import sys\nsys.stdout.write('x' * 4_000_000)\n", Limits(output_bytes=1_000_000), LimitHit.OUTPUT),
    ],
)
def test_the_limits_hold_on_a_warm_run(runner, tmp_path, source, limits, hit) -> None:
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "hog.py"
    script.write_text(source)
    fresh, warm = both(
        runner,
        tmp_path,
        script,
        (),
        limits=replace(
            LIMITS, **{f: getattr(limits, f) for f in ("time_s", "wall_time_s", "memory_kib", "output_bytes")}
        ),
    )
    assert fresh.limit_hit is hit, fresh
    assert warm.limit_hit is hit, warm
    assert warm.sandbox_error is None


def test_a_killed_warm_server_is_started_anew(own_runner, program, tmp_path) -> None:
    """Killed between two runs, or its socket broken: the next run starts a new server (once), not charged."""
    runner = own_runner
    args = ("{feedback}", "42", "exit")
    fresh = both(runner, tmp_path, program, args)[0]
    for breaking in ("kill", "socket"):
        servers = warm_servers(runner, program)
        assert len(servers) == 1
        for server in servers:
            if breaking == "kill":
                os.kill(server.pid, signal.SIGKILL)
                server.proc.wait()
            else:  # still running, but its socket no longer reaches it
                ours, gone = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                gone.close()
                server.sock.close()
                server.sock = ours
        warm = both(runner, tmp_path, program, args)[1]
        assert warm == fresh
        assert {s.pid for s in warm_servers(runner, program)}.isdisjoint(s.pid for s in servers)


def test_a_server_that_cannot_start_means_a_fresh_run(runner, program, tmp_path, monkeypatch) -> None:
    """When no warm server can be had, the run starts the usual way: the same outcome."""
    fresh = both(runner, tmp_path, program, ("{feedback}", "43", "exit"))[0]
    monkeypatch.setattr("judge.runner.warm.SERVER_SCRIPT", tmp_path / "missing.py")
    work = tmp_path / "run"
    out = run_once(
        runner, work, program, (str(work / "box" / "feedback") + "/", "43", "exit"), b"", WarmStart(key="nowhere")
    )
    assert out == fresh


def test_a_program_whose_folder_shadows_a_servers_module_runs_fresh(runner, tmp_path) -> None:
    """A ``json.py`` beside the program is what ``import json`` gets in a fresh interpreter: such a program
    does not start warm (the server has loaded the standard one)."""
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "json.py").write_text("WHO = 'the folder'\n")
    script = tmp_path / "prog" / "v.py"
    script.write_text("import json\nprint(json.WHO)\n")
    fresh, warm = both(runner, tmp_path, script, ())
    assert warm == fresh and warm.stdout == "the folder\n"
    assert any("json" in why for why in runner._backend.warm.cold().values())  # type: ignore[union-attr]


def test_a_server_killed_during_a_run_is_the_judges_error(runner, tmp_path) -> None:
    """The server's own failure during a run is a sandbox error (a JE, never charged), nothing of the run is
    left, and the next run starts a new server."""
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "slow.py"
    script.write_text(
        "import sys, time\nif sys.argv[1:] == ['slow']:\n    open('started', 'w').close()\n    time.sleep(1000)\n"
        "sys.exit(42)\n"
    )
    both(runner, tmp_path, script, ())
    (server,) = warm_servers(runner, script)
    work = tmp_path / "run"
    started = work / "box" / "started"
    started.unlink(missing_ok=True)

    def kill_once_it_runs() -> None:  # the run under way (not before it: then a new server would run it)
        while not started.exists():
            time.sleep(0.01)
        os.kill(server.pid, signal.SIGKILL)

    import threading

    threading.Thread(target=kill_once_it_runs, daemon=True).start()
    out = run_once(runner, work, script, ("slow",), b"", True)
    # its end came from the server's death, not from its wall limit (LIMITS: 20 s)
    assert out.limit_hit is None and out.sandbox_error is not None and "warm server" in out.sandbox_error, out
    assert both(runner, tmp_path, script, ())[1].exit_code == 42


def test_a_server_that_does_not_answer_is_killed_and_the_run_is_the_judges_error(
    own_runner, tmp_path, monkeypatch
) -> None:
    """A server that does not answer a request in time may have forked the run (or may yet): it is killed,
    with whatever it started, and the run is a sandbox error (a JE, judged again), never started a second
    time on the same files (two processes writing one output: a wrong verdict)."""
    runner = own_runner
    (tmp_path / "prog").mkdir()
    script = tmp_path / "prog" / "v.py"
    script.write_text("print('ran')\n")
    assert both(runner, tmp_path, script, ())[1].stdout == "ran\n"
    (server,) = warm_servers(runner, script)
    monkeypatch.setattr("judge.runner.warm.REPLY_TIMEOUT_S", 0.5)
    os.kill(server.pid, signal.SIGSTOP)  # it gets the request, and never answers
    try:
        work = tmp_path / "run"
        out = run_once(runner, work, script, (), b"", True)
    finally:
        if server.alive():
            os.kill(server.pid, signal.SIGCONT)
    assert out.sandbox_error is not None and "no answer" in out.sandbox_error, out
    assert out.stdout == "" and server.proc.wait() == -signal.SIGKILL
    monkeypatch.undo()
    assert both(runner, tmp_path, script, ())[1].stdout == "ran\n"  # a new server
    assert [s.pid for s in warm_servers(runner, script)] != [server.pid]


def test_a_contestants_run_never_starts_warm(own_runner, tmp_path) -> None:
    """``warm`` on an untrusted run (a contestant's program) is ignored: it runs in the sandbox, as the slot's
    user, and no warm server is started or tried for it."""
    runner = own_runner
    box = tmp_path / "box"
    box.mkdir()
    spec = RunSpec(
        argv=("/usr/bin/id", "-u"),
        box=box,
        limits=Limits(time_s=5, wall_time_s=10),
        stdout=tmp_path / "out",
        warm=WarmStart(script=1, key="contestant"),
    )
    result = runner.run(spec)
    assert result.ok and result.sandbox_error is None, result
    assert int((tmp_path / "out").read_text()) in runner.held_uids()
    assert runner._backend is not None and runner._backend.warm is not None
    assert runner._backend.warm.servers() == [] and runner._backend.warm.cold() == {}


def test_the_preloaded_modules_are_the_outside_imports(tmp_path) -> None:
    (tmp_path / "own.py").write_text("import numpy\nfrom reference import rummy\n")
    (tmp_path / "v.py").write_text(
        "import sys, own\nfrom collections import abc\nimport os.path\ndef f():\n    import json\n"
    )
    assert set(preload_modules(tmp_path / "v.py")) == {
        "sys",
        "collections",
        "collections.abc",
        "os.path",
        "json",
        "numpy",
        "reference",
        "reference.rummy",
    }


def test_warm_starts_are_switched_off_by_the_config(tmp_path, program) -> None:
    r = make_runner(RunnerConfig(sandbox="auto", warm=False))
    try:
        if not r.can_run:
            pytest.skip("no sandbox here")
        assert r._backend is not None and r._backend.warm is None
        fresh, warm = both(r, tmp_path, program, ("{feedback}", "42", "exit"))
        assert fresh == warm
    finally:
        r.close()


def test_the_command_line_switch(tmp_path) -> None:
    """`judge --warm-validators on` and JUDGE_NO_WARM=1 give the same verdicts, scores and messages."""
    reports = {}
    for how, extra, env in (("on", ["--warm-validators", "on"], {}), ("off", [], {"JUDGE_NO_WARM": "1"})):
        done = subprocess.run(
            [sys.executable, "-m", "judge", *extra, "verify", str(ROOT / "tests" / "fixtures" / "divisor"), "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, **env},
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        reports[how] = comparable(json.loads(done.stdout))
    assert reports["on"] == reports["off"]


# hello's only Python program is its input validator (addk2025, digits2023/2025 and sum compare input
# validation warm and not too), and its 96 submissions, one per language, are judged by the default diff,
# which warm validators never touch: judging them twice took over two minutes of CI for nothing compared
NOT_COMPARED = {"hello"}
PYTHON_VALIDATED = sorted(
    p.name
    for p in (ROOT / "tests" / "fixtures").iterdir()
    if p.name not in NOT_COMPARED
    and any(
        "submissions" not in f.relative_to(p).parts and "validator" in str(f.relative_to(p)) for f in p.rglob("*.py")
    )
)


@pytest.mark.slow
@pytest.mark.parametrize("fixture", PYTHON_VALIDATED)
def test_the_fixture_packages_judge_alike_warm_and_not(fixture: str) -> None:
    """Every fixture package with a Python validator (output, input, static, interactive): `judge verify`
    gives the same verdicts, scores and messages with warm validators on and off."""
    from test_problem_packages import verify

    on = verify(ROOT / "tests" / "fixtures" / fixture, "on")
    assert comparable(verify(ROOT / "tests" / "fixtures" / fixture, "off")) == comparable(on)
