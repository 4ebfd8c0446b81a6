"""Where judging happens: the runner, the language table and the toolchain, built once at the edge (the
command line, a server's or a worker's start) and passed down."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from judge.languages.table import Language, Toolchain
from judge.runner import Runner


@dataclass(frozen=True)
class Environment:
    """What judging runs on: the sandbox's runner, the languages (languages.toml) and their tools."""

    runner: Runner
    languages: Mapping[str, Language]
    tools: Toolchain
    # where each test's folder goes (the validators' feedback and logs: what only the judge and the package's
    # programs write), a tmpfs when there is one (RunnerConfig.scratch_dir); None: beside the build, on disk
    scratch: Path | None = None
