"""A language's fingerprint: its definition (what can change a verdict) and its toolchain's version.

The version is what the language's ``check`` command prints (``gcc --version``, ``fpc -iV``, ...), run in
the sandbox as submissions are (so it also proves the toolchain works there: ``judge doctor`` shows it).
A stored verdict is reused only under the same fingerprint, so installing another compiler re-judges
that language's submissions; the ``check`` command itself, the display name and the Debian packages to
install are not part of it (they change no verdict).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from judge.languages.table import Language, Toolchain, expand, language_mounts, missing_tool
from judge.runner import Runner
from judge.runner.spec import Limits, RunSpec

CHECK_LIMITS = Limits(time_s=20, wall_time_s=30, memory_kib=4 * 1024 * 1024, processes=256)
NOT_VERDICT_FIELDS = frozenset({"name", "packages", "check"})


def definition_hash(lang: Language) -> str:
    """The language's definition without the fields that change no verdict."""
    fields = {k: v for k, v in dataclasses.asdict(lang).items() if k not in NOT_VERDICT_FIELDS}
    return hashlib.sha256(json.dumps(fields, sort_keys=True, default=str).encode()).hexdigest()


def toolchain_version(lang: Language, tools: Toolchain, runner: Runner) -> str:
    """What the language's ``check`` command prints in the sandbox ("" when it has none, or the
    toolchain is missing: such submissions are skipped, never judged)."""
    if not lang.check or missing_tool(lang, tools) is not None:
        return ""
    with tempfile.TemporaryDirectory(prefix="judge-version-") as tmp:
        Path(tmp).chmod(0o711)
        out, err, box = Path(tmp) / "version.out", Path(tmp) / "version.err", Path(tmp) / "box"
        box.mkdir()
        argv = expand(lang.check, main="", files=(), tools=tools, memory_mib=1024)
        res = runner.run(
            RunSpec(
                argv=argv,
                box=box,
                limits=CHECK_LIMITS,
                stdout=out,  # (stdout and stderr apart: one file opened twice would be overwritten)
                stderr=err,
                mounts=language_mounts(lang, tools),
                address_space_limit=False,
            )
        )
        text = "\n".join(f.read_text(errors="replace").strip() for f in (out, err) if f.exists()).strip()
        return text or f"exit status {res.exit_code}"


class Fingerprints:
    """Each language's fingerprint, worked out once per judge process on first use; thread-safe."""

    def __init__(self, languages: Mapping[str, Language], tools: Toolchain, runner: Runner) -> None:
        self._languages = languages
        self._tools = tools
        self._runner = runner
        self._lock = threading.Lock()
        self._known: dict[str, str] = {}

    def of(self, lang_id: str) -> str:
        with self._lock:
            if lang_id not in self._known:
                lang = self._languages.get(lang_id)
                if lang is None:
                    self._known[lang_id] = "unknown"
                else:
                    version = toolchain_version(lang, self._tools, self._runner)
                    digest = hashlib.sha256(f"{definition_hash(lang)}\0{version}".encode()).hexdigest()
                    self._known[lang_id] = digest[:12]
            return self._known[lang_id]
