"""Problem statements from the packages, rendered to HTML with the `markdown` library.

Statements are the package author's (trusted) text. TeX math (``$...$``, ``$$...$$``) is kept out of the
Markdown parser's reach (so ``a_1`` does not turn into emphasis) and shown as written. A ``.tex``
statement is shown as preformatted text. A 2025-09 package's constants are substituted first.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

import markdown

from judge.package.constants import STATEMENT_COMMANDS, Constants
from judge.package.errors import PackageError

MATH = re.compile(r"(?<!\\)\$\$(.+?)(?<!\\)\$\$|(?<!\\)\$([^$\n]+?)(?<!\\)\$", re.DOTALL)
EXTENSIONS = ["tables", "fenced_code", "sane_lists", "attr_list", "def_list"]
ASSET_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp"}


def markdown_to_html(text: str) -> str:
    spans: list[str] = []

    def hide(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            spans.append(f'<div class="math">{escape(m.group(1).strip())}</div>')
        else:
            spans.append(f'<span class="math">{escape(m.group(2))}</span>')
        return f"MATHSPAN{len(spans) - 1}X"

    hidden = MATH.sub(hide, text)
    html = markdown.markdown(hidden, extensions=EXTENSIONS, output_format="html")
    return re.sub(r"MATHSPAN(\d+)X", lambda m: spans[int(m.group(1))], html)


def render_statement(path: Path | None, constants: Constants | None = None) -> str:
    """HTML of a statement file; a short note when there is none. ``constants`` (2025-09): substituted
    first, ``{{name}}`` in Markdown (the loader made sure each names one) and ``\\constant{name}`` in LaTeX."""
    if path is None or not path.is_file():
        return "<p><em>This package has no statement.</em></p>"
    text = path.read_text(encoding="utf-8", errors="replace")
    if constants:
        try:
            text = constants.substitute(text, path.name, ignore=STATEMENT_COMMANDS, latex=path.suffix == ".tex")
        except PackageError:
            pass  # shown as written (a LaTeX statement's \\constant naming nothing)
    if path.suffix == ".md":
        return markdown_to_html(text)
    return f'<pre class="tex">{escape(text)}</pre>'


def statement_assets(path: Path | None) -> list[Path]:
    """Pictures beside the statement, copied next to the problem page so relative links work."""
    if path is None:
        return []
    return sorted(p for p in path.parent.iterdir() if p.is_file() and p.suffix.lower() in ASSET_SUFFIXES)
