"""Hostile programs against the namespace sandbox (bwrap backend only).

SAFETY: every test here first checks, with a harmless probe, that the sandbox is
really active (new PID namespace, no network, unprivileged uid) and skips with the
reason otherwise. Nothing in this file ever runs a hostile program any other way.
Each test also checks that the machine is fine afterwards: no process of our sandbox
uids is left, and the runner still runs a program.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from judge.runner import RunnerConfig, make_runner
from judge.runner.spec import LimitHit, Limits, Mount, RunResult, RunSpec

pytestmark = pytest.mark.hostile

HERE = Path(__file__).parent / "hostile"
REPO = Path(__file__).resolve().parents[1]
PY = str(Path(sys.executable).resolve())
PY_MOUNT = Mount(Path(sys.base_prefix).resolve())
C_PROGRAMS = [
    "forkbomb",
    "alloc4g",
    "busy",
    "sleep",
    "print1g",
    "tcp",
    "readsecret",
    "writeout",
    "killall",
    "daemon",
    "garbage",
]


@pytest.fixture(scope="module", params=["box server", "bwrap per run"])
def sandbox(request):
    runner = make_runner(RunnerConfig(sandbox="bwrap", box_server=request.param != "bwrap per run"))
    if not runner.info.mode.startswith(request.param):
        pytest.skip(f"{request.param} not used here: {runner.info.mode}")
    if runner.info.backend != "bwrap":
        pytest.skip(f"namespace sandbox not available, hostile programs NOT run: {runner.info.warnings}")
    box = Path(_tmp("probe"))
    shutil.copy(HERE / "probe.py", box)
    out = box / "out"
    res = runner.run(
        RunSpec(
            argv=(PY, "probe.py", "/work", "/root/.cache", str(REPO)),
            box=box,
            limits=Limits(wall_time_s=10),
            mounts=(PY_MOUNT,),
            stdout=out,
        )
    )
    try:
        probe = json.loads(out.read_text())
    except ValueError:
        pytest.skip(f"sandbox probe failed, hostile programs NOT run: {res}")
    problems = []
    if probe["uid"] == 0 or probe["euid"] == 0:
        problems.append("runs as root")
    if probe["pid"] > 10 or probe["visible_pids"] > 10:
        problems.append("no private PID namespace")
    if probe["interfaces"] != ["lo"]:
        problems.append(f"network interfaces {probe['interfaces']}")
    if any(probe["readable"].values()):
        problems.append(f"host paths visible: {probe['readable']}")
    if problems:
        pytest.skip("sandbox is not isolating, hostile programs NOT run: " + "; ".join(problems))
    return runner


_tmp_root: Path | None = None


def _tmp(name: str) -> Path:
    global _tmp_root
    if _tmp_root is None:
        import tempfile

        _tmp_root = Path(tempfile.mkdtemp(prefix="judge-hostile-"))
    d = _tmp_root / name
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture(scope="module")
def c_bin(sandbox):
    """Compile the C hostile programs (on the host: compiling them is harmless)."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed: C hostile programs not built")
    out = _tmp("cbin")
    for name in C_PROGRAMS:
        subprocess.run([gcc, "-O1", "-o", str(out / name), str(HERE / f"{name}.c")], check=True)
    return out


def hostile(
    runner, name: str, lang: str, c_bin: Path | None, limits: Limits, args: tuple[str, ...] = (), stdout: bool = True
) -> tuple[RunResult, str, Path]:
    box = _tmp(f"{name}-{lang}")
    for f in box.iterdir():
        f.unlink()
    if lang == "py":
        shutil.copy(HERE / f"{name}.py", box)
        argv = (PY, "-S", f"{name}.py", *args)
    else:
        assert c_bin is not None
        shutil.copy(c_bin / name, box)
        argv = (f"./{name}", *args)
    out = box.parent / f"{name}-{lang}.out"
    res = runner.run(
        RunSpec(
            argv=argv,
            box=box,
            limits=limits,
            mounts=(PY_MOUNT,),
            stdout=out if stdout else None,
            stderr=box.parent / f"{name}-{lang}.err",
        )
    )
    text = out.read_text(errors="replace")[:2000] if stdout and out.exists() else ""
    return res, text, box


