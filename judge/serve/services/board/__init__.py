"""The board, the event feed: the live scoreboard (board.py) and its cache (boardcache.py), the feed read
from the event log (feed.py)."""
