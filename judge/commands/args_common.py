"""The `judge` command's argument tree, its parts: what a command's parser names to run it (``command``), and
the options several commands share (cli.py builds the tree; args_judge.py and args_serve.py add each
command's). Nothing here imports a command's module: they load when the command runs (defaults.py)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import TypeAlias

Command = Callable[[argparse.Namespace], int]
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # what add_subparsers returns


def command(module: str, name: str) -> Command:
    """``judge.commands.<module>.<name>``, imported when the command runs (judge/commands/defaults.py says why)."""

    def run(args: argparse.Namespace) -> int:
        return int(getattr(importlib.import_module(f"judge.commands.{module}"), name)(args))

    return run


def problem_dir(p: argparse.ArgumentParser) -> None:
    """`run`, `verify`, `export`, `fuzz`: the problem package, the first argument."""
    p.add_argument("problem", metavar="PROBLEM_DIR")


def json_option(p: argparse.ArgumentParser, *, help_text: str | None) -> None:
    """`--json`: machine-readable output; ``help_text`` says what the command prints or writes."""
    p.add_argument("--json", action="store_true", help=help_text)


def jobs_option(p: argparse.ArgumentParser, *, default: int, metavar: str | None = None) -> None:
    """`verify`, `grade`, `serve`: how many submissions are judged at once."""
    p.add_argument("--jobs", type=int, default=default, metavar=metavar, help="submissions judged at once")


def cluster_options(p: argparse.ArgumentParser) -> None:
    """`grade` and `serve`: judge on a Dask cluster (judge/commands/cluster.py)."""
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="judge on a Dask cluster: a scheduler's address (tcp://HOST:8786, tls://...) whose workers run "
        "`judge worker`, or local:N for N worker processes on this machine (--jobs is then ignored; see "
        "docs/cluster.md)",
    )
    p.add_argument(
        "--cluster-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long to try reaching the scheduler (default 10)",
    )
    tls_options(p)


def tls_options(p: argparse.ArgumentParser) -> None:
    """`grade`, `serve` (with --cluster) and `worker`: the certificates for tls:// addresses."""
    p.add_argument("--tls-ca-file", default=None, metavar="FILE", help="CA certificate(s) for TLS (tls:// addresses)")
    p.add_argument("--tls-cert", default=None, metavar="FILE", help="this end's TLS certificate")
    p.add_argument("--tls-key", default=None, metavar="FILE", help="this end's TLS private key")
