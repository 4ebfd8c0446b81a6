"""Who is asking: a role (public, team, judge, admin, balloon: the account types of accounts.yaml) and, for
an account, its id, username and team."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    PUBLIC = "public"
    TEAM = "team"
    JUDGE = "judge"
    ADMIN = "admin"
    BALLOON = "balloon"  # a balloon runner (issue 47): the balloons, nothing else (visibility.runner_only)


@dataclass(frozen=True)
class Viewer:
    role: Role
    account_id: str | None = None
    username: str | None = None
    team_id: str | None = None

    @property
    def staff(self) -> bool:
        """Judges and admins see everything, live."""
        return self.role in (Role.JUDGE, Role.ADMIN)


PUBLIC = Viewer(Role.PUBLIC)
