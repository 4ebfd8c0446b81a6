"""The one error of package loading."""

from __future__ import annotations


class PackageError(Exception):
    """The problem package is malformed. The message is one line, meant for the organizer."""
