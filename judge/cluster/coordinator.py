"""`judge grade --cluster`: the coordinator's side of judging on a Dask cluster.

The coordinator connects to a scheduler (or starts a ``LocalCluster`` of N judge worker processes on this
machine), asks a judge worker for the identity results are keyed with (the judge version, the toolchains'
fingerprints: the workers' own, so the coordinator needs neither a sandbox nor toolchains), and then, for
each job grade's loop hands it, submits one task that needs one ``judge`` resource unit and waits for its
outcome (service.py). The package travels as a task of its own (its archive, keyed by content hash): a
worker fetches it with its first job of that problem, and the scheduler makes it again if the worker
holding it dies. Only the coordinator writes results (grade's loop, in its main thread).

Faults: a worker that dies mid-job -> Dask runs its tasks again elsewhere; the coordinator gets one outcome
per task, so each submission is stored once. A worker that refuses (its sandbox broke, or it judges under
another identity) has retired itself; the job is sent again. The scheduler unreachable, or the connection
lost -> ``ClusterError`` (the results stored so far are whole; the rest is judged on the next run).
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import dask
from distributed import Client, Future, LocalCluster
from distributed.comm.addressing import get_address_host_port, parse_address
from distributed.scheduler import KilledWorker
from distributed.security import Security

from judge.cluster import ClusterError
from judge.cluster.archive import pack
from judge.cluster.service import (
    RESOURCE,
    RETIRED_TOPIC,
    WORKER_CONFIG,
    Expected,
    Failed,
    Identity,
    Judged,
    JudgePlugin,
    Outcome,
    PackageRef,
    Skipped,
    WorkerConfig,
    WorkerRefused,
    identity_task,
    judge_task,
    package_task,
)
from judge.cluster.workers import ClusterWorker, judge_workers
from judge.judging.build import SkipLanguage
from judge.judging.jobs import JudgeJob, judge_error
from judge.judging.judges import NotJudged
from judge.judging.results import SubmissionResult
from judge.package.deps import verdict_hash
from judge.package.problem import Problem

LOCAL = "local:"
POLL_S = 1.0  # how often a waiting thread looks whether grading was stopped
WAITING_NOTE_S = 5.0  # say that no judge worker is there after this long
SLOTS_TTL_S = 1.0  # how long the cluster's slot count is reused before asking the scheduler again


@dataclass(frozen=True)
class ClusterSpec:
    """``--cluster``: a scheduler's address, or ``local:N``."""

    address: str | None = None
    local_workers: int = 0
    timeout_s: float = 10.0  # connecting to the scheduler
    security: Security | None = None  # TLS (tls_security); None: Dask's configuration

    def describe(self) -> str:
        return f"a local cluster of {self.local_workers} workers" if self.local_workers else f"{self.address}"


def parse_cluster(text: str, timeout_s: float) -> ClusterSpec:
    """Raises ValueError (one line) for what is neither ``local:N`` nor a scheduler's address."""
    if text.startswith(LOCAL):
        count = text[len(LOCAL) :]
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--cluster {text}: expected local:N with N >= 1 worker processes")
        return ClusterSpec(local_workers=int(count), timeout_s=timeout_s)
    try:
        scheme, _ = parse_address(text)
        if scheme not in ("tcp", "tls"):
            raise ValueError(f"unsupported scheme {scheme!r} (tcp:// or tls://)")
        get_address_host_port(text)
    except ValueError as exc:
        raise ValueError(f"--cluster {text}: not a scheduler address like tcp://HOST:8786 ({exc})") from None
    return ClusterSpec(address=text, timeout_s=timeout_s)


def tls_security(
    address: str | None, ca_file: str | None, cert: str | None, key: str | None, *, role: str
) -> Security | None:
    """Dask's TLS settings from the command line (``role``: "client" or "worker"), or None: Dask's own
    configuration (``distributed.comm.tls.*``, which may require TLS too). Raises ValueError when TLS is
    half-configured, or a tls:// address has no certificate anywhere."""
    if not (ca_file or cert or key):
        if address is not None and address.startswith("tls://"):
            if Security().get_connection_args(role).get("ssl_context") is None:
                raise ValueError(
                    f"{address}: a tls:// scheduler needs --tls-ca-file, --tls-cert and --tls-key (or Dask's "
                    "distributed.comm.tls configuration; see docs/cluster.md)"
                )
        return None
    if not (ca_file and cert):
        raise ValueError("TLS needs --tls-ca-file and --tls-cert (and --tls-key unless the key is in the cert file)")
    return Security(
        require_encryption=True,
        tls_ca_file=ca_file,
        **{f"tls_{role}_cert": cert, f"tls_{role}_key": key},
    )


@contextmanager
def open_cluster(spec: ClusterSpec, worker: WorkerConfig | None = None) -> Iterator[Client]:
    """A client of the scheduler of ``spec`` (for ``local:N``, a LocalCluster of judge workers made with
    ``worker``, started here and stopped on exit). Raises ClusterError."""
    cluster: LocalCluster | None = None
    client: Client | None = None
    try:
        if spec.local_workers:
            assert worker is not None, "a local cluster needs its workers' configuration"
            cluster = start_local(spec.local_workers, worker)
            address = cluster.scheduler_address
        else:
            assert spec.address is not None
            address = spec.address
        client = connect(address, spec.timeout_s, spec.security)
        yield client
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def start_local(workers: int, config: WorkerConfig, *, slots: int = 1) -> LocalCluster:
    """A scheduler and ``workers`` judge worker processes (``slots`` jobs each) on this machine, listening
    on 127.0.0.1 only. Raises ClusterError."""
    try:
        with dask.config.set(WORKER_CONFIG):  # the Nanny hands its configuration to the worker process
            return LocalCluster(
                n_workers=workers,
                threads_per_worker=slots,
                processes=True,
                resources={RESOURCE: slots},
                plugins=(JudgePlugin(config),),
                host="127.0.0.1",
                protocol="tcp://",
                scheduler_port=0,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
                memory_limit=0,
            )
    except Exception as exc:  # noqa: BLE001 - Dask wraps the worker's own error: say the innermost
        raise ClusterError(f"the local cluster's judge workers did not start: {_innermost(exc)}") from None


def connect(address: str, timeout_s: float, security: Security | None = None) -> Client:
    """Raises ClusterError when the scheduler cannot be reached within ``timeout_s``."""
    try:
        return Client(address, timeout=timeout_s, security=security, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address} ({exc}); is `dask scheduler` running there? "
            "Nothing was judged"
        ) from None


def _innermost(exc: BaseException) -> str:
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


