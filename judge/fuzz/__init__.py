"""``judge fuzz``: property-based fuzzing of a submission against the package's reference (docs/fuzzing.md).

Modules: ``options`` (``FuzzOptions`` and the defaults; light, for the command line), ``engine``
(``fuzz_submission``), ``search`` (one Hypothesis run), ``trial`` (judging one example), ``tokens`` (the
second shrinking stage), ``handover`` (the run slots), ``hooks`` (the package's fuzz.py), ``outcome``
(the results), ``save`` (a counterexample as a regression test), ``explain`` and ``explanation`` (a
counterexample for a rejected submission: docs/explain.md). For other commands (``judge grade --fuzz N``)::

    from judge.fuzz.engine import fuzz_submission
    from judge.fuzz.options import FuzzOptions
    outcome = fuzz_submission(prepared, source, env, FuzzOptions(examples=N, seed=S))   # -> FuzzOutcome
    outcome.status, outcome.scoreboard_note(), outcome.counterexample

This package imports none of its modules: importing ``judge.fuzz.options`` does not load Hypothesis.
"""
