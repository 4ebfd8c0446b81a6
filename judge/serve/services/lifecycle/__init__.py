"""The contest's lifecycle: its times, freeze and thaw (control.py), finalize (finalize.py), the awards
(awards.py), the resolver's data (resolver.py), a replayed archive (replay.py), the demo contest (demo.py)."""
