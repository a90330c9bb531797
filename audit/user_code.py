"""Which source files are the user's program: the frames dpaudit attributes a program's
behaviour to (the "program line" of an error), and the code the prover's closed world watches
(:mod:`audit.prove.closed_world`).

User code is every file that is not dpaudit's own engine (the ``audit``, ``kernels`` and
``proofs`` packages, except the program folders ``audit/examples`` and
``audit/prove/benchmark``), not the standard library or an installed package, and not frozen
(``<string>`` / notebook cells are the user's).  Nothing here prints or writes files.
"""

from __future__ import annotations

import linecache
import os
import sysconfig
from pathlib import Path
from types import FrameType

__all__ = ["is_user_file", "user_frame", "user_line"]

_ROOT = Path(__file__).resolve().parents[1]
_ENGINE_DIRS = tuple(str(_ROOT / d) + os.sep for d in ("audit", "kernels", "proofs"))
#: dpaudit folders whose modules are programs (the examples, the benchmark), not the engine
_PROGRAM_DIRS = tuple(str(_ROOT / "audit" / d) + os.sep
                      for d in ("examples", os.path.join("prove", "benchmark")))
_LIB_DIRS = tuple({str(Path(p).resolve()) + os.sep
                   for k in ("stdlib", "platstdlib", "purelib", "platlib")
                   if (p := sysconfig.get_paths().get(k))})
_CACHE: dict[str, bool] = {}


def is_user_file(filename: str) -> bool:
    """Whether code from ``filename`` (a code object's ``co_filename``) is the user's."""
    hit = _CACHE.get(filename)
    if hit is None:
        if filename.startswith("<"):
            hit = not filename.startswith("<frozen")
        else:
            try:
                path = str(Path(filename).resolve())
            except OSError:
                path = filename
            hit = not (path.startswith(_LIB_DIRS)
                       or (path.startswith(_ENGINE_DIRS) and not path.startswith(_PROGRAM_DIRS)))
        _CACHE[filename] = hit
    return hit


def user_frame(frame: FrameType | None) -> FrameType | None:
    """The innermost frame of user code from ``frame`` outwards (None when there is none)."""
    f = frame
    while f is not None and not is_user_file(f.f_code.co_filename):
        f = f.f_back
    return f


def user_line(frame: FrameType | None) -> str:
    """``file:line (source)`` of :func:`user_frame`, ``<unknown line>`` when none."""
    f = user_frame(frame)
    if f is None:
        return "<unknown line>"
    text = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
    return f"{f.f_code.co_filename}:{f.f_lineno}" + (f" ({text})" if text else "")
