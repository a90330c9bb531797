"""Where a user's mechanism module is imported from, so a replay works from any directory.

:func:`import_root` returns the directory that must be on ``sys.path`` for ``MODULE`` of a
``MODULE:OBJECT`` reference to import as it did during the run: the module file's directory
climbed up once per dot in the module name (``pkg/sub/mod.py`` imported as ``pkg.sub.mod``
-> the folder holding ``pkg``), or None for built-in / namespace modules.
:func:`ensure_on_path` puts such a directory at the front of ``sys.path`` (once);
:func:`ensure_cwd_on_path` does so for the working directory, where a command-line user's
``MODULE`` usually lives (unless ``""`` already stands for it).

Nothing here prints or writes files.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["ensure_cwd_on_path", "ensure_on_path", "import_root"]


def import_root(ref: str | None) -> str | None:
    """The ``sys.path`` entry ``ref``'s module was imported from (module docstring)."""
    if not ref or ":" not in ref:
        return None
    name = ref.partition(":")[0]
    mod = sys.modules.get(name)
    file = getattr(mod, "__file__", None)
    if not file:
        return None
    p = Path(file).resolve().parent
    if Path(file).name == "__init__.py":
        p = p.parent
    for _ in range(name.count(".")):
        p = p.parent
    return str(p)


def ensure_on_path(root: str | None) -> None:
    """Put ``root`` first on ``sys.path`` if it is a directory and not there yet."""
    if root and Path(root).is_dir() and root not in sys.path:
        sys.path.insert(0, root)


def ensure_cwd_on_path() -> None:
    """Put the working directory first on ``sys.path`` unless it (or ``""``) is there."""
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
