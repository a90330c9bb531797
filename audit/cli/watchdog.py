"""The wall-time watchdog of the commands that run user code (``dpaudit test``,
``dpaudit replay``): :func:`watchdog` raises :class:`RunDeadline` in the main thread once a
limit (plus a grace) has passed, so a mechanism or relation that never returns ends the run
(INCONCLUSIVE or bad input, never a pass).  Nothing here prints or writes files.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["GRACE_MIN_S", "GRACE_SHARE", "RunDeadline", "watchdog"]


class RunDeadline(BaseException):
    """Raised in the main thread when a run passes its wall-time limit (a ``BaseException``
    so that neither the tester's crash handling nor a mechanism's ``except Exception``
    mistakes it for the mechanism's own failure)."""


#: the watchdog stops a run this long after --max-seconds (a share of it, at least 1 s):
#: the sequential tester stops by itself after the round that passes --max-seconds
GRACE_SHARE, GRACE_MIN_S = 0.25, 1.0


@contextlib.contextmanager
def watchdog(max_seconds: float | None) -> Iterator[float | None]:
    """Raise :class:`RunDeadline` in the main thread once ``max_seconds`` (plus the grace)
    have passed, by SIGALRM, repeated every second until the block ends (so a mechanism
    blocked in a system call or in a Python loop is stopped; a C call that never returns
    to Python cannot be, and is documented as such).  Yields the limit in seconds (None: no
    limit, or not the main thread / no SIGALRM)."""
    if (max_seconds is None or not hasattr(signal, "setitimer")
            or threading.current_thread() is not threading.main_thread()):
        yield None
        return
    limit = max_seconds + max(GRACE_MIN_S, GRACE_SHARE * max_seconds)

    def fire(_signum: int, _frame: Any) -> None:
        raise RunDeadline(limit)

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, limit, 1.0)
    try:
        yield limit
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
