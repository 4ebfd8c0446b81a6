"""The contest as it runs, below every domain: the event log and its bus (events.py), the phases and the
clock that moves them (timeline.py), and what every service receives (context.py)."""
