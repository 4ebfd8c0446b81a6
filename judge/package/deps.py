"""What a package's programs depend on outside the package, and the package's verdict hash.

A package's Python programs (output validators, interactors, stubs, input validators) may import modules
that live outside it: the project's ``reference`` package, or third-party libraries. A stored verdict
must not outlive a change to any of them, and ``judge export`` copies the project's own ones in beside the
programs. Imports are found statically (``ast``: ``import a.b``, ``from a.b import c``, relative imports
inside an imported package), transitively, and resolved the way the validator's interpreter (the judge's
own) resolves them, without importing anything:

- a module of the standard library, or of the judge itself: covered by the interpreter's and the judge's
  versions, not listed;
- a module installed as a distribution (site-packages): listed as ``third-party`` with its version;
- any other module (the project's ``reference/``, found through an editable install or ``sys.path``):
  listed as ``local`` with its file, whose bytes count, and followed for its own imports.

Programs that open or run files outside the package by path, rather than import them, are not seen (they
are not portable either: ``judge export`` would break them); see docs/package-format.md.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import sysconfig
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import judge

FindSpec = Callable[[str], "importlib.machinery.ModuleSpec | None"]

# A Python module's file, as Python's import system finds it (``import a`` loads ``a.py``): the import analysis
# below reads Python, whatever the language table says (its programs run on the judge's own interpreter).
PYTHON_MODULE_SUFFIX = ".py"

# Parts of a package that cannot change a verdict (editing them re-judges nothing). Everything else in
# the package counts: problem.yaml and our judge.yaml, data/, validators, include/, stubs, .timelimit.
NOT_VERDICT_PARTS = frozenset(
    {
        "submissions",
        "problem_statement",
        "statement",
        "solution",
        "attachments",
        "generators",
        "input_validators",
        "input_format_validators",
        "input_validator",
        "fuzz.py",  # fuzzing only: covered by the fuzz key
        ".git",
    }
)


@dataclass(frozen=True)
class ExternalModule:
    name: str  # dotted module name, e.g. "reference.coins"
    kind: str  # "local" (a file outside the package that counts and travels) or "third-party"
    path: Path | None  # local: the module's file (a package's __init__.py for a package)
    version: str = ""  # third-party: the distribution's version

    @property
    def is_package(self) -> bool:
        return self.path is not None and self.path.name == "__init__.py"


def is_verdict_file(rel: Path) -> bool:
    """Whether a file of the package (path relative to its root) can change a verdict."""
    parts = rel.parts
    if not parts or parts[0] in NOT_VERDICT_PARTS or "__pycache__" in parts:
        return False
    name = parts[-1].lower()
    if len(parts) == 1 and (name.startswith("readme") or name.startswith("license")):
        return False
    return not any(p.startswith(".") for p in parts)


def verdict_files(root: Path) -> list[Path]:
    """The package's files that can change a verdict, sorted."""
    return sorted(p for p in root.rglob("*") if p.is_file() and is_verdict_file(p.relative_to(root)))


def is_python_module(path: Path) -> bool:
    """A file whose imports the analysis follows (a Python module, by the import system's rule)."""
    return path.suffix == PYTHON_MODULE_SUFFIX


def python_sources(path: Path, skipped: Iterable[str] = ("__pycache__",)) -> list[Path]:
    """The Python modules of a program: the file itself, or those in its folder, not under ``skipped`` folders."""
    if path.is_file():
        return [path] if is_python_module(path) else []
    leave_out = set(skipped)
    return sorted(p for p in path.rglob(f"*{PYTHON_MODULE_SUFFIX}") if not set(p.parts) & leave_out)


def program_sources(root: Path) -> list[Path]:
    """The package's Python programs whose imports count (everything verdict-relevant, plus the input
    validators for `judge verify` and `judge export`)."""
    return [p for p in python_sources(root) if p.relative_to(root).parts[0] != "submissions"]


def external_modules(
    sources: Iterable[Path], package_root: Path, find_spec: FindSpec = importlib.util.find_spec
) -> tuple[ExternalModule, ...]:
    """Every module outside ``package_root`` that ``sources`` import, transitively (see the module doc)."""
    found: dict[str, ExternalModule] = {}
    versions: dict[str, list[str]] = {}  # top-level module -> distributions (read once, on first need)
    pending: list[tuple[Path, str | None]] = [(p, None) for p in sources]  # (file, its dotted name)
    seen_files: set[Path] = set()
    while pending:
        path, own = pending.pop()
        if path in seen_files:
            continue
        seen_files.add(path)
        for name in _imports(path, own):
            if own is None and _find_submodule(name.split(".")[0], [str(path.parent)]) is not None:
                continue  # a script's own folder comes first on its sys.path: the package's own module
            for module in _resolve(name, package_root, find_spec, found, versions):
                if module.kind == "local" and module.path is not None:
                    pending.append((module.path, module.name))
    return tuple(found[k] for k in sorted(found))


def dependency_hash(modules: Iterable[ExternalModule]) -> str:
    h = hashlib.sha256()
    for m in modules:
        h.update(f"{m.name}\0{m.kind}\0{m.version}\0".encode())
        if m.path is not None:
            h.update(hashlib.sha256(m.path.read_bytes()).digest())
    return h.hexdigest()


def verdict_hash(root: Path, find_spec: FindSpec = importlib.util.find_spec) -> str:
    """A hash of everything in and outside the package that can change a verdict (16 hex digits)."""
    h = hashlib.sha256()
    for p in verdict_files(root):
        h.update(p.relative_to(root).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    sources = [p for p in program_sources(root) if is_verdict_file(p.relative_to(root))]
    h.update(dependency_hash(external_modules(sources, root, find_spec)).encode())
    return h.hexdigest()[:16]


def fuzz_hash(hooks: Path, find_spec: FindSpec = importlib.util.find_spec) -> str:
    """A hash of a package's fuzzing hooks (its ``fuzz.py``) and what they import outside the package."""
    if not hooks.is_file():
        return "none"
    h = hashlib.sha256(hooks.read_bytes())
    h.update(dependency_hash(external_modules([hooks], hooks.parent, find_spec)).encode())
    return h.hexdigest()[:12]


# -- import analysis ---------------------------------------------------------------------------

# CPython 3.11 keeps the AST constructor's recursion count per interpreter, not per thread: two threads
# parsing at once (a grade pool or the server loading packages) can fail with "SystemError: AST
# constructor recursion depth mismatch" (python/cpython#106905). Parsing here is serialized; it is fast.
_PARSE_LOCK = threading.Lock()


def _imports(path: Path, own: str | None) -> set[str]:
    try:
        source = path.read_bytes()
        with _PARSE_LOCK:
            tree = ast.parse(source, filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return set()  # not our business: the program fails when it runs (a JE, judged again)
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if own is None:
                    continue  # a relative import in a script: inside the package
                parts = own.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                if keep <= 0:
                    continue
                base = ".".join(parts[:keep] + ([base] if base else []))
            if not base:
                continue
            names.add(base)
            # `from a import b`: b may be a submodule
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
    return names


def _resolve(
    name: str,
    package_root: Path,
    find_spec: FindSpec,
    found: dict[str, ExternalModule],
    versions: dict[str, list[str]],
) -> list[ExternalModule]:
    """The modules that importing ``name`` loads (each parent package, then the module), newly found ones."""
    out: list[ExternalModule] = []
    parts = name.split(".")
    top = parts[0]
    if top in sys.stdlib_module_names or top == judge.__name__ or top == "__future__":
        return out
    spec = _top_spec(top, find_spec)
    if spec is None:
        return out  # not importable: the program fails when it runs
    origin = Path(spec.origin) if spec.origin and spec.has_location else None
    if origin is None or _inside(origin, package_root):
        return out
    if _is_installed(origin):
        if top not in found:
            found[top] = ExternalModule(top, "third-party", None, _version_of(top, versions))
            out.append(found[top])
        return out
    path: Path | None = origin
    locations = list(spec.submodule_search_locations or [])
    for depth in range(1, len(parts) + 1):
        dotted = ".".join(parts[:depth])
        if depth > 1:
            path = _find_submodule(parts[depth - 1], locations)
            if path is None:
                break  # `from a import name`: not a submodule
            locations = [str(path.parent)] if path.name == "__init__.py" else []
        if dotted not in found and path is not None:
            found[dotted] = ExternalModule(dotted, "local", path)
            out.append(found[dotted])
    return out


def _top_spec(top: str, find_spec: FindSpec) -> importlib.machinery.ModuleSpec | None:
    try:
        return find_spec(top)
    except (ImportError, ValueError):
        return None


def _find_submodule(name: str, locations: list[str]) -> Path | None:
    for loc in locations:
        for candidate in (Path(loc) / name / "__init__.py", Path(loc) / f"{name}{PYTHON_MODULE_SUFFIX}"):
            if candidate.is_file():
                return candidate
    return None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def _is_installed(origin: Path) -> bool:
    """In the standard library's or an installed distribution's folder (not an editable project)."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return any(_inside(origin, Path(r)) for r in roots)


def _version_of(top: str, cache: dict[str, list[str]]) -> str:
    if not cache:
        cache.update(importlib.metadata.packages_distributions())
    dists = cache.get(top, [])
    versions = []
    for d in sorted(set(dists)):
        try:
            versions.append(f"{d}=={importlib.metadata.version(d)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return ",".join(versions)
