"""People and sessions: who may do what (access.py), accounts and logins (accounts.py), the pages'
sessions (sessions.py, session_cache.py), the roster in force and its changes (live_roster.py, roster.py),
the audit log (audit.py), passwords shown once (reveal.py)."""
