"""The judge inside a Dask worker: a worker plugin that builds the judging environment and runs the sandbox
self-test before the worker joins the scheduler, and the tasks the coordinator submits.

A worker that fails the self-test raises in the plugin's set-up, so Dask never registers it (it refuses to
join). A job is judged with jobs.judge_job, exactly as locally. Whatever happens comes back as a value
(an ``Outcome``), never as a task error:

- ``Judged``: the result (it may be a JE: the package's or the judge's failure, as locally);
- ``Skipped``: the language's toolchain is missing here (a reason, not a verdict);
- ``WorkerRefused``: this worker cannot judge like the coordinator expects: its sandbox broke (a JE result is
  followed by the self-test; when that fails too, the JE is the sandbox's, and is not returned), or its
  judge or toolchain versions differ from the ones the coordinator keys results with. The worker stops
  taking judge jobs (its ``judge`` resource drops to 0) and retires from the cluster; the coordinator
  sends the job again, to another worker;
- ``Failed``: the worker's own machinery failed (a damaged package archive): a JE, judged again next time.

Runs on the worker's threads; thread-safe.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import dask
from distributed import Future, Worker, WorkerPlugin, get_client, get_worker, rejoin, secede
from distributed.core import Status
from distributed.security import Security
from distributed.utils import sync

from judge.cluster.archive import ArchiveError, PackageArchive, cached, load_unpacked, unpack
from judge.judging.build import SkipLanguage
from judge.judging.identity import judge_version, toolchain_hash
from judge.judging.jobs import JudgeJob, judge_job
from judge.judging.prepared import Packages
from judge.judging.results import SubmissionResult
from judge.judging.selftest import self_test
from judge.judging.submission import Environment
from judge.judging.verdict import Verdict
from judge.languages.fingerprint import Fingerprints
from judge.languages.table import load_languages, toolchain
from judge.package.problem import PackageError
from judge.runner import RunnerConfig, make_runner

PLUGIN = "judge"  # the plugin's name on the worker
RESOURCE = "judge"  # the resource judge workers declare (one unit per slot) and judge jobs ask for
RETIRED_TOPIC = "judge-retired"  # the Dask event a retiring worker logs: {"worker": address, "reason": why}
FETCH_TIMEOUT_S = 600.0  # fetching a package archive from the cluster
# Dask settings of judge workers (and of a local cluster's scheduler): no statistical profiler (it samples
# the threads every 10 ms, and says nothing here: judge tasks wait on sandboxed processes), no GIL sampling,
# and the system monitor and the event loop's tick every 5 s and 0.5 s rather than 0.5 s and 20 ms. Idle, a
# LocalCluster of two workers then costs about 1 s of CPU a minute rather than 5 s.
WORKER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.tick.interval": "500ms",
}
LEAVE_WAIT_S = 120.0  # a retiring worker waits this long at most for its running tasks to return
logger = logging.getLogger("distributed.judge")  # in Dask's log stream, with its format


class SandboxBroken(Exception):
    """The self-test failed on this worker: it does not join."""


@dataclass(frozen=True)
class WorkerConfig:
    """How a judge worker judges: built at the edge (`judge worker`, `judge grade --cluster local:N`)."""

    runner: RunnerConfig
    package_cache: Path  # where packages are unpacked, by content hash (shared by the machine's workers)


@dataclass(frozen=True)
class Identity:
    """What results judged on a worker are keyed with (identity.py), and the sandbox's warnings."""

    worker: str
    judge_version: str
    warnings: tuple[str, ...]
    fingerprints: Mapping[str, str] = field(default_factory=dict)  # language id -> fingerprint


@dataclass(frozen=True)
class PackageRef:
    """A package version as a job names it, and the dataset its archive is published under (coordinator.py)."""

    problem: str
    content_hash: str
    key: str


@dataclass(frozen=True)
class Expected:
    """What the coordinator keys the job's result with."""

    judge_version: str
    toolchain: str


@dataclass(frozen=True)
class Judged:
    result: SubmissionResult
    worker: str


@dataclass(frozen=True)
class Skipped:
    reason: str


@dataclass(frozen=True)
class WorkerRefused:
    reason: str
    worker: str


@dataclass(frozen=True)
class Failed:
    message: str
    worker: str


Outcome = Judged | Skipped | WorkerRefused | Failed


class JudgePlugin(WorkerPlugin):
    """Installed on a worker when it is made (Worker(plugins=...)); set up before the worker registers."""

    name = PLUGIN

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.service: JudgeService | None = None

    def __getstate__(self) -> dict[str, object]:  # travels to a Nanny's worker process before set-up
        return {"config": self.config, "service": None}

    async def setup(self, worker: Worker) -> None:
        self.service = await asyncio.to_thread(JudgeService.start, self.config)
        logger.info("judge ready: %s", self.service.describe())

    def teardown(self, worker: Worker) -> None:
        if self.service is not None:
            self.service.close()

    @property
    def retired(self) -> str | None:
        """Why this worker retired (None: it did not)."""
        return self.service.retired if self.service is not None else None


