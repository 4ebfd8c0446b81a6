"""The HTTP side of `judge serve`: the ASGI app (``app``), the Contest API's handlers (``api``, ``feed``),
the HTML pages (``pages``, ``admin_pages``, their plumbing in ``web`` and ``sessions``). A handler turns
a request into one service call (judge/serve/services) and its answer back; it never touches storage."""
