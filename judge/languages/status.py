"""`judge doctor`'s language table: each language with its toolchain's version, or what to install."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from judge.languages.fingerprint import toolchain_version
from judge.languages.table import Language, Toolchain, install_advice, missing_program, missing_tool
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
            tool = missing_program(lang)
            detail = f"no `{tool}`: {install_advice(lang)}" if tool is not None else missing
            out.append(LanguageStatus(lang.id, lang.name, False, detail))
            continue
        # The check runs in the sandbox: it proves the toolchain works where submissions run.
        lines = [
            line.strip()
            for line in toolchain_version(lang, tools, runner).splitlines()
            if line.strip() and "warning" not in line.lower()  # e.g. the JVM's deprecation notes
        ]
        out.append(LanguageStatus(lang.id, lang.name, True, lines[0] if lines else "present"))
    return out
