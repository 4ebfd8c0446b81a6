"""What, besides the source and the package, a stored verdict depends on: the judge's version and the
toolchains' fingerprints. `judge grade` keys its results with them; a cluster worker checks that it judges
under exactly the identity the coordinator keys its results with (judge/cluster/)."""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Callable, Mapping
from pathlib import Path

import judge
from judge.judging.submission import Environment
from judge.languages.table import Language, language_for
from judge.package.problem import Problem

# Parts of the judge whose code cannot change a verdict: editing them does not force a re-judge.
_PRESENTATION = ("grade", "scoreboard", "templates", "fuzz")


def judge_version(env: Environment) -> str:
    """``<version>+<hash of the judging code and its interpreter>/<sandbox backend>``: a stored result is
    reused only under the same judging code, the same Python (validators run on it) and the same kind of
    sandbox."""
    root = Path(judge.__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0] in _PRESENTATION or "__pycache__" in rel.parts:
            continue
        if p.suffix not in (".py", ".toml", ".c", ".h"):
            continue
        h.update(rel.as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    h.update(f"{env.tools.python}\0{platform.python_version()}\0{platform.python_build()}".encode())
    return f"{judge.__version__}+{h.hexdigest()[:12]}/{env.runner.info.backend}"


def toolchain_hash(
    language: str, problem: Problem, languages: Mapping[str, Language], fingerprint: Callable[[str], str]
) -> str:
    """The fingerprints of the submission's language and, when the package's output validator is compiled,
    of the validator's (a Python validator runs on the judge's interpreter: part of ``judge_version``)."""
    first, *validators = toolchain_languages(language, problem, languages)
    return "/".join([fingerprint(first), *(f"{lang}:{fingerprint(lang)}" for lang in validators)])


def toolchain_languages(language: str, problem: Problem, languages: Mapping[str, Language]) -> tuple[str, ...]:
    """The languages whose toolchains judging a ``language`` submission of ``problem`` uses: the
    submission's, then the output validator's when it is compiled."""
    validator = problem.output_validator
    if validator is not None and validator.suffix not in (".py", ".sh"):
        lang = language_for(validator, languages)
        if lang is not None:
            return (language, lang.id)
    return (language,)
