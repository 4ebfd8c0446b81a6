"""The folders of a judge killed mid-judgement are removed when the next judge starts, never a living judge's
(judge/runner/workdirs.py; docs/sandbox.md, "Folders left behind"). Every sweep here is of a tmp_path: never
the machine's /tmp or /dev/shm, where other runs keep their folders."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.runner.config import RunnerConfig
from judge.runner.workdirs import GRACE_S, MARK, HeldDir, is_judge_folder_name, sweep_stale

ROOT = Path(__file__).parent.parent

# a judge in miniature: makes its folder the way the judge does (HeldDir), says where, and waits to be killed
OWNER = """
import sys
from pathlib import Path
from judge.runner.workdirs import HeldDir
held = HeldDir(sys.argv[1], Path(sys.argv[2]))
(held.path / "output").write_bytes(b"x" * 4096)
print(held.path, flush=True)
sys.stdin.read()
"""


class Owner:
    """A child process holding a folder of the judge's in ``parent`` (``unshare``: in a PID namespace of its own)."""

    def __init__(self, parent: Path, prefix: str = "judge-", *, unshare: bool = False) -> None:
        command = [sys.executable, "-c", OWNER, prefix, str(parent)]
        self.unshare = unshare
        if unshare:
            command = ["unshare", "--pid", "--fork", *command]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert self.proc.stdout is not None
        said = self.proc.stdout.readline().strip()
        assert said, "the owner did not make its folder"
        self.path = Path(said)
        assert self.path.is_dir()
        assert self.path.parent == parent

    def kill(self) -> None:
        """SIGKILL: no ``finally`` runs, the folder stays behind (as after the OOM killer or a power cut). In a
        PID namespace, the holder is unshare's child (pid 1 there); unshare exits once it is reaped."""
        holder = self.proc.pid
        if self.unshare:
            children = Path(f"/proc/{holder}/task/{holder}/children").read_text().split()
            assert len(children) == 1
            holder = int(children[0])
        os.kill(holder, signal.SIGKILL)
        self.proc.wait()
        assert self.path.is_dir()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def owners() -> Iterator[list[Owner]]:
    made: list[Owner] = []
    yield made
    for owner in made:
        owner.stop()


def old(path: Path) -> Path:
    """``path`` last modified an hour ago: well out of the grace of a folder being made."""
    past = time.time() - 3600
    os.utime(path, (past, past), follow_symlinks=False)
    return path


def test_a_stale_folder_whose_owner_was_killed_is_removed(tmp_path: Path, owners: list[Owner]) -> None:
    owner = Owner(tmp_path)
    owners.append(owner)
    assert is_judge_folder_name(owner.path.name) and owner.path.name.endswith(MARK)
    owner.kill()
    assert sweep_stale([old(owner.path).parent]) == (owner.path,)
    assert not owner.path.exists()


def test_a_living_owners_folder_is_kept_however_old(tmp_path: Path, owners: list[Owner]) -> None:
    living = Owner(tmp_path, "judge-packages-")
    owners.append(living)
    assert sweep_stale([old(living.path).parent], grace_s=0) == ()
    assert (living.path / "output").is_file()
    living.kill()  # and once it is gone, it is stale
    assert sweep_stale([tmp_path]) == (living.path,)


def test_this_processs_own_folder_is_kept(tmp_path: Path) -> None:
    """The lock is the open folder's, not a pid's: even a sweep in the owner's own process sees it held."""
    with HeldDir("judge-", tmp_path) as path:
        assert sweep_stale([old(path).parent], grace_s=0) == ()
        assert path.is_dir()
    assert not path.exists()  # and the owner removes it itself as before


def test_a_folder_in_another_pid_namespace_is_kept_while_its_owner_lives(tmp_path: Path, owners: list[Owner]) -> None:
    """A judge in a container sharing /tmp or /dev/shm: its pid means nothing here, its lock does."""
    if subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot make a PID namespace here")
    owner = Owner(tmp_path, "judge-fuzz-", unshare=True)
    owners.append(owner)
    assert sweep_stale([old(owner.path).parent], grace_s=0) == ()
    owner.kill()
    assert sweep_stale([tmp_path]) == (owner.path,)


def test_a_folder_being_made_is_left_alone_within_the_grace(tmp_path: Path) -> None:
    """mkdtemp, then flock: a folder not locked yet, modified less than a minute ago, is not taken for stale."""
    fresh = tmp_path / f"judge-abcd1234{MARK}"
    fresh.mkdir()
    assert GRACE_S >= 60
    assert sweep_stale([tmp_path]) == ()
    assert fresh.is_dir()
    assert sweep_stale([old(fresh).parent]) == (fresh,)  # a minute on, nobody locked it: its maker is gone


