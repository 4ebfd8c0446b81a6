"""Judging on many machines with Dask distributed (docs/cluster.md).

- ``archive``: a package as bytes keyed by its content hash, unpacked into a worker's cache;
- ``service``: the judge inside a Dask worker (a worker plugin: environment, self-test, retiring) and the
  tasks it runs;
- ``coordinator``: `judge grade --cluster`'s side: connecting (or starting a LocalCluster), sending jobs,
  taking the results back (grade.judges.Judges).

Importing ``distributed`` takes most of a second: only the cluster commands import these modules.
"""


class ClusterError(Exception):
    """The cluster cannot be used (the scheduler is unreachable, the connection was lost, the local workers
    did not start): one line for the user, exit 3. Nothing was stored half-way."""
