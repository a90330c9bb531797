"""Progress on stderr: one-line messages (:func:`progress`) and tqdm bars shown only when
stderr is a terminal and ``DPAUDIT_NO_PROGRESS`` is unset (quiet in CI, pipes and tests)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["LinkTicker", "progress", "progress_bar"]


def progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


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
    """A tqdm bar on stderr that shows the elapsed time of the running step (a long link
    reports nothing itself for minutes); updated by a daemon thread every half second.
    Quiet (does nothing) when stderr is not a terminal."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, desc: str) -> None:
        self.stop()
        if not sys.stderr.isatty() or os.environ.get("DPAUDIT_NO_PROGRESS") is not None:
            return
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            return
        self._bar = tqdm(total=None, desc=desc, unit="s", file=sys.stderr, leave=False,
                         bar_format="{desc}: {elapsed} elapsed", dynamic_ncols=True)
        self._stop = threading.Event()
        bar, stop = self._bar, self._stop

        def tick() -> None:
            while not stop.wait(0.5):
                bar.refresh()

        self._thread = threading.Thread(target=tick, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._bar is None:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._bar.close()
        self._bar = None
        self._thread = None