def test_only_the_judges_own_folders_are_touched(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / f"judge-tttttttt{MARK}"  # stale itself, but reached only through a link
    target.mkdir()
    (target / "keep").write_text("not swept through a link")
    old(target)
    swept = tmp_path / "swept"
    swept.mkdir()
    kept = [
        swept / f"other-abcd1234{MARK}",  # another prefix
        swept / "judge-abcd1234",  # a folder of a judge from before the lock: it may still be running
        swept / f"judge-selftest-abcd1234{MARK}",  # not one of the prefixes
        swept / f"judge-abcd12345{MARK}",  # not mkdtemp's name
        swept / "sub",
    ]
    for path in kept:
        path.mkdir()
    nested = swept / "sub" / f"judge-abcd1234{MARK}"  # not directly in the swept folder
    nested.mkdir()
    link = swept / f"judge-linklink{MARK}"
    link.symlink_to(target, target_is_directory=True)
    a_file = swept / f"judge-filefile{MARK}"
    a_file.write_text("a file, not a folder")
    for path in (*kept, nested, link, a_file):
        old(path)
    assert sweep_stale([swept]) == ()
    assert all(p.is_dir() for p in kept) and nested.is_dir() and (target / "keep").is_file()
    assert link.is_symlink() and a_file.is_file()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another uid needs root")
def test_another_uids_folder_is_kept(tmp_path: Path) -> None:
    theirs = tmp_path / f"judge-theirs00{MARK}"
    theirs.mkdir()
    os.chown(theirs, 65534, 65534)
    assert sweep_stale([old(theirs).parent]) == ()
    assert theirs.is_dir()


def test_a_folder_that_cannot_be_read_is_a_log_line_never_a_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert sweep_stale([tmp_path / "missing"]) == ()
    assert "cannot look for stale folders" in caplog.text


def test_two_judges_starting_at_once_sweep_a_folder_once_without_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The other judge's sweep removed the folder between this sweep's open and its lock: nothing to do here."""
    import fcntl

    from judge.runner import workdirs

    stale = tmp_path / f"judge-twice000{MARK}"
    stale.mkdir()
    real_flock = fcntl.flock

    def the_other_sweep_first(fd: int, operation: int) -> None:
        real_flock(fd, operation)
        stale.rmdir()

    monkeypatch.setattr(workdirs.fcntl, "flock", the_other_sweep_first)
    assert sweep_stale([old(stale).parent]) == ()
    assert "cannot" not in caplog.text


def test_the_edge_sweeps_the_temporary_folder_and_the_scratch(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    config = RunnerConfig.from_environ({"JUDGE_SCRATCH_DIR": str(scratch)})
    assert scratch in config.sweep_dirs and len(config.sweep_dirs) == 2  # and the process's temporary folder
    assert RunnerConfig.from_environ({"JUDGE_NO_SCRATCH": "1"}).sweep_dirs == config.sweep_dirs[:1]
    assert RunnerConfig().sweep_dirs == ()  # a runner built in code (a test's) sweeps nothing


def test_making_a_runner_sweeps(tmp_path: Path, owners: list[Owner]) -> None:
    """make_runner: the one place every judge's runner is made (the command line's make_environment, a cluster
    worker's JudgeService.start)."""
    from judge.runner import make_runner

    owner = Owner(tmp_path)
    owners.append(owner)
    owner.kill()
    make_runner(RunnerConfig(sandbox="rlimits", sweep_dirs=(old(owner.path).parent,))).close()
    assert not owner.path.exists()


def test_a_cluster_workers_judge_sweeps_at_its_start(tmp_path: Path, owners: list[Owner]) -> None:
    """The worker's judge (JudgeService.start, in the Dask worker's process) makes its runner there: it sweeps
    the folders its WorkerConfig names (`judge worker`'s and `judge grade --cluster local:N`'s: from_environ)."""
    from judge.cluster.service import JudgeService, WorkerConfig

    owner = Owner(tmp_path)
    owners.append(owner)
    owner.kill()
    config = WorkerConfig(RunnerConfig(sweep_dirs=(old(owner.path).parent,)), tmp_path / "packages")
    JudgeService.start(config).close()
    assert not owner.path.exists()


ECHO = "import sys\nsys.stdout.write(sys.stdin.read())\n"


def test_the_command_line_sweeps_at_its_start(tmp_path: Path, owners: list[Owner]) -> None:
    """`judge verify` with TMPDIR and JUDGE_SCRATCH_DIR here: the folders of a killed judge in both are gone,
    a living judge's stay, and the run's own folders are removed by the run itself."""
    from fakes import make_package

    package = make_package(tmp_path / "echo", {"name": "Echo"}, {"secret/1": (b"7\n", b"7\n")}, validator=False)
    (package / "submissions" / "accepted").mkdir(parents=True)
    (package / "submissions" / "accepted" / "echo.py").write_text(ECHO)
    temp, scratch = tmp_path / "tmp", tmp_path / "scratch"
    temp.mkdir()
    scratch.mkdir()
    stale = [Owner(temp), Owner(temp, "judge-packages-"), Owner(scratch)]
    living = [Owner(temp), Owner(scratch)]
    owners.extend([*stale, *living])
    for owner in stale:
        owner.kill()
    for owner in (*stale, *living):
        old(owner.path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp), "JUDGE_SCRATCH_DIR": str(scratch)}
    proc = subprocess.run(
        [sys.executable, "-m", "judge", "verify", str(package), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert all(row["ok"] for row in json.loads(proc.stdout)["submissions"])
    assert not any(owner.path.exists() for owner in stale)
    assert all((owner.path / "output").is_file() for owner in living)
    left = {p for folder in (temp, scratch) for p in folder.iterdir()}
    assert left == {owner.path for owner in living}
