"""Confirmations before an action that is hard to take back (docs/serve.md, "Confirmations"): one mechanism for
every such form of the pages, and the questions they ask, each a template of this table (like notices.py's).

- The form is drawn by ``confirm_form`` (templates/_confirm.html): a hidden ``confirmed`` field, empty, and the
  question in ``data-confirm``. live.js asks it with the browser's ``confirm()``; on OK it sets ``confirmed`` to
  ``yes`` and submits, on Cancel nothing is sent.
- The handler calls ``page.confirm(kind, back, **slots)`` (web.py) before it acts: a POST without
  ``confirmed=yes`` (no JavaScript, a hand-made request) changes nothing and is answered with a confirmation
  page: the question, the same form again with ``confirmed=yes`` behind a "Yes" button, and Cancel (``back``).

So nothing happens unasked, with or without scripts, and the question is the same in both. The API has no
confirmations: a script that POSTs means it.
"""

from __future__ import annotations

QUESTIONS = {
    "disable": "Disable account {id}? It can no longer log in, and its sessions end now.",
    "reset-password": "Reset the password of account {id}? The old one stops working and its sessions end now.",
    "pause": "Pause judging? Submissions are still accepted and wait in the queue until judging is resumed.",
    "rejudge-submission": (
        "Rejudge submission {id}? It is judged again in a rejudging set: its verdict changes for its team and on "
        "the scoreboard once the set is applied (as it is judged, if it applies itself)."
    ),
    "rejudge-problem": (
        "Rejudge every submission of problem {id}? They are judged again in a rejudging set: verdicts change for "
        "the teams and on the scoreboard once the set is applied (as they are judged, if it applies itself)."
    ),
    "rejudge": (
        "Rejudge every submission of {what}? They are judged again in a rejudging set: verdicts change once the "
        "set is applied (as they are judged, if it applies itself)."
    ),
    "apply-rejudging": (
        "Apply rejudging {id}? Its new judgements become current: {n} verdict(s) change, for the teams and on the "
        "scoreboard."
    ),
    "verification-off": (
        "Stop requiring verification? Every judgement waiting for it is shown to its team and on the scoreboard now."
    ),
    "cancel-rejudging": (
        "Cancel rejudging {id}? What it has not judged yet is not judged, and nothing it judged counts."
    ),
    "add-as-test": (
        "Add the input of counterexample {id} as a new secret test of problem {problem}? A rejudge preview runs "
        "(nothing changes for anyone until an admin applies it)."
    ),
    "apply": (
        "Apply preview {id}? Package version {version} becomes current and {n} submission(s) are rejudged: "
        "verdicts and the scoreboard change."
    ),
    "discard": "Discard preview {id}? Its package version is removed.",
    # a course's (issue 45)
    "publish-grades": (
        "Publish the grades of {id}? Every student sees what the feedback rules kept until now (their scores, "
        "their tests); this cannot be taken back."
    ),
    "roster-apply": (
        "Apply the roster: {added} added, {changed} changed, {removed} withdrawn? The new students get passwords."
    ),
}


def question(kind: str, **slots: object) -> str:
    """The question of ``kind``, its slots filled in (a KeyError for a kind not in the table: a bug)."""
    return QUESTIONS[kind].format(**slots)