class JudgeService:
    def __init__(self, config: WorkerConfig, env: Environment) -> None:
        self.config = config
        self.env = env
        self.judge_version = judge_version(env)
        self._fingerprints = Fingerprints(env.languages, env.tools, env.runner)
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._packages: dict[tuple[str, str], Packages] = {}
        self._fetching: dict[tuple[str, str], threading.Lock] = {}
        self.retired: str | None = None

    @classmethod
    def start(cls, config: WorkerConfig) -> JudgeService:
        """The environment of ``config``; raises SandboxBroken when the self-test fails."""
        runner = make_runner(config.runner)
        env = Environment(runner, load_languages(), toolchain(), scratch=config.runner.scratch_dir)
        result = self_test(env.runner, env.tools)
        if not result.ok:
            env.runner.close()
            raise SandboxBroken(result.failure())
        return cls(config, env)

    def describe(self) -> str:
        info = self.env.runner.info
        return f"{self.judge_version}, sandbox {info.backend} ({info.mode}), packages in {self.config.package_cache}"

    def identity(self, worker: Worker, languages: tuple[str, ...]) -> Identity | WorkerRefused:
        """What this worker keys results with; WorkerRefused when its sandbox broke (the toolchains' versions are
        what they print in the sandbox)."""
        if self.retired is not None:
            return WorkerRefused(self.retired, worker.address)
        fingerprints = {lang: self._fingerprints.of(lang) for lang in languages}
        broken = self.check_sandbox()
        if broken is not None:
            return self.retire(worker, f"the sandbox broke: {broken}")
        return Identity(worker.address, self.judge_version, tuple(self.env.runner.info.warnings), fingerprints)

    def packages(self, ref: PackageRef) -> Packages:
        """The package of ``ref``, its validator built once: from the cache on disk, else fetched from the
        cluster (one fetch per worker process and package) and unpacked into it."""
        key = (ref.problem, ref.content_hash)
        with self._lock:
            found = self._packages.get(key)
            lock = self._fetching.setdefault(key, threading.Lock())
        if found is not None:
            return found
        with lock:
            with self._lock:
                found = self._packages.get(key)
            if found is not None:
                return found
            folder = cached(self.config.package_cache, ref.problem, ref.content_hash)
            if folder is None:
                folder = unpack(_fetch(ref), self.config.package_cache)
            problem = load_unpacked(folder, ref.problem, ref.content_hash)
            packages = Packages({problem.id: problem}, self.env)
            with self._lock:
                self._packages[key] = packages
            return packages

    def judge(self, worker: Worker, job: JudgeJob, package: PackageRef, expected: Expected) -> Outcome:
        address = worker.address
        if self.retired is not None:
            return WorkerRefused(self.retired, address)
        try:
            packages = self.packages(package)
            problem = packages.problem(job.problem)
            mine = toolchain_hash(job.language, problem, self.env.languages, self._fingerprints.of)
        except (ArchiveError, PackageError, OSError) as exc:
            return Failed(f"judge error on worker {address} (not the contestant's fault): {exc}", address)
        if self.judge_version != expected.judge_version or mine != expected.toolchain:
            broken = self.check_sandbox()  # a toolchain's version is what it prints in the sandbox
            if broken is not None:
                return self.retire(worker, f"the sandbox broke: {broken}")
            what = "judge" if self.judge_version != expected.judge_version else f"toolchain for {job.language}"
            return self.retire(
                worker,
                f"this worker's {what} differs from the one the coordinator keys results with "
                f"({self.judge_version} {mine} here, {expected.judge_version} {expected.toolchain} there)",
            )
        try:
            result = judge_job(job, packages, self.env)
        except SkipLanguage as exc:
            return Skipped(str(exc))
        if result.verdict is Verdict.JE:
            broken = self.check_sandbox()
            if broken is not None:
                return self.retire(worker, f"the sandbox broke: {broken}")
        return Judged(result, address)

    def check_sandbox(self) -> str | None:
        """None when the self-test passes, else what failed."""
        with self._check_lock:
            result = self_test(self.env.runner, self.env.tools)
        return None if result.ok else result.failure()

    def retire(self, worker: Worker, reason: str) -> WorkerRefused:
        """Take no more judge jobs, and leave the cluster (the results this worker holds move elsewhere)."""
        with self._lock:
            first = self.retired is None
            if first:
                self.retired = reason
        if first:
            logger.error("judge worker %s retires: %s", worker.address, reason)
            worker.log_event(RETIRED_TOPIC, {"worker": worker.address, "reason": reason})  # for coordinators
            sync(worker.loop, worker.set_resources, **{RESOURCE: 0})
            worker.loop.add_callback(_leave, worker, reason)
        return WorkerRefused(self.retired or reason, worker.address)

    def close(self) -> None:
        with self._lock:
            packages, self._packages = list(self._packages.values()), {}
        for p in packages:
            p.close()
        self.env.runner.close()


