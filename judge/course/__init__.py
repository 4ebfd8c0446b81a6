"""A course on judge (issue 45, docs/course.md): assignments with deadlines, late penalties and overrides, a
rate limit students can see, feedback rules, the roster and its import, the gradebook and its exports.

Pure functions over frozen records, below `judge grade` and `judge serve` (docs/design.md): both take their
assignment rules, rate limits and grades from here. Reading a course folder (``folder.py``) and writing the
roster's files (``sitefiles.py``) are the only modules that touch the disk; nothing here starts a program,
opens a database or reads the environment.
"""
