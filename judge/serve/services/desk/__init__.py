"""The help desk: clarifications (clarifications.py), printing (printing.py, print_queue.py), balloons
(balloons.py)."""
