"""Deep Linking 2.0 (issue 48): an instructor's deep-linking launch lands on a page where they pick the
assignments to add; the tool answers the platform with a signed LtiDeepLinkingResponse (an auto-posted form to
the platform's ``deep_link_return_url``), one LTI resource link per assignment, each with the contest in a custom
parameter and a line item (the LMS gradebook's column) of the assignment's maximum."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judge.serve.model.errors import Refused
from judge.serve.model.lti import Platform, deep_link_claims, link_item
from judge.serve.model.viewer import Viewer
from judge.serve.services.lti.tool import LtiTool


@dataclass(frozen=True)
class DeepLinkContext:
    """What the deep-linking launch asked (sealed in the page's URL and form: nothing stored)."""

    platform: Platform
    deployment_id: str
    return_url: str
    data: str
    account_id: str
    token: str


@dataclass(frozen=True)
class Choice:
    contest_id: str
    title: str
    max_score: float


def open_context(tool: LtiTool, token: str, viewer: Viewer, now: float) -> DeepLinkContext:
    """The deep-linking request of ``token`` for ``viewer`` (the instructor it logged in, staff)."""
    p = tool.unseal(token, now, "the deep-linking request")
    platform = tool.config.platform(str(p.get("iss", "")), str(p.get("client", "")))
    if platform is None:
        raise Refused(400, "the platform of this deep-linking request is no longer registered")
    if not viewer.staff or viewer.account_id != p.get("account"):
        raise Refused(403, "this deep-linking request is another account's: start again from the LMS")
    deployment, url, data, account = (str(p.get(k, "")) for k in ("deployment", "return_url", "data", "account"))
    return DeepLinkContext(platform, deployment, url, data, account, token)


def response(
    tool: LtiTool, ctx: DeepLinkContext, choices: Sequence[Choice], picked: Sequence[str], now: float
) -> tuple[str, str]:
    """(the platform's return URL, the signed LtiDeepLinkingResponse) for the assignments ``picked``."""
    by_id: Mapping[str, Choice] = {c.contest_id: c for c in choices}
    unknown = [p for p in picked if p not in by_id]
    if unknown:
        raise Refused(400, f"no assignment {unknown[0]!r}")
    if not picked:
        raise Refused(400, "pick at least one assignment")
    items = [link_item(tool.config.url, p, by_id[p].title, by_id[p].max_score) for p in picked]
    claims = deep_link_claims(ctx.platform, ctx.deployment_id, ctx.data, items, now, secrets.token_urlsafe(16))
    return ctx.return_url, tool.sign(claims)
