"""LTI 1.3 (issue 48, docs/course.md "The course in your LMS"): the platforms registered in ``lti.yaml``, and the
checks of the 1EdTech Security Framework and LTI Core 1.3 on a launch's claims, as pure functions over
frozen records (the signature is checked by ``model/ltijwt.py``; the services do the rest).

Every check is ours (no LTI library decides anything): ``check_launch`` takes the id_token's claims (already
verified against the platform's key), the platform the login initiation was for, the nonce the state carried and
the time, and either returns a ``Launch`` or raises ``Refused`` with a 4xx and one line that names the check.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

from judge.serve.model.errors import Refused

LTI_FILE = "lti.yaml"
KEY_FILE = "lti-key.pem"  # the tool's private key, beside lti.yaml (0600, made on the first start)

# the claims (LTI Core 1.3 §5, Deep Linking 2.0, AGS 2.0, NRPS 2.0)
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
LIS = LTI + "lis"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
DL_MSG = "https://purl.imsglobal.org/spec/lti-dl/claim/msg"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
DEEP_LINKING_RESPONSE = "LtiDeepLinkingResponse"
LTI_VERSION = "1.3.0"

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

LEEWAY_S = 60.0  # clocks differ: exp and iat are checked within a minute
MAX_AGE_S = 3600.0  # an id_token issued more than an hour ago is refused (whatever its exp says)
STATE_S = 600.0  # a login must come back within ten minutes

_ROLE_TAIL = re.compile(r"[#/]([A-Za-z]+)$")
_SAFE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,35}$")


class LtiConfigError(Exception):
    """lti.yaml is wrong (one line naming the file and the key)."""


@dataclass(frozen=True)
class Platform:
    """An LMS registered with the tool (one entry of lti.yaml's ``platforms``)."""

    name: str
    issuer: str  # the id_token's ``iss``, exactly
    client_id: str  # the id_token's ``aud`` (the tool's id at the platform)
    deployment_ids: tuple[str, ...]
    auth_url: str  # OIDC authorization endpoint (where the login initiation redirects)
    token_url: str  # OAuth 2 token endpoint (AGS, NRPS)
    jwks_url: str  # the platform's public keys
    token_audience: str = ""  # the client assertion's ``aud`` when it is not the token URL (Moodle, Canvas: token URL)
    instructor_account: str = ""  # the judge account an instructor's launch logs in as ("": refused)
    ta_account: str = ""  # the judge account a teaching assistant's launch logs in as ("": refused)

    @property
    def key(self) -> tuple[str, str]:
        return self.issuer, self.client_id


@dataclass(frozen=True)
class LtiConfig:
    """lti.yaml: the tool's public URL and the platforms."""

    url: str  # the tool's public base URL, e.g. https://judge.example.edu (no trailing /)
    platforms: tuple[Platform, ...]
    path: Path | None = None
    sync_s: float = 60.0  # how often grades are compared with what the LMS was sent (``grade_sync``)

    def platform(self, issuer: str, client_id: str | None) -> Platform | None:
        """The platform of ``issuer`` (and ``client_id`` when given; without it, only when the issuer has one)."""
        found = [p for p in self.platforms if p.issuer == issuer and (client_id is None or p.client_id == client_id)]
        return found[0] if len(found) == 1 else None

    def with_added(self, entries: Sequence[str]) -> LtiConfig:
        """lti.yaml's platforms and, after them, those an admin added on the page (stored entries, JSON); a stored
        one of the same issuer and client id as the file's yields to the file's."""
        platforms = list(self.platforms)
        for i, text in enumerate(entries):
            try:
                p = platform_from(json.loads(text), f"the platform added on the page (#{i + 1})")
            except (LtiConfigError, ValueError):
                continue  # a stored entry that no longer reads (never written so): the file's remain
            if all(q.key != p.key for q in platforms):
                platforms.append(p)
        return replace(self, platforms=tuple(platforms))

    def urls(self) -> dict[str, str]:
        """What an LMS admin pastes (docs/course.md)."""
        return {
            "login": f"{self.url}/lti/login",
            "launch": f"{self.url}/lti/launch",
            "jwks": f"{self.url}/lti/jwks.json",
            "deep_link": f"{self.url}/lti/launch",
        }


def _text(entry: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
    value = entry.get(key, "")
    if value is None:
        value = ""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or (required and not value.strip()):
        raise LtiConfigError(f"{where}: `{key}` must be a text" + (" (required)" if required else ""))
    return value.strip()


def _url(entry: Mapping[str, Any], key: str, where: str) -> str:
    value = _text(entry, key, where)
    parts = urlsplit(value)
    loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
    if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
        raise LtiConfigError(f"{where}: `{key}` must be an https:// URL (http:// only on loopback), got {value!r}")
    return value


PLATFORM_KEYS = {
    "name",
    "issuer",
    "client_id",
    "deployment_ids",
    "auth_url",
    "token_url",
    "jwks_url",
    "token_audience",
    "instructor_account",
    "ta_account",
}


def platform_from(entry: Any, where: str) -> Platform:
    if not isinstance(entry, Mapping):
        raise LtiConfigError(f"{where}: a platform is a mapping (issuer, client_id, deployment_ids, ...)")
    unknown = sorted(set(entry) - PLATFORM_KEYS)
    if unknown:
        raise LtiConfigError(f"{where}: unknown key `{unknown[0]}` (known: {', '.join(sorted(PLATFORM_KEYS))})")
    deployments = entry.get("deployment_ids")
    if isinstance(deployments, (str, int)):
        deployments = [deployments]
    if not isinstance(deployments, list) or not deployments:
        raise LtiConfigError(f"{where}: `deployment_ids` must list the deployment ids the LMS shows (one at least)")
    issuer = _text(entry, "issuer", where)
    return Platform(
        name=_text(entry, "name", where, required=False) or issuer,
        issuer=issuer,
        client_id=_text(entry, "client_id", where),
        deployment_ids=tuple(str(d).strip() for d in deployments),
        auth_url=_url(entry, "auth_url", where),
        token_url=_url(entry, "token_url", where),
        jwks_url=_url(entry, "jwks_url", where),
        token_audience=_text(entry, "token_audience", where, required=False),
        instructor_account=_text(entry, "instructor_account", where, required=False),
        ta_account=_text(entry, "ta_account", where, required=False),
    )


def config_from(data: Any, path: Path) -> LtiConfig:
    if not isinstance(data, Mapping):
        raise LtiConfigError(f"{path}: a mapping with `url` and `platforms`")
    unknown = sorted(set(data) - {"url", "platforms", "grade_sync"})
    if unknown:
        raise LtiConfigError(f"{path}: unknown key `{unknown[0]}` (known: url, platforms, grade_sync)")
    url = _url(data, "url", str(path)).rstrip("/")
    entries = data.get("platforms") or []
    if not isinstance(entries, list):
        raise LtiConfigError(f"{path}: `platforms` must be a list")
    platforms = tuple(platform_from(e, f"{path}: platforms[{i}]") for i, e in enumerate(entries))
    keys = [p.key for p in platforms]
    if len(set(keys)) != len(keys):
        raise LtiConfigError(f"{path}: a platform (issuer and client_id) is registered twice")
    sync = data.get("grade_sync", 60)
    if isinstance(sync, bool) or not isinstance(sync, (int, float)) or sync < 5:
        raise LtiConfigError(f"{path}: `grade_sync` is seconds between grade syncs, 5 or more")
    return LtiConfig(url, platforms, path, float(sync))


def load_config(root: Path) -> LtiConfig | None:
    """``ROOT/lti.yaml`` (None when there is none: the course is not in an LMS). Raises LtiConfigError."""
    path = root / LTI_FILE
    if not path.is_file():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise LtiConfigError(f"{path}: not YAML: {str(exc).splitlines()[0]}") from None
    return config_from(data, path)


# ------------------------------------------------------------------------------------------------ a launch


class Kind:
    STUDENT = "student"
    INSTRUCTOR = "instructor"
    TA = "ta"


@dataclass(frozen=True)
class Launch:
    """A launch whose every check passed."""

    platform: Platform
    message_type: str
    deployment_id: str
    sub: str
    kind: str  # Kind
    name: str
    email: str
    sourcedid: str  # the LIS person sourcedid (the SIS id), "" unknown
    nonce: str
    exp_s: float
    contest_id: str | None  # the custom parameter ``judge_contest`` (set by our deep linking)
    resource_link_id: str
    context_id: str
    lineitems_url: str
    lineitem_url: str
    memberships_url: str
    dl_return_url: str
    dl_data: str


def _fail(status: int, message: str) -> Refused:
    return Refused(status, f"LTI launch refused: {message}")


def role_kind(roles: Sequence[str]) -> str | None:
    """What the launch's roles make the user (LIS vocabulary, LTI Core 1.3 Appendix A.2): Instructor,
    Administrator or ContentDeveloper: an instructor; TeachingAssistant (also as Instructor's sub-role): a TA;
    Learner: a student. None: no role the tool knows."""
    tails = set()
    for r in roles:
        if not isinstance(r, str):
            continue
        if r.endswith("Instructor#TeachingAssistant") or r.endswith("#TeachingAssistant") or r == "TeachingAssistant":
            tails.add("TeachingAssistant")
            continue
        m = _ROLE_TAIL.search(r)
        tails.add(m.group(1) if m else r)
    if tails & {"Instructor", "Administrator", "ContentDeveloper"}:
        return Kind.INSTRUCTOR
    if "TeachingAssistant" in tails:
        return Kind.TA
    if tails & {"Learner", "Student"}:
        return Kind.STUDENT
    return None


def _str(claims: Mapping[str, Any], key: str) -> str:
    value = claims.get(key)
    return value if isinstance(value, str) else ""


def _mapping(claims: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = claims.get(key)
    return value if isinstance(value, Mapping) else {}


def _given_family(claims: Mapping[str, Any]) -> str:
    return " ".join(x for x in (_str(claims, "given_name"), _str(claims, "family_name")) if x)


def check_launch(claims: Mapping[str, Any], platform: Platform, nonce: str, now: float) -> Launch:
    """The id_token's claims (signature verified) checked, in the order of the Security Framework §5.1.3 and LTI
    Core §5.3: issuer, audience, azp, expiry and age, nonce (the state's), deployment, message type, version,
    subject, roles, the message's own claims. Raises Refused (400/401/403, one line naming the check)."""
    if claims.get("iss") != platform.issuer:
        raise _fail(401, "the id_token's issuer (iss) is not the platform the login was for")
    aud = claims.get("aud")
    auds = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    if platform.client_id not in auds:
        raise _fail(401, "the id_token's audience (aud) is not this tool's client id")
    azp = claims.get("azp")
    if (len(auds) > 1 or azp is not None) and azp != platform.client_id:
        raise _fail(401, "the id_token's authorized party (azp) is not this tool's client id")
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, (int, float)) or isinstance(exp, bool) or not isinstance(iat, (int, float)):
        raise _fail(401, "the id_token has no exp or iat")
    if exp + LEEWAY_S < now:
        raise _fail(401, "the id_token has expired")
    if iat - LEEWAY_S > now or iat + MAX_AGE_S < now:
        raise _fail(401, "the id_token's issue time (iat) is in the future or over an hour ago")
    if not nonce or claims.get("nonce") != nonce:
        raise _fail(401, "the id_token's nonce is not the one this login asked for")
    deployment = _str(claims, DEPLOYMENT_ID)
    if deployment not in platform.deployment_ids:
        raise _fail(403, "unknown deployment id: add it to the platform's deployment_ids in lti.yaml")
    kind_of_message = claims.get(MESSAGE_TYPE)
    if kind_of_message not in (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST):
        raise _fail(400, f"message type {str(kind_of_message)[:40]!r} is not one this tool takes")
    if claims.get(VERSION) != LTI_VERSION:
        raise _fail(400, "LTI version is not 1.3.0")
    sub = _str(claims, "sub")
    if not sub or len(sub) > 255:
        raise _fail(400, "the id_token names no user (sub): anonymous launches are not taken")
    roles = claims.get(ROLES)
    if not isinstance(roles, list):
        raise _fail(400, "the id_token has no roles claim")
    kind = role_kind(roles)
    if kind is None:
        raise _fail(403, "none of the launch's roles is a learner's, an instructor's or a TA's")
    link = _mapping(claims, RESOURCE_LINK)
    settings = _mapping(claims, DL_SETTINGS)
    if kind_of_message == RESOURCE_LINK_REQUEST and not isinstance(link.get("id"), str):
        raise _fail(400, "a resource link launch without resource_link.id")
    if kind_of_message == DEEP_LINKING_REQUEST:
        if kind == Kind.STUDENT:
            raise _fail(403, "only instructors add links (deep linking)")
        if not isinstance(settings.get("deep_link_return_url"), str):
            raise _fail(400, "a deep linking request without deep_link_return_url")
    if not _str(claims, TARGET_LINK_URI):
        raise _fail(400, "the id_token has no target_link_uri")
    custom = _mapping(claims, CUSTOM)
    contest = custom.get("judge_contest")
    if not isinstance(contest, str) or not contest:  # a link made by hand: .../lti/launch?contest=<id>
        contest = parse_qs(urlsplit(_str(claims, TARGET_LINK_URI)).query).get("contest", [""])[0]
    ags = _mapping(claims, AGS_ENDPOINT)
    nrps = _mapping(claims, NRPS)
    return Launch(
        platform=platform,
        message_type=str(kind_of_message),
        deployment_id=deployment,
        sub=sub,
        kind=kind,
        name=_str(claims, "name") or _given_family(claims),
        email=_str(claims, "email"),
        sourcedid=_str(_mapping(claims, LIS), "person_sourcedid"),
        nonce=nonce,
        exp_s=float(exp),
        contest_id=contest if isinstance(contest, str) and contest else None,
        resource_link_id=str(link.get("id", "")),
        context_id=str(_mapping(claims, CONTEXT).get("id", "")),
        lineitems_url=str(ags.get("lineitems", "") or ""),
        lineitem_url=str(ags.get("lineitem", "") or ""),
        memberships_url=str(nrps.get("context_memberships_url", "") or ""),
        dl_return_url=str(settings.get("deep_link_return_url", "") or ""),
        dl_data=str(settings.get("data", "") or ""),
    )


def student_id(issuer: str, sub: str, sourcedid: str, email: str, by_email: Mapping[str, str], taken: set[str]) -> str:
    """The roster id of an LMS user not mapped yet: their SIS id (``lis.person_sourcedid``) when it is a valid
    id; else the roster student of the same email; else ``lti-<sub>`` (or ``lti-`` and a hash of the issuer and
    sub when that is not a valid id). An id in ``taken`` (mapped to another LMS user) is never given again: the
    hash is used instead. The same function for a launch and an NRPS sync, so both name a student alike."""
    for candidate in (sourcedid, by_email.get(email.strip().lower(), "") if email else ""):
        if candidate and _SAFE_ID.match(candidate) and not candidate.endswith(".") and candidate not in taken:
            return candidate
    plain = f"lti-{sub}"
    if _SAFE_ID.match(plain) and not plain.endswith(".") and plain not in taken:
        return plain
    return "lti-" + hashlib.sha256(f"{issuer}\0{sub}".encode()).hexdigest()[:32]


def deep_link_claims(
    platform: Platform, deployment_id: str, data: str, items: Sequence[Mapping[str, Any]], now: float, nonce: str
) -> dict[str, Any]:
    """The LtiDeepLinkingResponse's claims (Deep Linking 2.0 §4.2): the tool (client id) to the platform."""
    claims: dict[str, Any] = {
        "iss": platform.client_id,
        "aud": platform.issuer,
        "iat": int(now),
        "exp": int(now) + 600,
        "nonce": nonce,
        MESSAGE_TYPE: DEEP_LINKING_RESPONSE,
        VERSION: LTI_VERSION,
        DEPLOYMENT_ID: deployment_id,
        DL_CONTENT_ITEMS: list(items),
    }
    if data:
        claims[DL_DATA] = data
    return claims


def link_item(tool_url: str, contest_id: str, title: str, max_score: float) -> dict[str, Any]:
    """A content item for an assignment: an LTI resource link to the launch URL, with the contest in a custom
    parameter, and a line item (the gradebook column the platform makes for it)."""
    return {
        "type": "ltiResourceLink",
        "title": title,
        "url": f"{tool_url}/lti/launch",
        "custom": {"judge_contest": contest_id},
        "lineItem": {"scoreMaximum": max_score, "label": title, "resourceId": contest_id},
    }


# ------------------------------------------------------------------------------------------------ stored records


@dataclass(frozen=True)
class LtiUser:
    """An LMS user (issuer + sub) and the judge account their launches log in as."""

    issuer: str
    sub: str
    account_id: str
    name: str = ""
    email: str = ""
    time_s: float = 0.0


@dataclass(frozen=True)
class LtiLink:
    """An assignment as the LMS knows it (the newest launch of it): the services it offered."""

    issuer: str
    client_id: str
    contest_id: str
    deployment_id: str = ""
    context_id: str = ""
    lineitems_url: str = ""
    lineitem_url: str = ""
    memberships_url: str = ""
    time_s: float = 0.0


@dataclass(frozen=True)
class LtiScore:
    """The newest score sent (or tried) to the LMS for a student and an assignment: ``status`` is ``sent`` or
    ``failed`` (``message`` says why, for the instructor)."""

    issuer: str
    client_id: str
    contest_id: str
    sub: str
    score: float
    max_score: float
    status: str
    attempts: int = 0
    message: str = ""
    time_s: float = 0.0
