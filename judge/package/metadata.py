"""problem.yaml's ``languages`` and its metadata (credits, source, license ...): read and checked.

``languages`` (every version; legacy: a space-separated string): ``all`` or the language codes a
submission may be written in; a submission in another language is refused, not judged (the problem's
rule, not a compile error). The codes are the format's (its languages table); a language of ours whose
id is not one (``pypy3``) says which code it is in languages.toml (``format_code``).

The metadata keys mean nothing to a judge; in a 2025-09 package their shapes are checked (keys.py calls
them *read*). Pure. See docs/package-format.md.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from judge.package.errors import PackageError

ALL = "all"
LICENSES = ("unknown", "public domain", "cc0", "cc by", "cc by-sa", "educational", "permission")
CREDIT_KEYS = ("authors", "contributors", "testers", "translators", "packagers", "acknowledgements")
PERSON_KEYS = ("name", "email", "orcid", "kattis")


def parse_languages(raw: Any) -> frozenset[str] | None:
    """The language codes a submission may be in (None: all)."""
    if raw is None:
        return None
    if isinstance(raw, str):
        words = raw.split()
    elif isinstance(raw, list) and raw and all(isinstance(w, str) for w in raw):
        words = [w.strip() for w in raw]
    else:
        raise PackageError("problem.yaml: languages must be `all`, a language code, or a non-empty list of codes")
    if not words:
        raise PackageError("problem.yaml: languages must not be empty (`all` allows every language)")
    if ALL in words:
        if len(words) > 1:
            raise PackageError("problem.yaml: languages: `all` or a list of codes, not both")
        return None
    return frozenset(words)


def is_person(value: Any) -> bool:
    """A person as the spec writes one: ``Name <email>``, or a map with ``name`` (and email, orcid, kattis)."""
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, dict) and isinstance(value.get("name"), str) and set(value) <= set(PERSON_KEYS)


def is_persons(value: Any) -> bool:
    """A person, or a non-empty list of persons."""
    if isinstance(value, list):
        return bool(value) and all(is_person(v) for v in value)
    return is_person(value)


def _credits(value: Any) -> None:
    if value is None or is_person(value) and isinstance(value, str):
        return
    if not isinstance(value, dict) or not set(value) <= set(CREDIT_KEYS):
        raise PackageError(f"problem.yaml: credits: a person, or a map with keys {', '.join(CREDIT_KEYS)}")
    for key, who in value.items():
        if key == "translators":
            ok = isinstance(who, dict) and all(is_persons(v) for v in who.values())
        else:
            ok = is_persons(who)
        if not ok:
            raise PackageError(f"problem.yaml: credits.{key}: a person or a list of persons")


def _source(value: Any) -> None:
    entries = value if isinstance(value, list) else [value]
    for e in entries:
        if value is None or isinstance(e, str):
            continue
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or not set(e) <= {"name", "url"}:
            raise PackageError("problem.yaml: source: a string, a map with name (and url), or a list of them")


def _strings(config: Mapping[str, Any], *keys: str) -> None:
    for key in keys:
        if config.get(key) is not None and not isinstance(config.get(key), str):
            raise PackageError(f"problem.yaml: {key} must be a string")


def check_metadata(config: Mapping[str, Any]) -> None:
    """A 2025-09 problem.yaml's metadata keys: their shapes (nothing else is done with them)."""
    _strings(config, "uuid", "version", "rights_owner")
    _credits(config.get("credits"))
    _source(config.get("source"))
    license_ = config.get("license")
    if license_ is not None and license_ not in LICENSES:
        raise PackageError(f"problem.yaml: license {license_!r} is not one of {', '.join(LICENSES)}")
    embargo = config.get("embargo_until")
    if embargo is not None and not isinstance(embargo, datetime.date | str):
        raise PackageError("problem.yaml: embargo_until must be a date (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ)")
    keywords = config.get("keywords")
    if keywords is not None and not (isinstance(keywords, list) and all(isinstance(k, str) for k in keywords)):
        raise PackageError("problem.yaml: keywords must be a list of strings")
