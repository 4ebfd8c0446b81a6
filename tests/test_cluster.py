"""`judge grade --cluster` and `judge worker` on one machine (Dask distributed, loopback only): the same
results as local grading; a worker killed mid-grade; a worker whose sandbox breaks; a worker whose sandbox
does not work at all; the scheduler unreachable, or lost mid-grade.

Every scheduler listens on 127.0.0.1 on a free port and stops with its test; the `judge worker` processes
stop when their scheduler does (and are killed at the end of the test if not).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import put
from distributed import Client, LocalCluster
from distributed.security import Security
from fakes import FakeRunner

from judge.cluster import ClusterError
from judge.cluster.coordinator import ClusterJudges, ClusterSpec, open_cluster, start_local
from judge.cluster.service import RESOURCE, WorkerConfig
from judge.commands.cli import main
from judge.grade.discovery import Entry, discover, load_problems
from judge.grade.options import GradeOptions
from judge.grade.schedule import Grading, Listener, grade
from judge.grade.storage import Store, StoredRun
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import Runner, RunnerConfig

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).parent.parent
PROBLEMS = ("sum", "primes", "guess")

# ~0.1 s of CPU per test, then the answer (or a wrong one): slow enough to kill a worker mid-job.
BURN = """import time
t = time.process_time()
while time.process_time() - t < 0.1:
    pass
a, b = map(int, input().split())
print(a {op} b)
"""

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def problems(tmp_path: Path) -> Path:
    out = tmp_path / "problems"
    for p in PROBLEMS:
        shutil.copytree(FIXTURES / p, out / p, ignore=shutil.ignore_patterns("submissions"))
    return out


@pytest.fixture(scope="module")
def bwrap_runner(sandbox_runner: Runner) -> Runner:
    if sandbox_runner.info.backend != "bwrap":
        pytest.skip("needs the bubblewrap sandbox")
    return sandbox_runner


def sub(problem: str, folder: str, name: str) -> Path:
    return FIXTURES / problem / "submissions" / folder / name


def burn_contest(root: Path) -> dict[str, str]:
    """Six contestants, one sum each (four tests of 0.1 s CPU; WA ones stop after the first): the verdicts."""
    verdicts = {}
    for i, op in enumerate("++-+-+"):
        put(root, f"c{i}", "sum.py", BURN.format(op=op))
        verdicts[f"c{i}"] = "AC" if op == "+" else "WA"
    return verdicts


def outcome(doc: dict[str, Any]) -> dict[tuple[str, str], Any]:
    """What must not depend on where or how parallel the judging ran: verdicts, scores, per-test verdicts."""
    return {
        (c, p): (r["verdict"], r["score"], [(t["name"], t["verdict"], t["score"]) for t in r["tests"]])
        for c, by_problem in doc["results"].items()
        for p, r in by_problem.items()
    }


def grade_cli(root: Path, problems: Path, out: Path, *extra: str) -> int:
    return main(["grade", str(root), "--problems", str(problems), "--out", str(out), "--json", *extra])


def stored_runs(db: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """(contestant, problem) -> (runs stored, tests stored for them)."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT contestant, problem, COUNT(DISTINCT runs.id), COUNT(tests.run_id) "
            "FROM runs LEFT JOIN tests ON tests.run_id = runs.id GROUP BY contestant, problem"
        ).fetchall()
    return {(c, p): (n, t) for c, p, n, t in rows}


def coordinator_env() -> Environment:
    """The coordinator's environment: languages only; it runs nothing itself (the workers do)."""
    return Environment(FakeRunner(), load_languages(), toolchain())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def scheduler() -> Iterator[str]:
    """A scheduler without workers, on 127.0.0.1."""
    with LocalCluster(
        n_workers=0, host="127.0.0.1", scheduler_port=0, dashboard_address=None, silence_logs=logging.CRITICAL
    ) as cluster:
        yield cluster.scheduler_address


