"""`judge serve CONTEST_DIR`: a live contest over the ICPC Contest API and in the browser (docs/serve.md).

Layers (docs/design.md, enforced by the import contracts in pyproject.toml), top to bottom:

- ``http``: the ASGI app, the API's handlers, the event feed and the HTML pages. A handler translates a
  request into one service call and the answer back; it never touches the database.
- ``services``: one function per use case (submit, rejudge, judge a job, freeze, thaw, the scoreboard,
  log in, ...), shared by the API and the pages.
- ``visibility`` (who may see what: one pure module) and ``storage`` (the database: schema, migrations
  and every query, typed records out), side by side.
- ``model``: frozen records and pure functions everything above shares (the contest package, times, the
  Contest API's JSON shapes, the live board's ranking, uploads).
"""
