"""Which version of the Kattis package format a package uses, and where that version keeps things.

Pure: reads nothing but the ``problem.yaml`` mapping it is given. See docs/package-format.md, "Format versions".
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from judge.package.testgroups import PackageError


class FormatVersion(StrEnum):
    LEGACY = "legacy"  # no problem_format_version (or `legacy`, `legacy-icpc`)
    V2023_07 = "2023-07"  # `2023-07-draft` / `2023-07`: as Kattis' problemtools reads it
    V2025_09 = "2025-09"  # `2025-09` (and the `2025-09-draft` / `draft` strings)

    @property
    def statement_folders(self) -> tuple[str, ...]:
        """Where the statement is looked for, the version's own folder first."""
        if self is FormatVersion.LEGACY:
            return ("problem_statement", "statement")
        return ("statement", "problem_statement")

    @property
    def output_validator_folders(self) -> tuple[str, ...]:
        """``output_validator/`` is one program (2023-07+); ``output_validators/`` holds one (legacy)."""
        if self is FormatVersion.LEGACY:
            return ("output_validators", "output_validator")
        return ("output_validator", "output_validators")

    @property
    def group_files(self) -> tuple[str, ...]:
        """Test group settings files, the version's own first (problemtools reads testdata.yaml for 2023-07)."""
        if self is FormatVersion.V2025_09:
            return ("test_group.yaml", "testdata.yaml")
        return ("testdata.yaml", "test_group.yaml")


_NAMES = {
    "legacy": FormatVersion.LEGACY,
    "legacy-icpc": FormatVersion.LEGACY,
    "2023-07-draft": FormatVersion.V2023_07,
    "2023-07": FormatVersion.V2023_07,
    "2025-09": FormatVersion.V2025_09,
    "2025-09-draft": FormatVersion.V2025_09,
    "draft": FormatVersion.V2025_09,
}


def format_version(config: Mapping[str, Any]) -> FormatVersion:
    """The package's format version from its problem.yaml (absent: legacy)."""
    raw = config.get("problem_format_version")
    if raw is None:
        return FormatVersion.LEGACY
    found = _NAMES.get(str(raw).strip())
    if found is None:
        known = ", ".join(sorted(_NAMES))
        raise PackageError(f"problem.yaml: unknown problem_format_version {raw!r} (known: {known})")
    return found
