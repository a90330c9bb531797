"""Adapters for third-party DP libraries (optional extras, one module each).

Each module imports its library lazily and raises :class:`audit.extra.LibraryMissing`
(an :class:`kernels.errors.InputError`) with the ``pip install`` line when it is absent, so
a missing library is reported, never counted as a pass.

* :mod:`audit.extra.opendp` — OpenDP transformations (exact sensitivity check, claim read
  from ``map``/``check``) and measurements (``dpaudit test``, claim from ``map``).
* :mod:`audit.extra.diffprivlib` — IBM diffprivlib mechanisms and ``tools``.
* :mod:`audit.extra.pydp` — python-dp (Google's library) algorithms, black-box.
* :mod:`audit.extra.tumult` — Tumult Core measurements (claim from ``privacy_function``).
* :mod:`audit.extra.smartnoise` — SmartNoise SQL noise mechanisms and queries (claim from
  the mechanism object / ``get_privacy_cost``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from kernels.errors import InputError

__all__ = ["LibraryMissing", "require"]


class LibraryMissing(InputError):
    """The third-party library an adapter needs is not installed."""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise :class:`LibraryMissing` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise LibraryMissing(
            f"{module} is not installed ({exc}); pip install 'dpaudit[{extra}]'") from exc
