"""How a report's files sit on disk so that the file system tells nothing the report does
not: the confidential folder is the data holder's alone, and the public files carry no
time but the run's start.

* :func:`private_folder` — a folder (and its parents inside the report folder) with mode
  0700: the confidential report, its counterexamples and key are readable by the data
  holder only; every file written there gets mode 0600 (:data:`PRIVATE_FILE_MODE`, forced
  even over an earlier run's file).
* :func:`stamp_started` — the modification (and access) times of the public files and of
  the report folder set to the run's ``started_at``: otherwise ``mtime - started_at`` of
  the last file written is the run's duration, which for a run on confidential data is a
  function of the data (the add/remove chain's time grows with n) and is withheld from the
  public report (issue 37).

Nothing here prints.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

__all__ = ["PRIVATE_DIR_MODE", "PRIVATE_FILE_MODE", "private_folder", "stamp_started",
           "started_timestamp"]

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def private_folder(folder: Path) -> Path:
    """Create ``folder`` if needed and set its mode to 0700 (an existing folder too)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR_MODE)
    os.chmod(folder, PRIVATE_DIR_MODE)
    return folder


def started_timestamp(started_at: object) -> float | None:
    """The POSIX time of an ISO-8601 ``started_at`` with a time zone; None when it is not
    one (a report built by a library caller with another clock text is left alone)."""
    if not isinstance(started_at, str):
        return None
    try:
        t = datetime.fromisoformat(started_at)
    except ValueError:
        return None
    if t.tzinfo is None:
        return None
    return t.timestamp()


def stamp_started(paths: Iterable[Path], started_at: object) -> None:
    """Set the access and modification times of each existing path to ``started_at``
    (see the module docstring); paths that are gone are skipped, a ``started_at`` that is
    not an ISO time with a zone changes nothing."""
    t = started_timestamp(started_at)
    if t is None:
        return
    for p in paths:
        with contextlib.suppress(FileNotFoundError):
            os.utime(p, (t, t))
