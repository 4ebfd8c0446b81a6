"""The print queue's thread (issue 30, issue 43): sends the queued print-outs (printing.py) one at a time,
never in a request; and how a print-out reaches the printer (``Printer``: runner/printer.py's
``send_to_printer``, or the tests' own)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

Printer = Callable[[Sequence[str], bytes], "str | None"]  # (argv, data) -> None, or why it failed


class PrintQueue:
    """The thread that sends the queued print-outs (printing.send_next), one at a time, while the server runs:
    woken by each new print-out, and every ``poll_s`` anyway. The queue is the ``prints`` table (a print-out
    queued before a restart is sent after it)."""

    def __init__(self, poll_s: float = 5.0) -> None:
        self._poll_s = poll_s
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        self._wake.set()

    def start(self, send_next: Callable[[], bool], stopping: threading.Event, log: Callable[[str], None]) -> None:
        """``send_next``: printing.send_next for the contest (False when nothing waits)."""
        args = (send_next, stopping, log)
        self._thread = threading.Thread(target=self._run, args=args, name="print-queue", daemon=True)
        self._thread.start()

    def _run(self, send_next: Callable[[], bool], stopping: threading.Event, log: Callable[[str], None]) -> None:
        while not stopping.is_set():
            self._wake.clear()
            try:
                while not stopping.is_set() and send_next():
                    pass
            except Exception as exc:  # noqa: BLE001 - keep the queue; say why
                log(f"print queue: {type(exc).__name__}: {exc}")
            self._wake.wait(self._poll_s)

    def stop(self) -> None:
        """After ``stopping`` is set: the print-out being sent is finished first (the printer's own
        timeout bounds it)."""
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
