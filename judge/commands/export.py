"""`judge export PROBLEM_DIR OUT [--zip]`: a self-contained Kattis package (the work is in judge/package/export.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from judge.commands.common import EXIT_OK, UsageError
from judge.package.export import ExportError, export_package


def cmd_export(args: argparse.Namespace) -> int:
    out = Path(args.out)
    try:
        report = export_package(Path(args.problem), out, as_zip=args.zip, force=args.force)
    except ExportError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(
            json.dumps(
                {
                    "out": str(report.out),
                    "copied": report.copied,
                    "renamed": [list(r) for r in report.renamed],
                    "left_out": report.left_out,
                    "third_party": report.third_party,
                    "needs_extensions": report.needs_extensions,
                    "notes": report.notes,
                },
                indent=2,
            )
        )
        return EXIT_OK
    print(f"exported {args.problem} -> {report.out}")
    for program, modules in sorted(report.copied.items()):
        print(f"  {program}: copied in {', '.join(modules)}")
    for old, new in report.renamed:
        print(f"  renamed {old} -> {new}")
    for path, reason in sorted(report.left_out.items()):
        print(f"  left out {path}: {reason}")
    for module, version in sorted(report.third_party.items()):
        print(f"  needs {module} ({version or 'version unknown'}) installed where it is judged")
    if report.needs_extensions:
        n = len(report.needs_extensions)
        print(f"  {n} submissions get their folder's verdict only from a judge that reads judge.yaml:")
        for path, why in sorted(report.needs_extensions.items()):
            print(f"    {path}: {why}")
    for note in report.notes:
        print(f"  note: {note}")
    return EXIT_OK
