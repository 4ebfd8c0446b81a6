"""``judge fuzz``: property-based fuzzing of a submission against the package's reference (docs/fuzzing.md).

For other commands (``judge grade --fuzz N``)::

    from judge.fuzz import fuzz_submission
    outcome = fuzz_submission(prepared, source, env, examples=N, seed=S)   # -> FuzzOutcome
    outcome.status, outcome.scoreboard_note(), outcome.counterexample
"""

from judge.fuzz.engine import default_cache_dir, fuzz_submission
from judge.fuzz.hooks import FuzzHooks, load_hooks
from judge.fuzz.outcome import Counterexample, FuzzOutcome, FuzzStatus
from judge.fuzz.save import save_counterexample

__all__ = [
    "Counterexample",
    "FuzzHooks",
    "FuzzOutcome",
    "FuzzStatus",
    "default_cache_dir",
    "fuzz_submission",
    "load_hooks",
    "save_counterexample",
]
