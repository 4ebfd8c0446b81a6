"""What the services of the whole contest receive (the Contest API's documents, the archive): every
domain's parts at once. serve/site/server.py's ``Server`` is one."""

from __future__ import annotations

from typing import Protocol

from judge.serve.services.board.context import ServedBoard
from judge.serve.services.desk.context import ServedDesk
from judge.serve.services.judging.context import ServedJudging
from judge.serve.services.people.context import ServedPeople
from judge.serve.services.problems.context import ServedProblems


class ServedContest(ServedBoard, ServedPeople, ServedJudging, ServedDesk, ServedProblems, Protocol):
    pass