def breakable_bwrap(tmp_path: Path, marker: Path) -> dict[str, str]:
    """The environment of a worker whose bubblewrap fails once ``marker`` exists (each run starts its own)."""
    real = shutil.which("bwrap") or "/usr/bin/bwrap"
    wrapper = tmp_path / "bwrap"
    wrapper.write_text(
        f'#!/bin/sh\nif [ -e "{marker}" ]; then echo "bwrap: broken by the test" >&2; exit 1; fi\nexec "{real}" "$@"\n'
    )
    wrapper.chmod(0o755)
    return {"JUDGE_BWRAP": str(wrapper), "JUDGE_NO_BOX_SERVER": "1"}


def start_worker(address: str, cache: Path, env: dict[str, str] | None = None, *extra: str) -> subprocess.Popen[str]:
    """`judge worker` with one slot, listening on 127.0.0.1 (``extra``: more options)."""
    argv = [sys.executable, "-m", "judge", "worker", address, "--slots", "1", "--host", "127.0.0.1"]
    argv += ["--cache", str(cache), "--timeout", "30", *extra]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen(argv, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def judge_workers(client: Client) -> int:
    workers = client.scheduler_info()["workers"].values()
    return sum(1 for w in workers if w.get("resources", {}).get(RESOURCE))


def wait_for_workers(client: Client, count: int, procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 120
    while judge_workers(client) < count:
        for p in procs:
            assert p.poll() is None, f"a worker stopped: {p.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, "the workers did not join"
        time.sleep(0.2)


def stop(procs: list[subprocess.Popen[str]]) -> list[str]:
    """Kill what still runs; the processes' stderr."""
    errs = []
    for p in procs:
        if p.poll() is None:
            p.kill()
        errs.append(p.communicate()[1])
    return errs


# -- the same results as local grading --------------------------------------------------------------


@pytest.mark.slow
def test_a_local_cluster_grades_like_local_jobs(
    tmp_path: Path, problems: Path, bwrap_runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "contest"
    put(root, "ann", "sum.py", sub("sum", "accepted", "sum.py"))
    put(root, "ann", "guess.c", sub("guess", "accepted", "binary.c"))  # compiled on the worker
    put(root, "ann", "primes.py", sub("primes", "accepted", "sieve.py"))
    put(root, "bea", "sum.py", sub("sum", "wrong_answer", "minus.py"))
    put(root, "bea", "primes.py", sub("primes", "partially_accepted", "capped.py"))
    put(root, "bea", "guess.py", sub("guess", "protocol_violation", "garbage.py"))
    put(root, "cid", "sum.c", "int main(void) { return x; }\n")  # CE
    put(root, "cid", "guess.py", sub("guess", "wrong_answer", "linear.py"))
    local, cluster = tmp_path / "local", tmp_path / "cluster"

    assert grade_cli(root, problems, local, "--jobs", "2") == 0
    capsys.readouterr()
    assert grade_cli(root, problems, cluster, "--cluster", "local:2") == 0
    assert "8 judged, 0 reused" in capsys.readouterr().out
    by_local = json.loads((local / "results.json").read_text())
    by_cluster = json.loads((cluster / "results.json").read_text())
    assert outcome(by_cluster) == outcome(by_local)
    assert {v[:2] for v in outcome(by_cluster).values()} >= {("AC", 100), ("WA", 40), ("PV", 0), ("CE", 0)}
    assert by_cluster["judge_version"] == by_local["judge_version"]
    assert by_cluster["standings"] == by_local["standings"]

    # The cluster's results are keyed exactly like local ones: grading locally now judges nothing.
    assert grade_cli(root, problems, cluster) == 0
    assert "0 judged, 8 reused" in capsys.readouterr().out
    assert all(count == 1 for count, _ in stored_runs(cluster / "grade.sqlite").values())


# -- faults ---------------------------------------------------------------------------------------------


class KillABusyWorker(Listener):
    """When the first result is stored, SIGKILL a worker that is judging a job at that moment."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.killed: tuple[str, tuple[str, ...]] | None = None

    def done(self, entry: Entry, run: StoredRun | None, note: str) -> None:
        if self.killed is not None:
            return
        deadline = time.monotonic() + 30
        while True:
            busy = {
                w: tuple(k for k in keys if str(k).startswith("judge-") and not str(k).startswith("judge-package"))
                for w, keys in self.client.processing().items()
            }
            busy = {w: keys for w, keys in busy.items() if keys}
            if busy or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert busy, "no worker was judging anything"
        victim, keys = sorted(busy.items())[0]
        pid = self.client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        self.killed = (victim, keys)


@pytest.mark.slow
def test_the_jobs_of_a_worker_killed_mid_grade_run_again_and_are_stored_once(
    tmp_path: Path, problems: Path, bwrap_runner: Runner
) -> None:
    root = tmp_path / "contest"
    verdicts = burn_contest(root)
    loaded, _ = load_problems(problems)
    env = coordinator_env()
    contest = discover(root, loaded, env.languages)
    config = WorkerConfig(RunnerConfig.from_environ(os.environ), tmp_path / "cache")
    db = tmp_path / "grade.sqlite"
    with open_cluster(ClusterSpec(local_workers=2), config) as client, Store(db) as store:
        killer = KillABusyWorker(client)
        judges = ClusterJudges(client, loaded, ("python3",), where="test", note=print)
        try:
            summary = grade(Grading(contest, loaded, env), store, GradeOptions(), listener=killer, judges=judges)
        finally:
            judges.close()
    assert killer.killed is not None  # a worker died while judging
    assert summary.judged == 6 and not summary.issues
    assert {c: run.result.verdict.value for (c, _), run in summary.runs.items()} == verdicts
    # every submission stored exactly once, with all of its tests
    runs = stored_runs(db)
    assert {c: n for (c, _), (n, _) in runs.items()} == {c: 1 for c in verdicts}
    assert {c: t for (c, _), (_, t) in runs.items()} == {
        c: len(run.result.tests) for (c, _), run in summary.runs.items()
    }


@pytest.mark.slow
def test_a_worker_whose_sandbox_broke_before_grading_retires(
    tmp_path: Path, problems: Path, bwrap_runner: Runner, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Worker B's bubblewrap fails from after it joined until the end (every run starts its own bwrap):
    asked what it judges with, B finds its sandbox broken and retires; A judges everything."""
    root, out = tmp_path / "contest", tmp_path / "board"
    verdicts = burn_contest(root)
    marker = tmp_path / "break-bwrap"
    cache = tmp_path / "cache"
    a = start_worker(scheduler, cache, None)
    b = start_worker(scheduler, cache, breakable_bwrap(tmp_path, marker))
    try:
        with Client(scheduler, timeout=30) as client:
            wait_for_workers(client, 2, [a, b])
        marker.touch()
        assert grade_cli(root, problems, out, "--cluster", scheduler) == 0
        err = capsys.readouterr().err
        assert "left the cluster: the sandbox broke" in err
        b_status = b.wait(timeout=60)
        assert a.poll() is None  # A judged on
    finally:
        _, b_err = stop([a, b])
    assert b_status == 3
    assert "judge: error: this worker retired from the cluster: the sandbox broke" in b_err
    doc = json.loads((out / "results.json").read_text())
    assert {c: r["sum"]["verdict"] for c, r in doc["results"].items()} == verdicts  # no JE
    assert all(n == 1 for n, _ in stored_runs(out / "grade.sqlite").values())


class BreakWhileJudging(threading.Thread):
    """Break worker B's sandbox as soon as B has a job (the identity questions come before any job)."""

    def __init__(self, client: Client, worker: str, marker: Path) -> None:
        super().__init__(daemon=True)
        self.client, self.worker, self.marker = client, worker, marker
        self.job: tuple[str, ...] = ()
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            keys = self.client.processing().get(self.worker, ())
            self.job = tuple(str(k) for k in keys if str(k).startswith("judge-sum-"))
            if self.job:
                self.marker.touch()
                return
            time.sleep(0.01)


@pytest.mark.slow
def test_a_worker_whose_sandbox_breaks_mid_job_retires_and_the_job_runs_elsewhere(
    tmp_path: Path, problems: Path, bwrap_runner: Runner, scheduler: str
) -> None:
    """B's runs fail from the middle of one of its jobs: that job ends in JE on B, the self-test then fails,
    so B answers Refused and retires, and the coordinator sends the job again (to A). No JE is stored."""
    root = tmp_path / "contest"
    verdicts = burn_contest(root)
    loaded, _ = load_problems(problems)
    env = coordinator_env()
    contest = discover(root, loaded, env.languages)
    marker = tmp_path / "break-bwrap"
    cache = tmp_path / "cache"
    a = start_worker(scheduler, cache, None, "--name", "A")
    b = start_worker(scheduler, cache, breakable_bwrap(tmp_path, marker), "--name", "B")
    notes: list[str] = []
    try:
        with Client(scheduler, timeout=30) as client, Store(tmp_path / "grade.sqlite") as store:
            wait_for_workers(client, 2, [a, b])
            (b_address,) = [w for w, i in client.scheduler_info()["workers"].items() if i["name"] == "B"]
            breaker = BreakWhileJudging(client, b_address, marker)
            judges = ClusterJudges(client, loaded, ("python3",), where=scheduler, note=notes.append)
            breaker.start()
            try:
                summary = grade(Grading(contest, loaded, env), store, GradeOptions(), judges=judges)
            finally:
                breaker.stop.set()
                judges.close()
        b_status = b.wait(timeout=60)
        assert a.poll() is None
    finally:
        _, b_err = stop([a, b])
    assert breaker.job, "B was judging nothing when its sandbox broke"
    assert b_status == 3 and "this worker retired from the cluster: the sandbox broke" in b_err
    assert any(n.startswith(f"worker {b_address} left the cluster: the sandbox broke") for n in notes), b_err
    assert {c: run.result.verdict.value for (c, _), run in summary.runs.items()} == verdicts  # no JE
    assert all(n == 1 for n, _ in stored_runs(tmp_path / "grade.sqlite").values())


def test_a_worker_whose_sandbox_does_not_work_does_not_join(tmp_path: Path, scheduler: str) -> None:
    environ = {"JUDGE_BWRAP": "/bin/false", "JUDGE_SANDBOX": "bwrap"}  # bwrap or nothing: nothing works
    worker = start_worker(scheduler, tmp_path / "cache", environ)
    try:
        status = worker.wait(timeout=120)
        with Client(scheduler, timeout=30) as client:
            assert not client.scheduler_info()["workers"]
    finally:
        (err,) = stop([worker])
    assert status == 3
    lines = err.strip().splitlines()
    assert lines[-1].startswith("judge: error: the sandbox cannot run programs and validators here, so this worker")


def test_an_unreachable_scheduler_is_one_line_and_nothing_is_stored(tmp_path: Path, problems: Path) -> None:
    root, out = tmp_path / "contest", tmp_path / "board"
    burn_contest(root)
    address = f"tcp://127.0.0.1:{free_port()}"  # nobody listens there
    argv = [sys.executable, "-m", "judge", "grade", str(root), "--problems", str(problems), "--out", str(out)]
    argv += ["--cluster", address, "--cluster-timeout", "2"]
    done = subprocess.run(argv, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
    assert done.returncode == 3
    assert done.stderr.strip().splitlines() == [
        f"judge: error: cannot reach the Dask scheduler at {address} (Timed out trying to connect to {address} "
        "after 2 s); is `dask scheduler` running there? Nothing was judged"
    ]
    assert not out.exists()  # no database, no board


@pytest.mark.slow
def test_a_scheduler_lost_mid_grade_keeps_whole_results_only(
    tmp_path: Path, problems: Path, bwrap_runner: Runner
) -> None:
    """The scheduler stops when the first result is stored: grading stops with ClusterError; what is stored
    is whole, and a new grading (here: local) reuses it and judges the rest."""
    root = tmp_path / "contest"
    verdicts = burn_contest(root)
    loaded, _ = load_problems(problems)
    env = coordinator_env()
    contest = discover(root, loaded, env.languages)
    config = WorkerConfig(RunnerConfig.from_environ(os.environ), tmp_path / "cache")
    db = tmp_path / "grade.sqlite"
    cluster = start_local(1, config)

    class StopTheCluster(Listener):
        def done(self, entry: Entry, run: StoredRun | None, note: str) -> None:
            if cluster.status.name == "running":
                cluster.close()

    try:
        with Client(cluster.scheduler_address, timeout=5) as client, Store(db) as store:
            judges = ClusterJudges(client, loaded, ("python3",), where=cluster.scheduler_address, note=print)
            try:
                with pytest.raises(ClusterError, match="lost the connection to the Dask scheduler"):
                    grading = Grading(contest, loaded, env)
                    grade(grading, store, GradeOptions(), listener=StopTheCluster(), judges=judges)
            finally:
                judges.close()
    finally:
        cluster.close()
    before = stored_runs(db)
    assert 1 <= len(before) < len(verdicts)

    with Store(db) as store:
        grading = Grading(contest, loaded, Environment(bwrap_runner, load_languages(), toolchain()))
        summary = grade(grading, store, GradeOptions(jobs=2))
    assert summary.reused == len(before) and summary.judged == len(verdicts) - len(before)
    assert {c: run.result.verdict.value for (c, _), run in summary.runs.items()} == verdicts
    assert stored_runs(db) == {key: (1, len(run.result.tests)) for key, run in summary.runs.items()}


# -- TLS --------------------------------------------------------------------------------------------------


def make_certificates(folder: Path) -> None:
    """A CA, certificates it signs for the scheduler, the worker and the coordinator, and one it does not."""
    folder.mkdir()

    def openssl(*argv: str) -> None:
        subprocess.run(["openssl", *argv], cwd=folder, check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=judge test CA")
    openssl("req", "-x509", *ec, "-keyout", "stranger.key", "-out", "stranger.pem", "-days", "2", "-subj", "/CN=x")
    for name in ("scheduler", "worker", "coordinator"):
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
        sign = ("-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2")
        openssl("x509", "-req", "-in", f"{name}.csr", *sign, "-out", f"{name}.pem")


def tls_options(certs: Path, name: str) -> list[str]:
    ca, cert, key = str(certs / "ca.pem"), str(certs / f"{name}.pem"), str(certs / f"{name}.key")
    return ["--tls-ca-file", ca, "--tls-cert", cert, "--tls-key", key]


@pytest.mark.slow
def test_tls_with_certificates_of_one_ca(
    tmp_path: Path, problems: Path, bwrap_runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    """Scheduler, worker and coordinator each with a certificate of the organizer's CA: grading works; a
    coordinator with a certificate of another CA, or none, is turned away."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    certs = tmp_path / "certs"
    make_certificates(certs)
    security = Security(
        tls_ca_file=str(certs / "ca.pem"),
        tls_scheduler_cert=str(certs / "scheduler.pem"),
        tls_scheduler_key=str(certs / "scheduler.key"),
        tls_client_cert=str(certs / "coordinator.pem"),
        tls_client_key=str(certs / "coordinator.key"),
        require_encryption=True,
    )
    root, out = tmp_path / "contest", tmp_path / "board"
    verdicts = burn_contest(root)
    with LocalCluster(
        n_workers=0,
        host="127.0.0.1",
        protocol="tls://",
        security=security,
        scheduler_port=0,
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://127.0.0.1:")
        worker = start_worker(address, tmp_path / "cache", None, *tls_options(certs, "worker"))
        try:
            with Client(address, security=security, timeout=30) as client:
                wait_for_workers(client, 1, [worker])
            assert grade_cli(root, problems, out, "--cluster", address, *tls_options(certs, "coordinator")) == 0
            doc = json.loads((out / "results.json").read_text())
            assert {c: r["sum"]["verdict"] for c, r in doc["results"].items()} == verdicts
            capsys.readouterr()
            for options in (tls_options(certs, "stranger"), []):
                extra = ["--cluster", address, "--cluster-timeout", "2", *options]
                assert grade_cli(root, problems, tmp_path / "other", *extra) in (2, 3)
                (line,) = capsys.readouterr().err.strip().splitlines()
                assert line.startswith("judge: error:") and address in line
        finally:
            stop([worker])
