"""`python3 -m judge.languages [all|none|ID,...]`: the Debian packages .ci/setup installs (it runs before
the judge is installed, so this imports nothing beyond the standard library and the table)."""

import sys

from judge.languages.table import LanguageError, load_languages, setup_plan

try:
    plan, unavailable = setup_plan(sys.argv[1] if len(sys.argv) > 1 else "", load_languages())
except LanguageError as exc:
    print(f"setup: {exc}", file=sys.stderr)
    sys.exit(2)
for line in unavailable:
    print(f"setup: not installed: {line}", file=sys.stderr)
print(" ".join(plan))
