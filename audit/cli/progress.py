"""Progress on stderr: one-line messages (:func:`progress`) and tqdm bars shown only when
stderr is a terminal and ``DPAUDIT_NO_PROGRESS`` is unset (quiet in CI, pipes and tests).

A run on confidential data shows no clock and no count on the terminal: how long a step
takes, and how many draws it makes, are functions of the data (issue 37).  The
:class:`LinkTicker` names the running step without an elapsed time, and
:func:`progress_withheld` is the one fixed line a run that withholds its progress prints."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LinkTicker", "link_progress", "progress", "progress_bar", "progress_withheld"]


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _terminal() -> bool:
    return sys.stderr.isatty() and os.environ.get("DPAUDIT_NO_PROGRESS") is None


def link_progress(public_verdict_only: bool) -> Callable[[str], None]:
    """The progress callback of a certify chain (:meth:`audit.checks.chain.Chain.run`
    says each link's title, then its verdicts): with ``--public-verdict-only`` the verdict
    lines are not printed (stderr follows the public report, which then keeps only the
    overall verdict); the link titles, the same on every data set, still are."""
    if not public_verdict_only:
        return progress

    def titles_only(text: str) -> None:
        if text.rstrip().endswith("..."):
            progress(text)

    return titles_only


def progress_withheld(command: str) -> None:
    """On a terminal only: say that the run shows no progress (the same line on every data
    set: draws and elapsed times on the holder's data are functions of the data)."""
    if _terminal():
        progress(f"{command}: running on confidential data: no progress or times are shown "
                 "(they depend on the data; the confidential report has the durations)")


@contextlib.contextmanager
def progress_bar(total: float | None, desc: str, unit: str = "it") -> Iterator[Any]:
    """A tqdm progress bar on stderr, shown only when stderr is a terminal (quiet in CI,
    pipes and tests).  Yields an object with ``update(n)`` and ``set_postfix_str(s)``."""
    show = sys.stderr.isatty() and os.environ.get("DPAUDIT_NO_PROGRESS") is None
    bar: Any = None
    if show:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False,
                       dynamic_ncols=True)
    if bar is None:
        bar = _NoBar()
    try:
        yield bar
    finally:
        bar.close()


class _NoBar:
    def update(self, n: float = 1) -> None:
        pass

    def set_postfix_str(self, s: str) -> None:
        pass

    def close(self) -> None:
        pass


class LinkTicker:
    """The name of the running step on stderr, one line written when the step starts and
    erased when it ends (a long link reports nothing itself for minutes).  No elapsed time
    and no periodic redraw: both would be functions of the step's duration, hence of the
    data.  Quiet (does nothing) when stderr is not a terminal."""

    def __init__(self) -> None:
        self._shown = False

    def start(self, desc: str) -> None:
        self.stop()
        if not _terminal():
            return
        sys.stderr.write(f"\r{desc} ...")
        sys.stderr.flush()
        self._shown = True

    def stop(self) -> None:
        if not self._shown:
            return
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
        self._shown = False
