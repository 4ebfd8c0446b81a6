"""The Contest API's handlers: the spec's endpoints and the route table (contest.py), the event feed
(feed.py), our extensions for running the contest live (live.py) and for package versions and rejudge
previews (previews.py), DOMjudge's submission form (domjudge.py), what a handler gets (context.py)."""
