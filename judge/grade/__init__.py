"""`judge grade`: a whole contest judged, stored in SQLite, and shown as a static HTML scoreboard.

Modules: ``options`` (the typed options and the defaults; light, for the command line), ``discovery``
(what is in the submissions folder), ``storage`` (SQLite, WAL), ``schedule`` (judging in parallel, reusing
stored results), ``workloop`` (the reuse-or-run loop it shares with ``fuzzing``, `judge grade --fuzz N`),
``progress`` (terminal output), ``report`` (the board's records, results.json). The command itself is
judge/commands/grade.py.
"""
