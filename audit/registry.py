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
  detail)`` (a :class:`Replay`, or the plain 4-tuple) that ``dpaudit replay`` calls with a
  counterexample's decoded ``inputs``.

Each :class:`Subject` owns what its modules register: :meth:`Subject.claims` (keys are
namespaced by the subject automatically, :attr:`Claim.qualified_key`), :meth:`Subject.replayers`
and its ``coverage`` hook.  Duplicates of any kind are rejected: a second claim with the same
key in the same subject, a second, different replayer for the same check id.  A claim whose
run refutes without a registered replayer for the counterexample is refused by
:func:`run_claim` (every refutation replays).

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
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, NamedTuple, Protocol

from audit.findings import Finding, Method, Verdict
from kernels.errors import InputError

__all__ = [
    "CLAIMS",
    "ENTRY_POINT_GROUP",
    "REPLAYERS",
    "Claim",
    "Command",
    "MissingReplayerError",
    "RegressSuite",
    "Replay",
    "Subject",
    "SubjectLoadError",
    "claim",
    "id_tag",
    "load_all",
    "load_error_finding",
    "rediscover",
    "register_subject",
    "replayer",
    "resolve",
    "run_claim",
    "subject_errors",
    "subjects",
]

ENTRY_POINT_GROUP = "dpaudit.subjects"

class Replay(NamedTuple):
    """What a replayer returns: does the counterexample still fail, the reference value
    recomputed now, the value of the thing under test recomputed now, and a one-line detail.
    A plain 4-tuple is accepted too (:meth:`of`)."""

    still_fails: bool
    expected: Any
    actual: Any
    detail: str = ""

    @classmethod
    def of(cls, value: Any) -> Replay:
        if isinstance(value, Replay):
            return value
        if not isinstance(value, tuple) or len(value) not in (3, 4):
            raise TypeError(f"a replayer returns Replay or (still_fails, expected, actual, "
                            f"detail); got {type(value).__name__}")
        return cls(bool(value[0]), value[1], value[2], str(value[3]) if len(value) == 4 else "")


#: a replayer returns a :class:`Replay` (or the plain 4-tuple)
Replayer = Callable[[dict], "Replay | tuple[bool, Any, Any, str]"]


@dataclass(frozen=True)
class Claim:
    key: str  # short stable key, e.g. "gini.eq1-vs-eq2" (unique within its subject)
    title: str
    command: str  # "prove" (symbolic / SMT) or "search" (exhaustive / randomised)
    run: Callable[[float, int], list[Finding]]
    paper: str  # the subject whose claim this is (the report's subject)
    reference: str = ""  # where in the paper (e.g. "Theorem 4.3, eq. (23)")

    @property
    def qualified_key(self) -> str:
        """``subject:key``, unique across every installed subject."""
        return f"{self.paper}:{self.key}"


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
    #: "module:attr" of (quick: bool) -> list of audit.privacy.coverage_calibration cases
    coverage_calibration: str | None = None
    mechanisms: str | None = None  # "module:attr" of () -> {name: description}
    default: bool = False  # the subject commands use when not told (--paper, --subject)
    package: str = ""  # distribution that provides it (filled in by discovery)
    coverage: str | None = None  # "module:attr" of the subject's coverage table

    def claims(self) -> list[Claim]:
        """Every claim this subject registers (its modules are imported first)."""
        _load_subject(self)
        return [c for c in CLAIMS if c.paper == self.name]

    def replayers(self) -> dict[str, Replayer]:
        """Every replayer registered by this subject's modules (check id -> replayer)."""
        _load_subject(self)
        roots = {m.rsplit(".", 1)[0] for m in self.modules} | set(self.modules)
        return {k: fn for k, fn in REPLAYERS.items()
                if getattr(fn, "__module__", "") in roots
                or any(getattr(fn, "__module__", "").startswith(r + ".") for r in roots)}


class SubjectLoadError(InputError):
    """A subject (or one of its modules) could not be loaded; names the package."""


class MissingReplayerError(ValueError):
    """A claim refuted something that ``dpaudit replay`` could not re-run."""


