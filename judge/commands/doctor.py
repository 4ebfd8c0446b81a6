"""`judge doctor`: the sandbox self-test, the toolchains, the sandbox backend and what it enforces."""

from __future__ import annotations

import argparse
import sys

from judge import __version__
from judge.commands.common import EXIT_FAILED, EXIT_OK, make_environment
from judge.judging.selftest import self_test
from judge.languages.status import language_status
from judge.scoreboard.text import table, warnings_banner


def cmd_doctor(args: argparse.Namespace) -> int:
    env = make_environment(args, check=False)
    info = env.runner.info
    print(warnings_banner(info.warnings), end="")
    print(f"judge {__version__}, Python {sys.version.split()[0]} at {env.tools.python}")
    print(f"sandbox backend: {info.backend}")
    print(f"runs start by: {info.mode}")
    print(f"enforced limits: {', '.join(info.enforced) or 'none'}")
    test = self_test(env.runner, env.tools)
    print(table(["self-test", "result"], [[c.name, "ok" if c.ok else f"FAILED: {c.error}"] for c in test.checks]))
    statuses = language_status(env.languages, env.tools, env.runner)
    rows = [[s.id, s.name, "yes" if s.present else "NO", s.detail[:80] if s.present else s.detail] for s in statuses]
    print(table(["language", "name", "present", "version / what to install"], rows))
    if not test.ok:
        print(f"judge: error: the sandbox self-test failed: {test.failure()}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK
