"""Writing the static scoreboard: jinja2 templates (judge/scoreboard/templates/, autoescape on) filled with the
contexts of ``pages``. Every contestant-controlled string (names, compiler messages, program output)
reaches the HTML escaped; only the packages' own statements are inserted as HTML.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from judge.scoreboard.model import Board
from judge.scoreboard.pages import (
    index_context,
    problem_context,
    problem_href,
    submission_context,
    submission_href,
)
from judge.scoreboard.statements import render_statement, statement_assets

TEMPLATES = Path(__file__).resolve().parent / "templates"


def environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def write_board(board: Board, out: Path) -> list[Path]:
    """Render every page of ``board`` into ``out``. Returns the files written (index.html first).

    Pages of contestants or problems no longer on the board are removed, so the folder shows one board.
    """
    env = environment()
    out.mkdir(parents=True, exist_ok=True)
    written = [_write(out / "index.html", env.get_template("index.html").render(index_context(board)))]
    for problem in board.problems:
        page = out / problem_href(problem.id)
        statement = render_statement(problem.statement, problem.constants)
        html = Markup(statement)  # noqa: S704 - the package's own statement
        written.append(_write(page, env.get_template("problem.html").render(problem_context(board, problem, html))))
        for asset in statement_assets(problem.statement):
            shutil.copyfile(asset, page.parent / asset.name)
    for (_contestant, pid), run in sorted(board.runs.items()):
        run_problem = next((p for p in board.problems if p.id == pid), None)
        if run_problem is None:
            continue
        ctx = submission_context(board, run_problem, run)
        written.append(
            _write(out / submission_href(run.contestant, pid), env.get_template("submission.html").render(ctx))
        )
    _prune(out, written)
    return written


def _prune(out: Path, written: list[Path]) -> None:
    """Remove pages of an earlier board that this one no longer has (e.g. a deleted submission)."""
    keep = {p.resolve() for p in written}
    for folder in (out / "submissions", out / "problems"):
        if not folder.is_dir():
            continue
        for page in folder.rglob("*.html"):
            if page.resolve() not in keep:
                page.unlink()
        for sub in sorted(folder.iterdir()):
            if sub.is_dir() and not any(sub.iterdir()):
                sub.rmdir()