def machine_is_fine(runner) -> None:
    """Nothing of our sandbox uids survives, and the runner still works."""
    uids = set(runner.held_uids())
    stray = []
    for p in psutil.process_iter(["uids", "pid", "name"]):
        u = p.info["uids"]
        if u is not None and (u.real in uids or u.effective in uids):
            stray.append((p.info["pid"], p.info["name"]))
    assert not stray, f"stray processes of sandbox uids {uids}: {stray}"
    res = runner.run(RunSpec(argv=("/bin/sh", "-c", "exit 5"), box=_tmp("alive"), limits=Limits(wall_time_s=10)))
    assert res.sandbox_error is None and res.exit_code == 5, res


LANGS = ["py", "c"]


def _lang(lang, c_bin_fixture):
    return c_bin_fixture if lang == "c" else None


@pytest.mark.parametrize("lang", LANGS)
def test_fork_bomb(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    limits = Limits(time_s=1, wall_time_s=3, processes=16)
    res, _, _ = hostile(sandbox, "forkbomb", lang, c_bin, limits)
    assert res.sandbox_error is None
    # ended by one of its limits (no wall-clock threshold here: on a loaded machine the last of its processes
    # may take a moment to be reaped after the wall limit; machine_is_fine checks none survives)
    assert res.limit_hit in (LimitHit.PROCESSES, LimitHit.CPU_TIME, LimitHit.WALL_TIME), res
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_allocate_4g_is_mle(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    res, _, _ = hostile(sandbox, "alloc4g", lang, c_bin, Limits(time_s=5, wall_time_s=10, memory_kib=256 * 1024))
    assert res.limit_hit is LimitHit.MEMORY, res
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_busy_loop_is_cpu_tle(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    limits = Limits(time_s=0.5, wall_time_s=5)
    res, _, _ = hostile(sandbox, "busy", lang, c_bin, limits)
    assert res.limit_hit is LimitHit.CPU_TIME, res
    assert res.cpu_time_s >= limits.time_s
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_sleep_is_wall_tle(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    limits = Limits(time_s=1, wall_time_s=1.5)
    res, _, _ = hostile(sandbox, "sleep", lang, c_bin, limits)
    assert res.limit_hit is LimitHit.WALL_TIME, res
    assert res.wall_time_s >= limits.wall_time_s
    assert res.cpu_time_s < limits.time_s
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_print_1g_is_ole(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    limits = Limits(time_s=5, wall_time_s=10, output_bytes=8 * 1024 * 1024)
    res, _, _ = hostile(sandbox, "print1g", lang, c_bin, limits, stdout=True)
    assert res.limit_hit is LimitHit.OUTPUT, res  # by the output limit, not by a time limit
    assert res.stdout_bytes <= limits.output_bytes + 1
    machine_is_fine(sandbox)


@pytest.fixture()
def listener():
    """A TCP server on the host's 127.0.0.1 that the program must not reach."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
                accepted.append(conn)
            except OSError:
                pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1], accepted
    stop.set()
    t.join()
    srv.close()


@pytest.mark.parametrize("lang", LANGS)
def test_tcp_to_localhost_fails(sandbox, request, lang, listener):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    port, accepted = listener
    # The same connection from the host works (so a failure inside means isolation).
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    for _ in range(200):  # wait until the server thread has accepted it
        if accepted:
            break
        time.sleep(0.01)
    before = len(accepted)
    res, out, _ = hostile(sandbox, "tcp", lang, c_bin, Limits(time_s=2, wall_time_s=5), args=(str(port),))
    assert res.exit_code == 0 and "blocked" in out, (res, out)
    assert len(accepted) == before
    machine_is_fine(sandbox)


def _secret_paths() -> list[str]:
    paths = [
        str(REPO / "reference"),
        str(REPO / "judge" / "model.py"),
        str(REPO / "problems"),
        str(Path(__file__).resolve()),
        "/work",
        "/root/.bash_history",
        "/etc/shadow",
        "/etc/root-permission-test.txt",  # .ci/setup makes it, root-only (as DOMjudge does)
    ]
    paths += [str(p) for p in sorted(REPO.glob("problems/*/data/secret"))[:3]]
    paths += [str(p) for p in sorted(REPO.glob("problems/*/data/secret/*.ans"))[:3]]
    paths += [str(p) for p in sorted(REPO.glob("reference/*.py"))[:3]]
    return paths


@pytest.mark.parametrize("lang", LANGS)
def test_host_files_are_not_visible(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    paths = _secret_paths()
    res, out, _ = hostile(sandbox, "readsecret", lang, c_bin, Limits(time_s=2, wall_time_s=5), args=tuple(paths))
    assert res.exit_code == 0 and "nothing readable" in out, (res, out)
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_cannot_write_outside_the_box(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    box_parent = _tmp(f"writeout-{lang}").parent
    targets = [
        str(box_parent / "escaped.txt"),
        "/etc/escaped",
        "/usr/escaped",
        "/escaped",
        "/proc/escaped",
        str(REPO / "escaped.txt"),
        "/dev/escaped",
    ]
    res, out, box = hostile(sandbox, "writeout", lang, c_bin, Limits(time_s=2, wall_time_s=5), args=tuple(targets))
    assert res.exit_code == 0 and "nothing writable" in out, (res, out)
    for t in targets:
        assert not Path(t).exists(), t
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_kill_minus_one_kills_only_its_own(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    sentinel = subprocess.Popen(["sleep", "60"])
    try:
        res, out, _ = hostile(sandbox, "killall", lang, c_bin, Limits(time_s=2, wall_time_s=5, processes=4))
        assert res.exit_code == 0 and "survived; child killed: True" in out, (res, out)
        assert sentinel.poll() is None, "a host process was killed"
    finally:
        sentinel.kill()
        sentinel.wait()
    machine_is_fine(sandbox)


@pytest.mark.parametrize("lang", LANGS)
def test_double_forked_daemon_is_killed(sandbox, request, lang):
    c_bin = request.getfixturevalue("c_bin") if lang == "c" else None
    res, out, box = hostile(sandbox, "daemon", lang, c_bin, Limits(time_s=2, wall_time_s=5, processes=4))
    assert res.exit_code == 0 and "main exits" in out, (res, out)
    assert (box / "daemon.pid").exists()  # the daemon did start
    machine_is_fine(sandbox)  # ... and is gone now


# -- interactive: the program misbehaves towards its peer; nobody may hang -------------


def _interactive(runner, program: tuple[str, ...], box: Path, wall: float = 2.0):
    peer_box = _tmp("peer")
    shutil.copy(HERE / "peer.py", peer_box)
    prog = RunSpec(argv=program, box=box, limits=Limits(time_s=1, wall_time_s=wall), mounts=(PY_MOUNT,))
    peer = RunSpec(
        argv=(PY, "peer.py"),
        box=peer_box,
        limits=Limits(time_s=5, wall_time_s=wall + 10),
        trusted=True,
        stderr=peer_box / "err",
    )
    res = runner.run_interactive(prog, peer, transcript=peer_box / "transcript")
    return res, (peer_box / "err").read_text()


@pytest.mark.parametrize("script", ["early_close.py", "early_close_wait.py", "garbage.py"])
def test_interactive_misbehaviour_never_hangs(sandbox, script):
    box = _tmp(f"i-{script}")
    shutil.copy(HERE / script, box)
    res, err = _interactive(sandbox, (PY, "-S", script), box)
    assert res.peer.exit_code == 43, (res, err)  # the peer rejects (PV), and it is over
    assert res.program.sandbox_error is None and res.peer.sandbox_error is None
    if script == "early_close_wait.py":
        assert res.program.limit_hit is LimitHit.WALL_TIME or res.peer_first
    machine_is_fine(sandbox)


def test_interactive_garbage_in_c(sandbox, c_bin):
    box = _tmp("i-garbage-c")
    shutil.copy(c_bin / "garbage", box)
    res, err = _interactive(sandbox, ("./garbage",), box)
    assert res.peer.exit_code == 43 and "PV:" in err, (res, err)
    machine_is_fine(sandbox)


def test_interactive_honest_program_is_accepted(sandbox):
    box = _tmp("i-doubler")
    shutil.copy(HERE / "doubler.py", box)
    res, err = _interactive(sandbox, (PY, "-S", "doubler.py"), box)
    assert res.peer.exit_code == 42, (res, err)
    assert res.program.ok or res.program.signal is not None or res.peer_first
