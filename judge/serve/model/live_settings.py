"""Settings an admin changes while the contest runs (issue 47), kept in the database's ``meta`` as overrides of
contest.yaml (the package on disk stays the organizer's input), and the ``ContestInfo`` they make. Pure.

- ``verification_required``: a judgement must be verified by a judge before the teams see it (DOMjudge's);
  None: as contest.yaml says.
- ``allow_submit``: a language allowed or forbidden (DOMjudge's ``allow_submit``), over contest.yaml's
  ``languages: [{id: java, allow_submit: false}]``; a change applies to submissions made after it.

(The languages' time factors have their own override: model/language_factors.py.)"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from judge.serve.model.contest import ContestInfo

META_KEY = "live_settings"


@dataclass(frozen=True)
class LiveSettings:
    verification_required: bool | None = None
    allow_submit: tuple[tuple[str, bool], ...] = ()  # language id -> allowed, sorted

    def dumps(self) -> str:
        return json.dumps(
            {"verification_required": self.verification_required, "allow_submit": dict(self.allow_submit)},
            sort_keys=True,
        )

    @staticmethod
    def loads(text: str | None) -> LiveSettings:
        data = json.loads(text) if text else {}
        required = data.get("verification_required")
        allowed = data.get("allow_submit") or {}
        return LiveSettings(
            None if required is None else bool(required),
            tuple(sorted((str(k), bool(v)) for k, v in allowed.items())),
        )

    def with_allowed(self, language_id: str, allowed: bool) -> LiveSettings:
        return replace(self, allow_submit=tuple(sorted({**dict(self.allow_submit), language_id: allowed}.items())))

    def applied(self, info: ContestInfo) -> ContestInfo:
        """contest.yaml's settings with the admins' over them."""
        if self.verification_required is not None:
            info = replace(info, verification_required=self.verification_required)
        if self.allow_submit:
            forbidden = set(info.forbidden_languages)
            for language_id, allowed in self.allow_submit:
                (forbidden.discard if allowed else forbidden.add)(language_id)
            info = replace(info, forbidden_languages=tuple(sorted(forbidden)))
        return info
