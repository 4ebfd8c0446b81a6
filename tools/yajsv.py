#!/usr/bin/env python3
"""A stand-in for `yajsv` (a Go JSON-schema validator we cannot install here) with just what the ICPC
ccs-specs `check-api.sh` calls: ``yajsv -q -s SCHEMA -r 'DIR/*.json' FILE...``. Exit 0 when every FILE
is valid, 1 when one is not, 4 for a usage or schema error. Needs the `jsonschema` package. Numbers are
read as decimals, as yajsv's exact arithmetic does (0.118 is a multiple of 0.001).

    bash check-api.sh -j tools/yajsv.py -e -c '-s -u admin:PASSWORD' http://127.0.0.1:8000/api
"""

from __future__ import annotations

import argparse
import glob
import json
import sys
from decimal import Decimal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing import Registry, Resource


def main() -> int:
    parser = argparse.ArgumentParser(prog="yajsv")
    parser.add_argument("-q", action="store_true", help="print failures only")
    parser.add_argument("-s", required=True, metavar="SCHEMA")
    parser.add_argument("-r", action="append", default=[], metavar="GLOB", help="referenced schemas")
    parser.add_argument("files", nargs="+")
    try:
        args = parser.parse_args()
    except SystemExit:
        return 4
    try:
        registry: Registry = Registry()
        for pattern in args.r:
            for path in sorted(glob.glob(pattern)):
                with open(path, encoding="utf-8") as f:
                    schema = json.load(f, parse_float=Decimal)
                if "$id" in schema:
                    registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
        with open(args.s, encoding="utf-8") as f:
            main_schema = json.load(f, parse_float=Decimal)
        Draft202012Validator.check_schema(main_schema)
        validator = Draft202012Validator(main_schema, registry=registry)
    except (OSError, json.JSONDecodeError, SchemaError) as exc:
        print(f"yajsv: {exc}", file=sys.stderr)
        return 4
    status = 0
    for name in args.files:
        try:
            with open(name, encoding="utf-8") as f:
                data = json.load(f, parse_float=Decimal)
        except (OSError, json.JSONDecodeError) as exc:
            print(f"{name}: fail: {exc}")
            status = 1
            continue
        errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        for e in errors:
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            print(f"{name}: fail: {where}: {e.message[:300]}")
        if errors:
            status = 1
        elif not args.q:
            print(f"{name}: pass")
    return status


if __name__ == "__main__":
    sys.exit(main())