def _same_function(a: Any, b: Any) -> bool:
    """The same replayer registered again (a module imported twice, a closure rebuilt)."""
    return a is b or (getattr(a, "__module__", None) == getattr(b, "__module__", None)
                      and getattr(a, "__qualname__", None) == getattr(b, "__qualname__", None))


class _ReplayerTable(dict):
    """check id -> replayer; a second, *different* replayer for an id is rejected (item
    assignment included, so no code path silently overwrites one)."""

    def __setitem__(self, key: str, fn: Replayer) -> None:
        old = self.get(key)
        if old is not None and not _same_function(old, fn):
            def name(f: Any) -> str:
                return f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', '?')}"

            raise ValueError(f"duplicate replayer for check {key!r}: {name(old)} and {name(fn)}")
        super().__setitem__(key, fn)


CLAIMS: list[Claim] = []
REPLAYERS: dict[str, Replayer] = _ReplayerTable()

_SUBJECTS: dict[str, Subject] = {}
_ERRORS: dict[str, str] = {}
_DISCOVERED = False
_LOADED: set[str] = set()


def claim(key: str, title: str, command: str, paper: str, reference: str = "") -> Callable:
    """Register a claim of subject ``paper`` (decorator)."""
    if command not in ("prove", "search", "reproduce"):
        raise ValueError(f"command must be 'prove', 'search' or 'reproduce', got {command!r}")

    def deco(fn: Callable[[float, int], list[Finding]]) -> Callable[[float, int], list[Finding]]:
        if any(c.key == key and c.paper == paper for c in CLAIMS):
            raise ValueError(f"duplicate claim key {key!r} in subject {paper!r}")
        CLAIMS.append(Claim(key, title, command, fn, paper, reference))
        return fn

    return deco


def replayer(check_id: str) -> Callable[[Replayer], Replayer]:
    """Register the replayer of check ``check_id`` (decorator); a second, different replayer
    for the same id raises ``ValueError``."""
    def deco(fn: Replayer) -> Replayer:
        REPLAYERS[check_id] = fn
        return fn

    return deco


def replay(check_id: str, inputs: dict) -> Replay:
    """Run the replayer of ``check_id`` on decoded ``inputs`` (KeyError if there is none)."""
    return Replay.of(REPLAYERS[check_id](inputs))


def unreplayable(findings: Sequence[Finding]) -> list[str]:
    """Ids of refuting findings whose counterexample names a check with no registered
    replayer (a claim's refutations all need one; regress suites replay their own checks)."""
    bad = []
    for f in findings:
        if f.verdict not in (Verdict.REFUTED, Verdict.REFUTED_UNDER_READING):
            continue
        cx = f.counterexample or {}
        if cx.get("check") not in REPLAYERS:
            bad.append(f.id)
    return bad


def run_claim(c: Claim, budget_s: float, seed: int) -> list[Finding]:
    """Run claim ``c`` and refuse its result (:class:`MissingReplayerError`) if a refutation
    cannot be replayed."""
    found = c.run(budget_s, seed)
    bad = unreplayable(found)
    if bad:
        checks = sorted({str((f.counterexample or {}).get("check")) for f in found if f.id in bad})
        raise MissingReplayerError(
            f"claim {c.qualified_key} refuted {', '.join(bad)} but no replayer is registered "
            f"for {', '.join(checks)}")
    return found


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


def id_tag(name: str) -> str:
    """``name`` (a subject) as a part of a finding id: lower case, ``[a-z0-9._-]`` only."""
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "subject"


def load_error_finding(prefix: str, subject: str, what: str, why: str) -> Finding:
    """An ERROR finding for a subject whose ``what`` (its regress suite, its calibration
    runs) could not be loaded: a command over every subject fails instead of silently
    checking less.  Id ``<prefix>.<subject>``."""
    return Finding(
        id=f"{prefix}.{id_tag(subject)}",
        claim=f"the {what} of subject {subject!r} load and run",
        reference="a run that checked less never passes",
        method=Method.EXACT, verdict=Verdict.ERROR,
        scope=f"not loaded, none of its checks ran: {why[:300]}",
        evidence={"subject": subject, "error": why[:300], "must_hold": True},
        subject=f"subject:{subject}")

