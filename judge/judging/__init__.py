"""Judging one submission: building it, running its tests through the problem types, checking output,
verdicts and scores; and who judges jobs (this process or a cluster). Above ``package`` and ``languages``,
below ``grade``, ``serve``, ``fuzz`` and ``authoring`` (docs/design.md)."""
