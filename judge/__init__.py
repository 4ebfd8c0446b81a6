"""judge: a competition-style judge and grader."""

__version__ = "0.1.0"
