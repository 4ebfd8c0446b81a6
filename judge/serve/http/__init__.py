"""The HTTP side of `judge serve`: the ASGI app (``app``, the route tables joined; ``replay``, a read-only
archive's), the Contest API's handlers (``api/``), the HTML pages (``pages/``, their plumbing in
``pages/web`` and ``pages/sessions``), and what both use (``origin``, ``forms``, ``files``, ``ids``,
``live_views``; the pages' templates and static files in ``templates/``, ``static/``). A handler turns a
request into one service call (judge/serve/services) and its answer back; it never touches storage."""
