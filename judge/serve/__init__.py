"""`judge serve CONTEST_DIR`: a live contest over the ICPC Contest API (see docs/serve.md).

contest.py reads the contest package, db.py holds everything in one SQLite database, queue.py judges the
durable queue, events.py keeps the event feed, scoreboard.py ranks with the same code as `judge grade`,
api.py and actions.py are the endpoints (one route table), app.py the ASGI app, server.py wires them up.
"""
