"""The edge of `judge serve`: a contest composed from its parts (server.py: ``Server``, ``ServeOptions``,
``open_server``), imported by the commands and by the HTTP app, never by a service."""
