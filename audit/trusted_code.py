"""Which code ``dpaudit replay`` may import for a counterexample, and how it says so first.

The trust model (README, "Replaying a counterexample someone sent you"): a counterexample
records *what* to run (``MODULE:OBJECT`` and the package versions of the run), never where
from.  A replay imports only from

* the installed environment (the ``sys.path`` the interpreter started with, minus the
  script's own folder), and
* the current directory (where a command-line user's ``MODULE`` lives), and
* an ``import_path`` the file names, only when it lies inside the file's own report folder,
  or when the user passes ``--trust-code`` (or the file's keyed MAC verifies: the data
  holder wrote it).

Standard-library modules and builtins are refused as mechanisms, relations and programs
(``os:system``, ``subprocess:run``, ``builtins:eval``), also when a user module re-exports
one (``mymod:system``).  :class:`ImportGate` checks a reference, says what it will import
(the module's file, found without executing it) through a callback *before* importing, and
only then imports.  Nothing here prints or writes files (the callback is the command's).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.untrusted import UntrustedError, check_ref

__all__ = ["ImportGate", "code_record", "environment_roots", "is_inside", "is_stdlib_module",
           "package_versions"]

#: sys.path as the interpreter started (before dpaudit or a replay added anything)
_STARTUP_PATH = tuple(p for p in sys.path if p)


def environment_roots() -> list[str]:
    """The installed environment's import folders (absolute, resolved)."""
    out = []
    script_dir = os.path.dirname(os.path.abspath(sys.argv[0])) if sys.argv and sys.argv[0] \
        else None
    for p in _STARTUP_PATH:
        rp = os.path.realpath(p)
        if script_dir and rp == os.path.realpath(script_dir) and not rp.endswith(
                ("site-packages", "dist-packages")):
            continue
        out.append(rp)
    return out


