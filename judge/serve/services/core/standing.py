"""What a site's admins set of a contest that its services honour (issue 44, services/lifecycle/registry.py):
an archived contest is read-only: no submissions, no clarifications, no print-outs (its judging goes on
until its queue is empty; everything stays readable to those who may see it). A single contest is never
archived. One flag, replaced by the wiring when an admin changes it (serve/site/site.py)."""

from __future__ import annotations

from judge.serve.model.errors import Refused


class Standing:
    def __init__(self, archived: bool = False) -> None:
        self.archived = archived

    def refuse_if_archived(self, what: str) -> None:
        if self.archived:
            raise Refused(403, f"the contest is archived (read-only): no more {what}")
