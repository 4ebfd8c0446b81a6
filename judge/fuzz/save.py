"""``judge fuzz --save``: a counterexample becomes a regression test of the package.

Where it goes depends on the layout of ``data/secret`` (see docs/fuzzing.md):

- ``data/secret`` has test groups (subfolders): into the group ``data/secret/fuzz/``, created with a
  maximum score of 0 (``range: 0 0``, or ``max_score: 0`` in 2025-09) so that the regression tests change
  no group's share of the points (a failure still decides the verdict);
- ``data/secret`` holds its tests directly: beside them, as ``data/secret/fuzz-<hash>.in``, because a
  subfolder would turn ``data/secret`` into a group of groups and take the points from its own tests.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from judge.fuzz.outcome import Counterexample
from judge.package.problem import Problem

FUZZ_GROUP = "fuzz"
GROUP_NOTE = "# Regression tests from `judge fuzz --save`: verdicts, not points.\n"
# in the keys of the package's format version (docs/package-format.md, "Test groups and scores")
GROUP_CONFIG = {
    "test_group.yaml": GROUP_NOTE + "max_score: 0\n",
    "testdata.yaml": GROUP_NOTE + "range: 0 0\naccept_score: 0\n",
}


def test_name(test_input: bytes) -> str:
    return "fuzz-" + hashlib.sha256(test_input).hexdigest()[:12]


def save_counterexample(problem: Problem, cex: Counterexample) -> tuple[Path, Path]:
    """Write the ``.in`` / ``.ans`` pair into the package (idempotent). Returns their paths."""
    secret = problem.path / "data" / "secret"
    has_groups = any(p.is_dir() for p in secret.iterdir())
    folder = secret / FUZZ_GROUP if has_groups else secret
    folder.mkdir(exist_ok=True)
    if has_groups and not any((folder / n).exists() for n in GROUP_CONFIG):
        name = problem.format_version.group_files[0]
        (folder / name).write_text(GROUP_CONFIG[name])
    name = test_name(cex.input)
    test_in, test_ans = folder / f"{name}.in", folder / f"{name}.ans"
    test_in.write_bytes(cex.input)
    test_ans.write_bytes(cex.answer)
    return test_in, test_ans