def is_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (symbolic links resolved) lies inside folder ``root``."""
    p, r = os.path.realpath(path), os.path.realpath(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


def is_stdlib_module(name: str) -> bool:
    """Whether top-level module ``name`` belongs to the standard library or builtins."""
    top = name.split(".", 1)[0]
    return top in sys.stdlib_module_names or top in sys.builtin_module_names or \
        top in ("builtins", "__main__", "__future__")


def _defining_module(obj: Any) -> str:
    """The module that defines the callable ``obj`` (through partials and bound methods)."""
    seen = 0
    while seen < 16:
        seen += 1
        if isinstance(obj, functools.partial):
            obj = obj.func
            continue
        inner = getattr(obj, "__func__", None)
        if inner is not None:
            obj = inner
            continue
        break
    mod = getattr(obj, "__module__", None)
    if not isinstance(mod, str) and not isinstance(obj, type):
        mod = getattr(type(obj), "__module__", None)
    return mod if isinstance(mod, str) else "builtins"


def _installed(mod_name: str) -> bool:
    """Whether the top-level package of ``mod_name`` belongs to an installed distribution
    (an editable install is imported through its own finder, not a ``sys.path`` folder)."""
    from importlib import metadata

    return mod_name.split(".", 1)[0] in metadata.packages_distributions()


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """``{distribution: version}`` of the installed distributions providing the top-level
    modules ``names`` (what a counterexample records instead of a folder)."""
    from importlib import metadata

    dists = metadata.packages_distributions()
    out: dict[str, str] = {}
    for n in names:
        for dist in dists.get(n.split(".", 1)[0], []):
            try:
                out[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:  # pragma: no cover - racing uninstall
                continue
    return out


@dataclass
class ImportGate:
    """Imports a counterexample's ``MODULE:OBJECT`` references under the trust model.

    ``file_root``: the counterexample's report folder; ``trust_code``: ``--trust-code``
    (or a verified MAC): an ``import_path`` anywhere is honoured; ``show``: called with one
    line per module *before* it is imported."""

    file_root: Path
    trust_code: bool = False
    show: Callable[[str], Any] = lambda _line: None
    extra_roots: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)

    def roots(self) -> list[str]:
        """Every folder code may be imported from."""
        return [*environment_roots(), os.path.realpath(os.getcwd()), *self.extra_roots]

    def allow_import_path(self, import_path: Any) -> None:
        """Honour a file's ``import_path`` when it lies inside the file's report folder or
        the current directory (or code is trusted); otherwise refuse it, naming
        ``--trust-code``."""
        if import_path is None:
            return
        if not isinstance(import_path, str) or not import_path or "\x00" in import_path:
            raise UntrustedError(f"inputs.import_path: not a folder name: {import_path!r}")
        p = Path(import_path)
        if not p.is_absolute():
            p = self.file_root / p
        if not (self.trust_code or is_inside(p, self.file_root) or is_inside(p, os.getcwd())):
            raise UntrustedError(
                f"inputs.import_path {import_path!r} lies outside the counterexample's folder "
                f"{str(self.file_root)!r}: refused (a replay imports only from the installed "
                "environment and the current directory; pass --trust-code to import from "
                "there, or run replay from the folder that holds the module)")
        if p.is_dir():
            rp = os.path.realpath(p)
            if rp not in self.extra_roots:
                self.extra_roots.append(rp)
            if rp not in sys.path:
                sys.path.insert(0, rp)

    def load(self, ref: Any, role: str, where: str) -> Any:
        """The object ``ref`` names (``role``: mechanism, relation, program, kernels), after
        checking it is a user's ``MODULE:OBJECT`` found under :meth:`roots` and saying so."""
        ref = check_ref(ref, where)
        mod_name, _, attr = ref.partition(":")
        if is_stdlib_module(mod_name):
            raise UntrustedError(f"{where} {ref!r}: a standard-library module cannot be a "
                                 f"{role} (refused before importing it)")
        module = self.load_module(mod_name, role, where)
        obj: Any = module
        for part in attr.split("."):
            if part.startswith("__") or not hasattr(obj, part):
                raise UntrustedError(f"{where} {ref!r}: module {mod_name!r} has no "
                                     f"attribute {attr!r}")
            obj = getattr(obj, part)
        defined = _defining_module(obj)
        if is_stdlib_module(defined):
            raise UntrustedError(f"{where} {ref!r} is the standard library's "
                                 f"{defined}.{getattr(obj, '__name__', attr)}: refused as "
                                 f"a {role}")
        return obj

    def load_module(self, mod_name: str, role: str, where: str) -> Any:
        """Import module ``mod_name`` after :meth:`show` has named its file (found without
        executing it); a module found outside :meth:`roots` is refused."""
        if is_stdlib_module(mod_name):
            raise UntrustedError(f"{where} {mod_name!r}: a standard-library module cannot be "
                                 f"a {role}")
        origin = self._origin(mod_name, where)
        roots = self.roots()
        if origin is not None and not any(is_inside(origin, r) for r in roots) and \
                not _installed(mod_name):
            raise UntrustedError(f"{where} {mod_name!r} would be imported from {origin!r}, "
                                 "outside the installed environment and the current "
                                 "directory: refused (pass --trust-code)")
        self.show(f"  imports   {role} module {mod_name} from {origin or 'a built-in'}")
        try:
            module = importlib.import_module(mod_name)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's module: one error
            raise UntrustedError(f"{where}: cannot import {mod_name!r} ({type(exc).__name__}: "
                                 f"{str(exc)[:200]})") from None
        self.imported.append(mod_name)
        return module

    @staticmethod
    def _origin(mod_name: str, where: str) -> str | None:
        loaded = sys.modules.get(mod_name)
        if loaded is not None:
            return getattr(loaded, "__file__", None)
        top = mod_name.split(".", 1)[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError) as exc:
            raise UntrustedError(f"{where}: cannot find module {top!r} ({exc})") from None
        if spec is None:
            raise UntrustedError(
                f"{where}: no module {top!r} in the installed environment or the current "
                f"directory {os.getcwd()!r} (run replay from the folder holding it, or "
                "install it)")
        if spec.origin in (None, "built-in", "frozen") and spec.submodule_search_locations:
            return list(spec.submodule_search_locations)[0]
        return spec.origin if spec.origin not in ("built-in", "frozen") else None


def code_record(ref: str | None) -> dict[str, Any]:
    """What a counterexample records about the code of ``ref`` (``MODULE:OBJECT``): the
    package versions of the environment it ran in (dpaudit, numpy and the distribution
    providing ``MODULE``, if any), never the folder it was imported from."""
    names = ["audit", "numpy"]
    if ref and ":" in ref:
        names.append(ref.partition(":")[0])
    return {"environment": package_versions(names)}
