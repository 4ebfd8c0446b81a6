"""The judge workers of a Dask cluster as `judge serve`'s judges page shows them (issue 30): read from the
scheduler's ``scheduler_info()`` (pure: no connection here; coordinator.ClusterJudges.workers asks)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.cluster.service import RESOURCE


@dataclass(frozen=True)
class ClusterWorker:
    address: str
    name: str
    slots: int  # its ``judge`` resource units
    executing: int  # tasks running on it now
    last_seen_s: float | None  # the scheduler's last heartbeat from it (epoch seconds)


def judge_workers(info: Mapping[str, Any]) -> list[ClusterWorker]:
    """The workers that judge (a ``judge`` resource), by address."""
    out = []
    for address, w in sorted(info.get("workers", {}).items()):
        slots = int(w.get("resources", {}).get(RESOURCE, 0))
        if slots <= 0:
            continue
        metrics = w.get("metrics", {})
        seen = w.get("last_seen")
        out.append(
            ClusterWorker(
                address=str(address),
                name=str(w.get("name", address)),
                slots=slots,
                executing=int(metrics.get("executing", 0) or 0),
                last_seen_s=float(seen) if isinstance(seen, int | float) else None,
            )
        )
    return out
