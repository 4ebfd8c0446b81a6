"""The static HTML scoreboard: pure functions from results to template contexts (``model``, ``ranking``,
``charts``, ``statements``, ``pages``) and the jinja2 rendering into files (``render``)."""
