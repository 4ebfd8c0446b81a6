"""2025-09 ``constants``: named values of ``problem.yaml``, substituted into the package's files.

A constant is a scalar (integer, float or string) or a map with a required ``value`` and variants (other
spellings of the same value: ``tex: 5,000,000``). ``{{name}}`` (or ``{{name.value}}``) and
``{{name.variant}}`` in a file where the spec substitutes them become the text of that value or variant;
``\\constant{name}`` likewise in LaTeX statements. Where (docs/package-format.md, "Constants"): Markdown
statements, input and output validators, included files, example submissions and ``test_group.yaml``;
never test data or problem.yaml. A ``{{name}}`` that names no constant there is a package error naming the
file and the name (the spec leaves it in place and lets tools warn; this judge refuses, so that a typo
never reaches a contestant or a validator). Pure: reads text, writes copies only where asked
(``render_tree``).
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.package.errors import PackageError

NAME = r"[a-zA-Z_][a-zA-Z0-9_]*"
NAME_RE = re.compile(NAME)
SEQUENCE = re.compile(r"\{\{(" + NAME + r")(?:\.(" + NAME + r"))?\}\}")
LATEX_SEQUENCE = re.compile(r"\\constant\{(" + NAME + r")(?:\.(" + NAME + r"))?\}")
# Markdown statements' own commands (the spec's {{nextsample}}, {{remainingsamples}}): not constants
STATEMENT_COMMANDS = frozenset({"nextsample", "remainingsamples"})
VALUE = "value"
MAX_TEXT_BYTES = 16 * 1024 * 1024  # larger files are data, not text to substitute in


@dataclass(frozen=True)
class Constants:
    """The constants of a package: name -> variant -> text (every constant has ``value``)."""

    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.values)

    def text(self, name: str, variant: str | None) -> str | None:
        """The text of ``{{name}}`` / ``{{name.variant}}``, or None when there is no such constant."""
        return self.values.get(name, {}).get(variant or VALUE)

    def why_undefined(self, sequence: str) -> str:
        """Why ``sequence`` (``name`` or ``name.variant``, as written) names nothing, for a package error."""
        name, _, variant = sequence.partition(".")
        if name in self.values and variant:
            have = ", ".join(sorted(self.values[name]))
            return f"{{{{{sequence}}}}}: constant {name} of problem.yaml has no variant {variant} (it has {have})"
        return f"{{{{{sequence}}}}} names no constant of problem.yaml"

    def undefined(self, text: str, *, ignore: Iterable[str] = ()) -> list[str]:
        """The constant sequences of ``text`` that name nothing (as written, without the braces)."""
        skip = set(ignore)
        out: list[str] = []
        for m in SEQUENCE.finditer(text):
            if m.group(2) is None and m.group(1) in skip:
                continue
            if self.text(m.group(1), m.group(2)) is None:
                out.append(m.group(0)[2:-2])
        return out

    def substitute(self, text: str, where: str, *, ignore: Iterable[str] = (), latex: bool = False) -> str:
        """``text`` with every constant sequence replaced; one naming nothing is a PackageError naming
        ``where`` and it (``ignore``: plain names that are no constants there, such as a Markdown
        statement's ``{{nextsample}}``). ``latex``: also ``\\constant{name}``."""
        missing = self.undefined(text, ignore=ignore)
        if missing:
            raise PackageError(f"{where}: {self.why_undefined(missing[0])}")
        skip = set(ignore)

        def one(m: re.Match[str]) -> str:
            if m.group(2) is None and m.group(1) in skip:
                return m.group(0)
            found = self.text(m.group(1), m.group(2))
            return m.group(0) if found is None else found

        out = SEQUENCE.sub(one, text)
        if latex:
            missing = self.undefined_latex(out)
            if missing:
                raise PackageError(f"{where}: {missing[0]} names no constant of problem.yaml")
            out = LATEX_SEQUENCE.sub(one, out)
        return out

    def undefined_latex(self, text: str) -> list[str]:
        """The ``\\constant{name}`` commands of a LaTeX statement that name nothing (as written)."""
        return [m.group(0) for m in LATEX_SEQUENCE.finditer(text) if self.text(m.group(1), m.group(2)) is None]

    def substitute_bytes(self, data: bytes, where: str) -> bytes:
        """``data`` substituted when it is UTF-8 text that holds a constant sequence; other bytes unchanged."""
        text = _text(data)
        if text is None or not SEQUENCE.search(text):
            return data
        return self.substitute(text, where).encode("utf-8")


def _text(data: bytes) -> str | None:
    if len(data) > MAX_TEXT_BYTES or b"{{" not in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _scalar(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PackageError(f"{where}: a constant is an integer, a float or a string, not {value!r}")
    return str(value)


# How a variant may write a number: thousands separators (``5,000,000``, ``5\\,000\\,000``, ``5~000``),
# ``5 \\cdot 10^6``, ``5 \\times 10^{6}``, ``10^6``, ``5e6``, in or out of ``$...$``.
_SEPARATORS = re.compile(r"\\[,;:! ]|\\thinspace|~|\{,\}|[\s'_]")
_POWER = re.compile(r"(?:(.+?)(?:\\cdot|\\times|\*|×|·))?10\^\{?(-?\d+)\}?")


def _as_numbers(text: str) -> set[float]:
    """The numbers a variant's text may mean (a comma as a thousands or a decimal separator); none: not a number."""
    t = _SEPARATORS.sub("", text.strip().strip("$"))
    out: set[float] = set()
    for candidate in {t.replace(",", ""), t.replace(",", ".")}:
        m = _POWER.fullmatch(candidate)
        try:
            if m is None:
                out.add(float(candidate))
            else:
                out.add((float(m.group(1)) if m.group(1) else 1.0) * 10.0 ** int(m.group(2)))
        except (ValueError, OverflowError):
            continue
    return out


def variant_warnings(constants: Constants) -> tuple[str, ...]:
    """The spec's "tools should warn if a variant appears to represent a different value than ``value``",
    best effort: a numeric constant's variant that reads as another number (one that reads as no number,
    ``five million``, is not judged)."""
    out: list[str] = []
    for name, variants in constants.values.items():
        try:
            value = float(variants[VALUE])
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        for variant, text in variants.items():
            read = _as_numbers(text)
            if variant != VALUE and read and not any(abs(x - value) <= 1e-9 * max(1.0, abs(value)) for x in read):
                out.append(
                    f"problem.yaml: constants.{name}.{variant} is `{text}`, which reads as another number than "
                    f"{name}'s value {variants[VALUE]}"
                )
    return tuple(out)


def parse_constants(raw: Any) -> Constants:
    """problem.yaml's ``constants`` (None: none). Raises PackageError naming the bad entry."""
    if raw is None:
        return Constants()
    if not isinstance(raw, dict):
        raise PackageError("problem.yaml: constants must map names to values")
    out: dict[str, dict[str, str]] = {}
    for name, spec in raw.items():
        where = f"problem.yaml: constants.{name}"
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            raise PackageError(f"{where}: a constant's name is letters, digits and _ (not starting with a digit)")
        if not isinstance(spec, dict):
            out[name] = {VALUE: _scalar(spec, where)}
            continue
        if VALUE not in spec:
            raise PackageError(f"{where}: a constant given as a map needs `value`")
        variants: dict[str, str] = {}
        for variant, value in spec.items():
            if not isinstance(variant, str) or not NAME_RE.fullmatch(variant):
                raise PackageError(f"{where}.{variant}: a variant's name is letters, digits and _")
            variants[variant] = _scalar(value, f"{where}.{variant}")
        out[name] = variants
    return Constants(out)


def files_of(path: Path) -> list[Path]:
    """The files of a program, folder or file (hidden ones and caches left out), in name order."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        return []
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(path).parts)
    )


def check_files(constants: Constants, paths: Iterable[Path], root: Path, *, ignore: Iterable[str] = ()) -> None:
    """Raise PackageError for the first constant sequence in these files (relative to ``root`` in the
    message) that names no constant."""
    ignored = tuple(ignore)
    for path in paths:
        for f in files_of(path):
            try:
                text = _text(f.read_bytes())
            except OSError:
                continue
            if text is None:
                continue
            missing = constants.undefined(text, ignore=ignored)
            if missing:
                where = f.relative_to(root) if f.is_relative_to(root) else f
                raise PackageError(f"{where}: {constants.why_undefined(missing[0])}")


def check_latex(constants: Constants, statements: Iterable[Path], root: Path) -> None:
    """Raise PackageError for the first ``\\constant{name}`` of these LaTeX statements that names nothing."""
    for f in statements:
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = constants.undefined_latex(text)
        if found:
            where = f.relative_to(root) if f.is_relative_to(root) else f
            raise PackageError(f"{where}: {found[0]} names no constant of problem.yaml")


def needs_rendering(constants: Constants, program: Path) -> bool:
    """Whether a program (file or folder) holds a constant sequence to substitute."""
    if not constants:
        return False
    for f in files_of(program):
        try:
            text = _text(f.read_bytes())
        except OSError:
            continue
        if text is not None and SEQUENCE.search(text):
            return True
    return False


def render_tree(constants: Constants, source: Path, dest: Path) -> Path:
    """A copy of ``source`` (a file or a folder) at ``dest`` with the constants substituted in its text
    files; returns ``dest``. The original is untouched."""
    if source.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(constants.substitute_bytes(source.read_bytes(), str(source)))
        shutil.copymode(source, dest)
        return dest
    for f in files_of(source):
        target = dest / f.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(constants.substitute_bytes(f.read_bytes(), str(f)))
        shutil.copymode(f, target)
    return dest
