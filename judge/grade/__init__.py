"""`judge grade`: a whole contest judged, stored in SQLite, and shown as a static HTML scoreboard.

Modules: ``discovery`` (what is in the submissions folder), ``storage`` (SQLite, WAL),
``schedule`` (judging in parallel, reusing stored results), ``progress`` (terminal output),
``report`` (results.json), ``command`` (the CLI entry point).
"""
