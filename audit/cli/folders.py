"""The report folder of a run (``--out`` / ``--run-id``): checked before anything is
written, and held by an exclusive lock for the rest of the run, so a second run into the
same folder at the same time is refused (bad input, exit 2) instead of overwriting it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from audit.cli.argtypes import check_run_id
from kernels.errors import InputError
from kernels.validate import shorten

__all__ = ["OutputError", "hold_report_dir", "release_locks", "report_dir"]

#: file descriptors of the folders this process holds, and their resolved paths
_LOCKS: list[int] = []
_HELD: set[str] = set()


class OutputError(InputError):
    """``--out`` / ``--run-id`` is unusable, or another run holds the folder (bad input:
    exit 2, nothing written)."""


def report_dir(out: str | os.PathLike[str], run_id: str) -> Path:
    """The report folder ``out/run_id``, checked before anything is written.

    ``run_id`` must be one plain folder name (no ``/``, ``\\``, ``..``, no absolute path,
    no control characters), so the folder always lies inside ``--out``; ``--out`` and the
    folder must not be existing non-folders, and the nearest existing parent must be
    writable.  Raises :class:`OutputError` naming the flag."""
    rid = str(run_id)
    try:
        check_run_id(rid)
    except InputError as exc:
        raise OutputError(f"--run-id {exc}") from None
    base = Path(out)
    if str(out) == "" or "\x00" in str(out):
        raise OutputError(f"--out must be a folder path, got {shorten(repr(str(out)))}")
    target = base / rid
    for p, flag in ((base, "--out"), (target, "--out/--run-id")):
        if p.exists() and not p.is_dir():
            raise OutputError(f"{flag} {str(p)!r} exists and is not a folder")
    try:
        if base.resolve() not in (target.resolve().parents):
            raise OutputError(f"--run-id {rid!r} leads outside --out {str(out)!r}")
    except OSError as exc:
        raise OutputError(f"--out {str(out)!r} cannot be used: {exc.strerror or exc}") from None
    probe = target
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise OutputError(f"--out {str(out)!r}: {str(probe)!r} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"--out {str(out)!r}: folder {str(probe)!r} is not writable")
    return target


def hold_report_dir(folder: Path) -> None:
    """Create the report folder and hold an exclusive lock on it for the rest of the run
    (released when the command returns, or by the OS when the process dies): a second run
    into the same ``--out``/``--run-id`` at the same time is refused with
    :class:`OutputError` (exit 2) instead of silently overwriting the first one's report.
    POSIX ``flock`` on the folder itself, so no lock file is left behind; elsewhere a no-op."""
    folder = Path(folder)
    if str(folder.resolve()) in _HELD:
        return  # this run holds it already
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"--out: cannot create {shorten(repr(str(folder)))}: "
                          f"{exc.strerror or exc}") from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise OutputError(f"--out/--run-id {shorten(repr(str(folder)))}: another dpaudit run "
                          "is writing this report folder now; wait for it to end or choose "
                          "another --run-id") from None
    _LOCKS.append(fd)
    _HELD.add(str(folder.resolve()))


def release_locks() -> None:
    """Release every report folder this process holds (the end of a command run)."""
    while _LOCKS:
        with contextlib.suppress(OSError):
            os.close(_LOCKS.pop())
    _HELD.clear()
