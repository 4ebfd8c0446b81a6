"""Judging one test case, per problem type.

- ``program``: one run of the contestant's program (box, limits, command line) with our extensions
  (``input: args``, ``answer: exit_code``) applied in one place, ``run_program``; the fuzzer's fast
  path uses it too;
- ``batch``: the program, then the output validator (or the default comparison) on its output;
- ``interactive``: the program and the validator at once, and the verdict precedence;
- ``multipass``: the passes of one test (one for the other types) and its verdict: ``judge_test``.

Each run of the contestant's program gets a fresh box, or, when it may not write its box (the problem does not
allow file writing: the runner seals it) and the test brings no files, the one sealed box of the submission's
runs, which no run can change (``program.run_box``); processes are started by the runner only.
"""

from judge.judging.problemtypes.multipass import judge_test
from judge.judging.problemtypes.program import (
    Context,
    ProgramCall,
    ProgramRun,
    describe_failure,
    program_limits,
    run_program,
)

__all__ = ["Context", "ProgramCall", "ProgramRun", "describe_failure", "judge_test", "program_limits", "run_program"]