class ClusterJudges:
    """grade.judges.Judges on a Dask cluster; ``judge`` is called from grade's worker threads."""

    def __init__(
        self,
        client: Client,
        problems: Mapping[str, Problem],
        languages: tuple[str, ...],
        *,
        where: str,
        note: Callable[[str], None],
    ) -> None:
        self._client = client
        self._problems = problems
        self._where = where
        self._note = note
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._archives: dict[str, Future] = {}
        self._refused: set[str] = set()
        self._slots = (0.0, 0)
        client.subscribe_topic(RETIRED_TOPIC, self._on_retired)
        identity = self._identity(languages)
        self.judge_version = identity.judge_version
        self.warnings = identity.warnings
        self._fingerprints = dict(identity.fingerprints)

    # -- what results are keyed with --------------------------------------------------------------
    def _identity(self, languages: tuple[str, ...]) -> Identity:
        """The identity most judge workers share (each connected one is asked; when none is connected yet,
        the first to join). A worker whose sandbox is broken refuses and retires; one that differs from the
        chosen identity retires when it gets its first job (service.py)."""
        while True:
            workers: list[str | None] = [*sorted(self._judge_workers())] or [None]
            futures = [
                self._client.submit(
                    identity_task,
                    languages,
                    resources={RESOURCE: 1},
                    workers=None if w is None else [w],
                    allow_other_workers=True,  # if that worker dies meanwhile
                    pure=False,
                    key=f"judge-identity-{uuid.uuid4().hex}",
                )
                for w in workers
            ]
            identities: list[Identity] = []
            for future in futures:
                try:
                    outcome = self._wait(future)
                except ClusterError:
                    raise
                except Exception as exc:  # noqa: BLE001 - a worker that cannot answer: the cluster is unusable
                    raise ClusterError(f"a judge worker could not say what it judges with: {_innermost(exc)}") from None
                if isinstance(outcome, WorkerRefused):
                    self._refused_by(outcome)
                elif isinstance(outcome, Identity):
                    identities.append(outcome)
            if identities:
                votes = Counter((i.judge_version, tuple(sorted(i.fingerprints.items()))) for i in identities)
                best = max(votes.values())
                return next(
                    i for i in identities if votes[(i.judge_version, tuple(sorted(i.fingerprints.items())))] == best
                )

    def _judge_workers(self) -> list[str]:
        workers = self._client.scheduler_info()["workers"]
        return [addr for addr, w in workers.items() if w.get("resources", {}).get(RESOURCE, 0) > 0]

    def fingerprint(self, language: str) -> str:
        if language not in self._fingerprints:
            self._fingerprints.update(self._identity((language,)).fingerprints)
        return self._fingerprints[language]

    def slots(self) -> int:
        return max(1, self._connected_slots())

    def workers(self) -> list[ClusterWorker]:
        """The judge workers connected now (`judge serve`'s judges page); none when the scheduler is gone."""
        try:
            return judge_workers(self._client.scheduler_info())
        except Exception:  # noqa: BLE001 - the connection is going: the page says there are none
            return []

    def _connected_slots(self) -> int:
        """The ``judge`` resource units of the workers connected now (asked at most once a second)."""
        asked, total = self._slots
        if time.monotonic() - asked > SLOTS_TTL_S:
            try:
                workers = self._client.scheduler_info()["workers"].values()
                total = sum(int(w.get("resources", {}).get(RESOURCE, 0)) for w in workers)
            except Exception:  # noqa: BLE001 - the connection is going: the waiting threads will say so
                pass
            self._slots = (time.monotonic(), total)
        return total

    # -- judging ------------------------------------------------------------------------------------
    def judge(self, job: JudgeJob, toolchain: str) -> SubmissionResult:
        problem = self._problems[job.problem]
        try:
            package = self._package(problem)
        except (OSError, PackageChanged) as exc:
            return judge_error(problem, job, f"judge error (not the contestant's fault): {exc}")
        expected = Expected(self.judge_version, toolchain)
        while True:
            future = self._client.submit(
                judge_task,
                job,
                package,
                expected,
                resources={RESOURCE: 1},
                pure=False,
                key=f"judge-{job.problem}-{uuid.uuid4().hex}",
            )
            try:
                outcome: Outcome = self._wait(future)
            except KilledWorker as exc:
                raise NotJudged(
                    f"every worker that took it died ({exc}); see the workers' logs (judged again next time)"
                ) from None
            except (ClusterError, NotJudged):
                raise
            except Exception as exc:  # noqa: BLE001 - the task failed on the worker: the judge's failure
                outcome = Failed(f"judge error on the cluster (not the contestant's fault): {_innermost(exc)}", "")
            if isinstance(outcome, Judged):
                return outcome.result
            if isinstance(outcome, Skipped):
                raise SkipLanguage(outcome.reason)
            if isinstance(outcome, Failed):
                return judge_error(problem, job, outcome.message)
            self._refused_by(outcome)  # and send it again: the worker took itself out of the pool

    def _refused_by(self, refused: WorkerRefused) -> None:
        with self._lock:
            first = refused.worker not in self._refused
            self._refused.add(refused.worker)
        if first:
            self._note(f"worker {refused.worker} left the cluster: {refused.reason}; its jobs go to other workers")

    def _on_retired(self, event: tuple[float, dict[str, str]]) -> None:
        """A worker's retirement (a Dask event), which may come before or instead of its WorkerRefused answer."""
        _, message = event
        self._refused_by(WorkerRefused(str(message.get("reason", "")), str(message.get("worker", "?"))))

    def _package(self, problem: Problem) -> PackageRef:
        """The package's archive as a task of the cluster (made once per grading; kept while grading, so
        that the scheduler makes it again if the worker holding it dies)."""
        with self._lock:
            if problem.id not in self._archives:
                archive = pack(problem)
                if verdict_hash(problem.path) != problem.content_hash:
                    raise PackageChanged(f"package {problem.id} changed on disk while grading; grade again")
                name = f"judge-package-{archive.name}"
                future = self._client.submit(package_task, archive, key=name, pure=False)
                self._client.publish_dataset(future, name=name, override=True)
                self._archives[problem.id] = future
            return PackageRef(problem.id, problem.content_hash, str(self._archives[problem.id].key))

    def _wait(self, future: Future) -> Any:
        """The task's result; raises ClusterError when the scheduler is lost or grading stops."""
        started = time.monotonic()
        noted = False
        try:
            while True:
                if self._stopped.is_set():
                    raise ClusterError("grading stopped")
                try:
                    return future.result(timeout=POLL_S)
                except TimeoutError:
                    if not noted and time.monotonic() - started > WAITING_NOTE_S and self._connected_slots() == 0:
                        noted = True
                        self._note(
                            f"no judge worker is connected to {self._where}: waiting for one "
                            "(start it with `judge worker ADDRESS`)"
                        )
                except CancelledError:
                    raise ClusterError(
                        f"lost the connection to the Dask scheduler at {self._where}; the results stored so far "
                        "are kept, grade again to judge the rest"
                    ) from None
        finally:
            future.release()

    def close(self) -> None:
        self._stopped.set()
        try:
            self._client.unsubscribe_topic(RETIRED_TOPIC)
        except Exception:  # noqa: BLE001 - the client is closed already
            pass
        with self._lock:
            archives, self._archives = list(self._archives.values()), {}
        for future in archives:
            try:
                self._client.unpublish_dataset(str(future.key))
            except Exception:  # noqa: BLE001 - the scheduler is gone (and the dataset with it)
                pass
            future.release()


class PackageChanged(Exception):
    """The package on disk is no longer the one loaded at the start."""
