"""What the desk's services receive: every service's parts (core/context.py), the printer and the print
queue, and whether the server is stopping."""

from __future__ import annotations

import threading
from typing import Protocol

from judge.serve.services.core.context import Served
from judge.serve.services.desk.print_queue import Printer, PrintQueue


class ServedDesk(Served, Protocol):
    @property
    def printer(self) -> Printer: ...

    @property
    def print_queue(self) -> PrintQueue: ...

    @property
    def stopping(self) -> threading.Event: ...
