"""What every command shares: exit codes, the one-line errors, and the environment built at the edge."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

from judge.judging.selftest import self_test
from judge.judging.submission import Environment
from judge.languages.table import load_languages, toolchain
from judge.runner import RunnerConfig, make_runner

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_JE = 0, 1, 2, 3


class UsageError(Exception):
    """Bad arguments or input files: one line for the user, exit 2."""


class SelfTestFailed(Exception):
    """A command's sandbox self-test failed before it judged anything: judging here would only produce JE, so
    the command stops with exit 3 (the cluster worker's refusal to join is judge.cluster.service.SandboxBroken)."""


def runner_config(args: argparse.Namespace, *, niceness: int = 0) -> RunnerConfig:
    """The runner's settings: the command line, then the JUDGE_* environment (see README)."""
    try:
        config = replace(RunnerConfig.from_environ(os.environ, sandbox=args.sandbox), niceness=niceness)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    warm = getattr(args, "warm_validators", None)
    return config if warm is None else replace(config, warm=warm == "on")


def make_environment(args: argparse.Namespace, *, check: bool = True, niceness: int = 0) -> Environment:
    """The runner, languages and toolchain; with ``check``, the sandbox self-test must pass first.
    ``niceness``: the nice value of every run (RunnerConfig.niceness)."""
    config = runner_config(args, niceness=niceness)
    tools = toolchain(inherited_pythonpath=dict(config.trusted_env).get("PYTHONPATH", ""))
    env = Environment(runner=make_runner(config), languages=load_languages(), tools=tools, scratch=config.scratch_dir)
    if check:
        result = self_test(env.runner, env.tools)
        if not result.ok:
            raise SelfTestFailed(result.failure())
    return env
