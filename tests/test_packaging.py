"""What an install carries: every file of the judge package that is not Python (templates, static files,
languages.toml, the sandbox's C sources) is named by pyproject.toml's package-data, so a wheel (a
non-editable install) has it. `judge serve`'s templates moved once (serve/http/templates/) while
package-data still named serve/templates/: a wheel had no page."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_data_file_of_the_package_is_in_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["judge"]
    package = ROOT / "judge"
    data = [
        p.relative_to(package)
        for p in package.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert data, "the package has templates and data files"
    missing = [
        str(p)
        for p in data
        if not any(p.match(pattern) and len(p.parts) == len(Path(pattern).parts) for pattern in patterns)
    ]
    assert missing == []
