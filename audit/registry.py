"""Subjects (one per paper or mechanism family), their claims and their replayers.

A **subject** is a small object (:class:`Subject`) that a package exposes through the
Python entry-point group ``dpaudit.subjects`` — the plug-in mechanism pytest and Hypothesis
use — so that installing a package is enough for ``dpaudit subjects`` to list it and for
``dpaudit prove|search --paper NAME`` to run its claims.  The engine (``audit/``) never
imports a subject by name: it only iterates what :func:`subjects` discovers.

A subject names *modules*; importing them registers, through the decorators below,

* claims (:func:`claim`): functions ``(budget_s, seed) -> list[Finding]`` run by ``dpaudit
  prove`` (symbolic / SMT) or ``dpaudit search`` (exhaustive / randomised);
* replayers (:func:`replayer`): functions ``inputs -> (still_fails, expected, actual,
  detail)`` that ``dpaudit replay`` calls with a counterexample's decoded ``inputs``.

Optional hooks, each a ``"module:attribute"`` string resolved lazily (so listing subjects
stays cheap and one broken hook cannot stop the others):

* ``regress``: a :class:`RegressSuite` (kernel protocol + cross-checks) for ``dpaudit
  regress --kernels MODULE``;
* ``certify``: a :class:`Command` run by ``dpaudit certify --subject NAME``;
* ``commands``: extra top-level commands (name -> :class:`Command`), e.g. ``release``;
* ``calibration``: a callable returning extra calibration runs for ``dpaudit calibrate``;
* ``mechanisms``: a callable returning ``{name: description}`` of the mechanisms the
  subject offers to the privacy testers (listed by ``dpaudit subjects``).

A third-party package declares, in its ``pyproject.toml``::

    [project.entry-points."dpaudit.subjects"]
    my-paper = "my_package.subject:SUBJECT"
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Protocol

from audit.findings import Finding
from kernels.errors import InputError

__all__ = [
    "CLAIMS",
    "ENTRY_POINT_GROUP",
    "REPLAYERS",
    "Claim",
    "Command",
    "RegressSuite",
    "Subject",
    "SubjectLoadError",
    "claim",
    "load_all",
    "rediscover",
    "register_subject",
    "replayer",
    "resolve",
    "subject_errors",
    "subjects",
]

ENTRY_POINT_GROUP = "dpaudit.subjects"

#: a replayer returns (still_fails, expected, actual, detail)
Replayer = Callable[[dict], tuple[bool, Any, Any, str]]


@dataclass(frozen=True)
class Claim:
    key: str  # short stable key, e.g. "gini.eq1-vs-eq2"
    title: str
    command: str  # "prove" (symbolic / SMT) or "search" (exhaustive / randomised)
    run: Callable[[float, int], list[Finding]]
    paper: str  # the subject whose claim this is (the report's subject)
    reference: str = ""  # where in the paper (e.g. "Theorem 4.3, eq. (23)")


class Command(Protocol):
    """A CLI command a subject contributes (``certify --subject``, or a top-level one)."""

    help: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class RegressSuite(Protocol):
    """What ``dpaudit regress`` needs from a subject.

    ``protocol``: function name -> "signature: meaning" (:data:`audit.protocols.KernelProtocol`);
    ``default_kernels``: the module audited when ``--kernels`` is not given;
    ``run(mod, subject, seed, mode, only, on_finding)`` runs every check and calls
    ``on_finding(i, total, finding)``; ``replay(doc, mod)`` re-runs one stored
    counterexample of a regress check and returns ``(still_fails, lines)`` or ``None``
    when ``doc['check']`` is not one of its checks.
    """

    protocol: dict[str, str]
    default_kernels: str

    def run(self, mod: Any, subject: str, seed: int, mode: str, only: str | None,
            on_finding: Callable[[int, int, Finding], None]) -> None: ...

    def replay(self, doc: dict, mod: Any) -> tuple[bool, list[str]] | None: ...


@dataclass(frozen=True)
class Subject:
    """One audited paper (or mechanism family): what the engine needs to run its checks."""

    name: str  # stable, used by --paper / --subject, e.g. "lan-reiter-2025"
    paper: str  # the full reference
    modules: tuple[str, ...]  # importing these registers claims and replayers
    regress: str | None = None  # "module:attr" of a RegressSuite
    certify: str | None = None  # "module:attr" of a Command
    commands: dict[str, str] = field(default_factory=dict)  # name -> "module:attr"
    calibration: str | None = None  # "module:attr" of () -> list of calibration runs
    mechanisms: str | None = None  # "module:attr" of () -> {name: description}
    default: bool = False  # the subject commands use when not told (--paper, --subject)
    package: str = ""  # distribution that provides it (filled in by discovery)


class SubjectLoadError(InputError):
    """A subject (or one of its modules) could not be loaded; names the package."""


CLAIMS: list[Claim] = []
REPLAYERS: dict[str, Replayer] = {}

_SUBJECTS: dict[str, Subject] = {}
_ERRORS: dict[str, str] = {}
_DISCOVERED = False
_LOADED: set[str] = set()


def claim(key: str, title: str, command: str, paper: str, reference: str = "") -> Callable:
    """Register a claim of subject ``paper`` (decorator)."""
    if command not in ("prove", "search", "reproduce"):
        raise ValueError(f"command must be 'prove', 'search' or 'reproduce', got {command!r}")

    def deco(fn: Callable[[float, int], list[Finding]]) -> Callable[[float, int], list[Finding]]:
        if any(c.key == key for c in CLAIMS):
            raise ValueError(f"duplicate claim key {key!r}")
        CLAIMS.append(Claim(key, title, command, fn, paper, reference))
        return fn

    return deco


def replayer(check_id: str) -> Callable[[Replayer], Replayer]:
    def deco(fn: Replayer) -> Replayer:
        REPLAYERS[check_id] = fn
        return fn

    return deco


def register_subject(subject: Subject) -> Subject:
    """Add a subject by hand (what an entry point does on discovery; tests use it)."""
    _discover()
    _SUBJECTS[subject.name] = subject
    _ERRORS.pop(subject.name, None)
    return subject


def rediscover() -> None:
    """Forget what was discovered and read the entry points again (after installing a
    package at run time; tests).  Claims already registered stay registered."""
    global _DISCOVERED
    _DISCOVERED = False
    _SUBJECTS.clear()
    _ERRORS.clear()
    _LOADED.clear()


def _discover() -> None:
    global _DISCOVERED
    if _DISCOVERED:
        return
    _DISCOVERED = True
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        pkg = getattr(getattr(ep, "dist", None), "name", None) or ep.value.split(".")[0]
        try:
            obj = ep.load()
            if not isinstance(obj, Subject):
                raise TypeError(f"{ep.value} is a {type(obj).__name__}, not audit.registry.Subject")
        except Exception as exc:  # a broken plug-in must not stop the others
            _ERRORS[ep.name] = (f"subject {ep.name!r} from package {pkg!r}: "
                                f"{type(exc).__name__}: {exc}")
            continue
        if obj.name in _SUBJECTS:
            _ERRORS[ep.name] = (f"subject {obj.name!r} from package {pkg!r} is declared twice; "
                                "the first one is kept")
            continue
        _SUBJECTS[obj.name] = Subject(**{**obj.__dict__, "package": obj.package or pkg})


def subjects() -> dict[str, Subject]:
    """Every subject found (entry points plus :func:`register_subject`), by name."""
    _discover()
    return dict(_SUBJECTS)


def subject_errors() -> dict[str, str]:
    """Subjects whose entry point or modules failed to load: name -> one-line message."""
    _discover()
    return dict(_ERRORS)


def _load_subject(s: Subject) -> None:
    if s.name in _LOADED:
        return
    for mod in s.modules:
        try:
            importlib.import_module(mod)
        except Exception as exc:
            _ERRORS[s.name] = (f"subject {s.name!r} from package {s.package or '?'!r}: module "
                               f"{mod}: {type(exc).__name__}: {exc}")
            raise SubjectLoadError(_ERRORS[s.name]) from exc
    _LOADED.add(s.name)


def load_all(names: Sequence[str] | None = None) -> list[Claim]:
    """Import the modules of every subject (or of ``names``); a subject whose modules fail
    to import is recorded in :func:`subject_errors` and skipped, never stops the others."""
    for name, s in subjects().items():
        if names is not None and name not in names:
            continue
        try:
            _load_subject(s)
        except SubjectLoadError:
            continue
    return list(CLAIMS)


def resolve(ref: str) -> Any:
    """``"package.module:attr"`` -> the object (raises SubjectLoadError with the reference)."""
    mod, _, attr = ref.partition(":")
    try:
        obj = importlib.import_module(mod)
        for part in attr.split(".") if attr else []:
            obj = getattr(obj, part)
    except Exception as exc:
        raise SubjectLoadError(f"cannot load {ref}: {type(exc).__name__}: {exc}") from exc
    return obj
