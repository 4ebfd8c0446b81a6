"""What an API handler gets: the server, who is asking, the request's parameters and body, the time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.serve.http.forms import Form
from judge.serve.model.errors import Refused
from judge.serve.model.jsonbody import parse_json_body
from judge.serve.model.viewer import Viewer
from judge.serve.site.server import Server
from judge.serve.visibility import Sight


@dataclass(frozen=True)
class Ctx:
    server: Server
    viewer: Viewer
    params: Mapping[str, str]
    query: Mapping[str, str]
    body: bytes
    now: float
    media_type: str | None = None  # the body's (one of the route's RouteSpec.bodies); None: no body
    form: Form | None = None  # a multipart/form-data body, on a route that takes one (RouteSpec.bodies)

    @property
    def sight(self) -> Sight:
        """What the viewer may see now."""
        return self.server.sight(self.viewer, self.now)

    def contest(self) -> None:
        """404 unless the URL names our contest."""
        cid = self.params.get("cid")
        if cid != self.server.contest.info.id:
            raise Refused(404, f"no contest {cid!r}")

    def param(self, name: str) -> str:
        return self.params[name]

    def json(self) -> Any:
        """The body's JSON value (strict: model/jsonbody.py). Raises Refused (400)."""
        return parse_json_body(self.body)
