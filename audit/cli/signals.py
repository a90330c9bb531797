"""SIGINT / SIGTERM for one command run: both end the same way (one line on stderr, exit
130), a report being written is never cut in half (signals are held meanwhile), and once the
final report is on disk a late signal no longer changes the run's outcome.

Also keeps which report folder the run has taken, so the interrupt message is true about
what is on disk.  Nothing here prints.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audit.cli.folders import release_locks

__all__ = [
    "Interrupted",
    "defer_signals",
    "handle_signals",
    "interrupted_message",
    "mark_report_started",
    "run_completed",
]


class Interrupted(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM (SIGINT raises it too), so both end the same
    way: one line on stderr and exit 130."""


_STATE: dict[str, Any] = {"completed": False, "deferring": 0, "pending": None,
                          "report": None}


def _handler(signum: int, _frame: Any) -> None:
    if _STATE["completed"]:
        return  # the final report is written: the run is over, nothing to interrupt
    if _STATE["deferring"]:
        _STATE["pending"] = signum
        return
    raise Interrupted(signal.Signals(signum).name)


def run_completed() -> None:
    """Call once the final report is on disk: later signals no longer turn the run into an
    interrupted one (its outcome stands)."""
    _STATE["completed"] = True


@contextlib.contextmanager
def defer_signals() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while a report is being written (all files of one version land
    together); the interrupt is raised right after."""
    _STATE["deferring"] += 1
    try:
        yield
    finally:
        _STATE["deferring"] -= 1
        pending = _STATE["pending"]
        if not _STATE["deferring"] and pending is not None:
            _STATE["pending"] = None
            if not _STATE["completed"]:
                raise Interrupted(signal.Signals(pending).name)


@contextlib.contextmanager
def handle_signals() -> Iterator[None]:
    """Install the SIGINT and SIGTERM handlers for one command run (main thread only;
    restored afterwards, so in-process callers such as tests are unaffected).  The report
    folders the run locked are released when it ends."""
    _STATE.update(completed=False, deferring=0, pending=None, report=None)
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            release_locks()
        return
    old = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in old:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        release_locks()
        _STATE.update(completed=False, deferring=0, pending=None, report=None)


def mark_report_started(folder: Path) -> None:
    """Record that this run has put its (unfinished) report into ``folder``: an interrupt
    then says where the unfinished report is, and otherwise that none was written."""
    _STATE["report"] = Path(folder)


def interrupted_message(why: str) -> str:
    """The one stderr line of an interrupted run, true about what is on disk."""
    folder = _STATE.get("report")
    if folder is None:
        return f"interrupted ({why}) before any report was written"
    return (f"interrupted ({why}); the last report written, {folder / 'report.json'}, is "
            "complete and marked unfinished")
