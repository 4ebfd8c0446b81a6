"""`judge worker SCHEDULER_ADDRESS`: a Dask worker that judges (docs/cluster.md)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from judge.cluster import ClusterError
from judge.commands.cluster import cluster_spec
from judge.commands.common import EXIT_JE, EXIT_OK, UsageError, runner_config
from judge.runner.config import default_cache_dir

if TYPE_CHECKING:
    from distributed import Worker

    from judge.cluster.service import JudgeService


def default_package_cache(environ: Mapping[str, str]) -> Path:
    """Where a worker unpacks packages unless told: in the judge's cache folder (README: JUDGE_CACHE_DIR)."""
    return default_cache_dir(environ) / "packages"


def cmd_worker(args: argparse.Namespace) -> int:
    # distributed takes most of a second to import: only the cluster commands import it
    from judge.cluster.service import SandboxBroken, WorkerConfig, WorkerSpec, serve

    if args.slots < 1:
        raise UsageError("--slots must be at least 1")
    if not 0 <= args.port < 65536:
        raise UsageError("--port must be a port number (0: any free port)")
    spec = cluster_spec(args, address=args.scheduler, timeout_s=args.timeout, role="worker")
    if spec.address is None:
        raise UsageError("judge worker: expected the scheduler's address (tcp://HOST:PORT), not local:N")
    config = WorkerConfig(runner_config(args), Path(args.cache) if args.cache else default_package_cache(os.environ))
    worker_spec = WorkerSpec(
        spec.address,
        args.slots,
        name=args.name,
        host=args.host,
        port=args.port,
        contact_address=args.contact_address,
        security=spec.security,
        timeout_s=args.timeout,
    )

    def started(worker: Worker, service: JudgeService) -> None:
        print(
            f"judge worker: joined {spec.address} as {worker.address} with {args.slots} slot(s): {service.describe()}",
            file=sys.stderr,
            flush=True,
        )

    try:
        retired = asyncio.run(serve(worker_spec, config, started=started))
    except SandboxBroken as exc:
        print(
            f"judge: error: the sandbox cannot run programs and validators here, so this worker does not join "
            f"the cluster: {exc} (see `judge doctor`)",
            file=sys.stderr,
        )
        return EXIT_JE
    except TimeoutError:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {spec.address} within {args.timeout:g} s; is `dask scheduler` "
            "running there?"
        ) from None
    if retired is not None:
        print(f"judge: error: this worker retired from the cluster: {retired}", file=sys.stderr)
        return EXIT_JE
    print("judge worker: stopped (the scheduler closed the connection)", file=sys.stderr)
    return EXIT_OK
