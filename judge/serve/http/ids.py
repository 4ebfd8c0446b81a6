"""Ids from a request's URL, as the API and the pages read them."""

from __future__ import annotations


def number_id(value: str) -> int | None:
    """A numeric id from the URL (ours are 1, 2, ...); None for anything else (a 404, never a 500)."""
    if not value.isdigit() or len(value) > 18:
        return None
    return int(value)
