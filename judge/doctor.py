"""`judge doctor`: which toolchains are here, which sandbox is in use and what it enforces."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from judge.languages import (
    Language,
    Toolchain,
    expand,
    install_advice,
    language_mounts,
    missing_program,
    missing_tool,
)
from judge.model import Limits, RunSpec
from judge.runner import Runner

CHECK_LIMITS = Limits(time_s=20, wall_time_s=30, memory_kib=4 * 1024 * 1024, processes=256)


@dataclass(frozen=True)
class LanguageStatus:
    id: str
    name: str
    present: bool
    detail: str  # version line, or what to install


def language_status(languages: Mapping[str, Language], tools: Toolchain, runner: Runner) -> list[LanguageStatus]:
    out: list[LanguageStatus] = []
    with tempfile.TemporaryDirectory(prefix="judge-doctor-") as tmp:
        Path(tmp).chmod(0o711)
        for lang in languages.values():
            missing = missing_tool(lang, tools)
            if missing is not None:
                tool = missing_program(lang)
                detail = f"no `{tool}`: {install_advice(lang)}" if tool is not None else missing
                out.append(LanguageStatus(lang.id, lang.name, False, detail))
                continue
            detail = "present"
            if lang.check:
                # Run the check inside the sandbox: proves the toolchain works where submissions run.
                log = Path(tmp) / f"{lang.id}.log"  # stderr
                out_file = Path(tmp) / f"{lang.id}.out"  # stdout (one file opened twice would be overwritten)
                box = Path(tmp) / f"box-{lang.id}"
                box.mkdir()
                argv = expand(lang.check, main="", files=(), tools=tools, memory_mib=1024)
                mounts = language_mounts(lang, tools)
                res = runner.run(
                    RunSpec(
                        argv=argv,
                        box=box,
                        limits=CHECK_LIMITS,
                        stdout=out_file,
                        stderr=log,
                        mounts=mounts,
                        address_space_limit=False,
                    )
                )
                text = [
                    line.strip()
                    for f in (out_file, log)
                    if f.exists()
                    for line in f.read_text(errors="replace").splitlines()
                    if line.strip() and "warning" not in line.lower()  # e.g. the JVM's deprecation notes
                ]
                detail = text[0] if text else f"exit status {res.exit_code}"
            out.append(LanguageStatus(lang.id, lang.name, True, detail))
    return out