async def _leave(worker: Worker, reason: str) -> None:
    """Once the tasks running here have returned (each answers WorkerRefused, or a result judged before the
    sandbox broke), retire through the scheduler, which moves their outcomes to other workers first; then
    close (with the Nanny, if any)."""
    deadline = time.monotonic() + LEAVE_WAIT_S
    while worker.state.executing_count and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    try:
        await worker.scheduler.retire_workers(
            workers=[worker.address], close_workers=True, remove=True, stimulus_id=f"judge-retire-{time.time()}"
        )
    except Exception:  # noqa: BLE001 - the scheduler is gone: close all the same
        logger.warning("retiring through the scheduler failed; closing", exc_info=True)
    await asyncio.sleep(1.0)  # the scheduler closes a retired worker itself
    if worker.status in (Status.running, Status.paused):  # not retired (no other worker to take its data)
        await worker.close(reason=f"judge: {reason}", nanny=True)


def _service() -> tuple[Worker, JudgeService]:
    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN)
    if not isinstance(plugin, JudgePlugin) or plugin.service is None:
        raise RuntimeError(f"worker {worker.address} has no judge (start it with `judge worker`)")
    return worker, plugin.service


def judge_task(job: JudgeJob, package: PackageRef, expected: Expected) -> Outcome:
    """The task the coordinator submits for each job."""
    worker, service = _service()
    try:
        return service.judge(worker, job, package, expected)
    except Exception as exc:  # noqa: BLE001 - the judge's own bug: a JE, never a task error
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return Failed(f"judge error on worker {worker.address} (not the contestant's fault): {detail}", worker.address)


def identity_task(languages: tuple[str, ...]) -> Identity | WorkerRefused:
    """The identity of the worker that runs it, with the fingerprints of ``languages``."""
    worker, service = _service()
    return service.identity(worker, languages)


def package_task(archive: PackageArchive) -> PackageArchive:
    """A package archive as a task of its own, so that the scheduler can make it again on another worker
    if the one holding it dies (scattered data could not be)."""
    return archive


def _fetch(ref: PackageRef) -> PackageArchive:
    """The archive of ``ref`` from the cluster, where the coordinator published it as a dataset. Judge
    tasks do not depend on it (the scheduler would then send every job to the worker that holds it): a
    worker fetches it once, when its cache lacks it. The waiting task secedes from the worker's thread
    pool, so that the archive's task can run meanwhile (e.g. again, after the worker holding it died)."""
    client = get_client()
    secede()
    try:
        future = client.get_dataset(ref.key, default=None)
        archive = future.result(timeout=FETCH_TIMEOUT_S) if isinstance(future, Future) else None
    finally:
        rejoin()
    if not isinstance(archive, PackageArchive):
        raise ArchiveError(f"package {ref.problem}: the cluster holds no archive named {ref.key}")
    return archive


@dataclass(frozen=True)
class WorkerSpec:
    """A judge worker as `judge worker` asks for it: the scheduler it joins, its slots, how it is reached."""

    scheduler: str  # the scheduler's address
    slots: int  # submissions judged at once
    name: str | None = None  # in the scheduler (None: its address)
    host: str | None = None  # listen on this address (None: every interface)
    port: int = 0  # listen on this port (0: any free one)
    contact_address: str | None = None  # where the others reach it, when it differs from where it listens
    security: Security | None = None  # TLS
    timeout_s: float = 60.0  # how long to try reaching the scheduler


async def serve(
    spec: WorkerSpec, config: WorkerConfig, *, started: Callable[[Worker, JudgeService], None] | None = None
) -> str | None:
    """Run the judge worker of ``spec`` until it stops; returns why it retired (None: it was closed, e.g. the
    scheduler went away). Raises SandboxBroken (it never joined), TimeoutError (the scheduler was not
    reached within ``spec.timeout_s``)."""
    plugin = JudgePlugin(config)
    with dask.config.set(WORKER_CONFIG):
        worker = Worker(
            spec.scheduler,
            nthreads=spec.slots,
            resources={RESOURCE: spec.slots},
            plugins=(plugin,),
            name=spec.name,
            host=spec.host,
            port=spec.port,
            contact_address=spec.contact_address,
            security=spec.security,
            death_timeout=spec.timeout_s,
            memory_limit=0,  # the judged programs run in the sandbox, with their own limits
            dashboard=False,
        )
    try:
        await worker
    except Exception as exc:
        cause: BaseException | None = exc
        while cause is not None:
            if isinstance(cause, SandboxBroken | TimeoutError):
                raise cause from None
            cause = cause.__cause__
        raise
    if started is not None and plugin.service is not None:
        started(worker, plugin.service)
    await worker.finished()
    return plugin.retired
