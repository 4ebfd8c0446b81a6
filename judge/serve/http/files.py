"""A file for the contestants as an HTTP answer (a statement PDF, an attachment, the samples' zip), for the API
and the pages alike: never shown as a page of this site (``nosniff``, and a download unless ``inline``: an
organizer's HTML attachment would otherwise run in the site's origin, with the teams' sessions)."""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import Response


def download(data: bytes, mime: str, filename: str, *, inline: bool = False) -> Response:
    how = "inline" if inline else "attachment"
    headers = {
        "Content-Disposition": f"{how}; filename*=UTF-8''{quote(filename)}",
        "X-Content-Type-Options": "nosniff",
    }
    return Response(data, media_type=mime, headers=headers)
