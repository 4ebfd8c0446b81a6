"""The cluster options of `judge grade` and `judge serve` (``--cluster``, ``--cluster-timeout``, TLS): the
scheduler to use, and the cluster as judges (docs/cluster.md). ``distributed`` is imported only when a
cluster is asked for."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING

from judge.commands.common import UsageError, runner_config
from judge.grade.progress import printable
from judge.judging.judges import Judges
from judge.package.problem import Problem
from judge.runner.workdirs import HeldDir

if TYPE_CHECKING:
    from judge.cluster.coordinator import ClusterSpec


def cluster_spec(
    args: argparse.Namespace, *, address: str | None = None, timeout_s: float | None = None, role: str = "client"
) -> ClusterSpec:
    """The scheduler (or local cluster) the command's options name: ``--cluster`` and
    ``--cluster-timeout`` unless ``address`` and ``timeout_s`` are given; the TLS options for ``role``."""
    from judge.cluster.coordinator import parse_cluster, tls_security  # distributed: the cluster commands only

    address = args.cluster if address is None else address
    timeout_s = args.cluster_timeout if timeout_s is None else timeout_s
    if timeout_s <= 0:
        raise UsageError(f"{'--cluster-timeout' if role == 'client' else '--timeout'} must be positive")
    try:
        spec = parse_cluster(address, timeout_s)
        security = tls_security(spec.address, args.tls_ca_file, args.tls_cert, args.tls_key, role=role)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return replace(spec, security=security)


def cluster_judges(
    args: argparse.Namespace,
    spec: ClusterSpec,
    problems: Mapping[str, Problem],
    languages: Iterable[str],
    stack: ExitStack,
) -> Judges:
    """The cluster of ``spec`` (connected, or started here for local:N) as judges (grade.judges.Judges)
    of ``problems``, asked at once for the fingerprints of ``languages``; closed with ``stack``. Raises
    ClusterError."""
    from judge.cluster.coordinator import ClusterJudges, open_cluster
    from judge.cluster.service import WorkerConfig

    config = None
    if spec.local_workers:  # the local workers' packages are unpacked for this grading only
        cache = stack.enter_context(HeldDir("judge-packages-"))
        config = WorkerConfig(runner_config(args), cache)
    client = stack.enter_context(open_cluster(spec, config))

    def note(text: str) -> None:
        print(f"judge: {printable(text)}", file=sys.stderr, flush=True)

    judges = ClusterJudges(client, problems, tuple(sorted(languages)), where=spec.describe(), note=note)
    stack.callback(judges.close)
    return judges
