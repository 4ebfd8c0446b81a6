"""`judge doctor`: which toolchains are here, which sandbox is in use and what it enforces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from judge.fingerprint import toolchain_version
from judge.languages import Language, Toolchain, missing_tool
from judge.runner import Runner


@dataclass(frozen=True)
class LanguageStatus:
    id: str
    name: str
    present: bool
    detail: str  # version line, or what to install


def language_status(languages: Mapping[str, Language], tools: Toolchain, runner: Runner) -> list[LanguageStatus]:
    out: list[LanguageStatus] = []
    for lang in languages.values():
        missing = missing_tool(lang, tools)
        if missing is not None:
            out.append(LanguageStatus(lang.id, lang.name, False, missing))
            continue
        # The check runs in the sandbox: it proves the toolchain works where submissions run.
        lines = toolchain_version(lang, tools, runner).splitlines()
        out.append(LanguageStatus(lang.id, lang.name, True, lines[0] if lines else "present"))
    return out
