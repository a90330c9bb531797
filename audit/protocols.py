"""The engine's protocols: kernel modules audited by ``regress`` (a subject publishes its
function names) and the small protocols shared by the privacy testers (after
DP-Auditorium's Mechanism /
DatasetGenerator / PropertyTester split).

* :class:`Mechanism` — anything that can be *sampled* in bulk on a data set.  Black-box
  testers need nothing more.
* :class:`LocationScaleMechanism` — a mechanism whose output is ``location(D) + scale(D) * Z``
  with ``Z`` drawn from a known noise law (the DP Gini release of Lan & Reiter 2025, eq. (9),
  has this form).  Exact privacy-loss testers need the law's log-density.
* :class:`NeighbourGenerator` — yields neighbouring pairs ``(D, D')`` under a *named*
  neighbour relation (:data:`REPLACE_ONE` or :data:`ADD_REMOVE_ONE`).
* :class:`Tester` — turns a mechanism and pairs into a :class:`TestResult`.  Each tester's
  docstring states exactly what its verdict guarantees.

Data sets are whatever the mechanism accepts (1-D float arrays for the Gini release, query
answer vectors for Noisy-Max / Sparse Vector).  Nothing here prints or writes files.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from kernels.errors import InputError

__all__ = [
    "KernelModuleError",
    "KernelProtocol",
    "load_kernels",
    "provided",
    "ADD_REMOVE_ONE",
    "REPLACE_ONE",
    "RELATIONS",
    "LocationScaleMechanism",
    "Mechanism",
    "NeighbourGenerator",
    "NeighbourPair",
    "TestResult",
    "Tester",
]

#: D' is D with one record replaced by another value in [L, U] (same n).
REPLACE_ONE = "replace-one"
#: D' is D with one record added or removed (n differs by one).
ADD_REMOVE_ONE = "add-remove-one"
RELATIONS = (REPLACE_ONE, ADD_REMOVE_ONE)


@runtime_checkable
class Mechanism(Protocol):
    """A randomised algorithm that can be sampled many times on one data set.

    ``sample(dataset, size, rng)`` returns ``size`` independent outputs as a numpy array whose
    first axis has length ``size`` (1-D for scalar outputs, 2-D for vector outputs).  The
    generator ``rng`` is the only source of randomness.  ``claimed_epsilon`` is the privacy
    parameter the mechanism's author claims (pure epsilon-DP) under ``relation``.  Testers
    only read ``name``, ``claimed_epsilon`` and ``relation`` (read-only members: a frozen
    dataclass field, a property or a plain attribute all satisfy them).
    """

    @property
    def name(self) -> str: ...

    @property
    def claimed_epsilon(self) -> float: ...

    @property
    def relation(self) -> str: ...

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray: ...


@runtime_checkable
class LocationScaleMechanism(Mechanism, Protocol):
    """Output ``location(D) + scale(D) * Z``, ``Z`` with log-density ``noise_logpdf``.

    ``location_scale(D)`` returns ``(location, scale)`` as floats with ``scale > 0``.
    ``noise_logpdf(z)`` is the log-density of the standardised noise (vectorised), and
    ``noise_logpdf_mp(z)`` the same at arbitrary precision (an mpmath value for an mpmath
    argument), used by exact testers to certify their figures.
    """

    def location_scale(self, dataset: Any) -> tuple[float, float]: ...

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray: ...

    def noise_logpdf_mp(self, z: Any) -> Any: ...


@dataclass(frozen=True)
class NeighbourPair:
    """Two neighbouring data sets and how ``second`` was obtained from ``first``.

    ``change`` describes the edit in public terms (e.g. ``{"op": "replace", "index": 3,
    "new": 0.0}``); reports about confidential data print it only when asked.
    """

    first: Any
    second: Any
    relation: str
    change: dict[str, Any] = field(default_factory=dict)


class NeighbourGenerator(Protocol):
    """Yields neighbouring pairs of a given data set under one named relation."""

    relation: str

    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]: ...


@dataclass(frozen=True)
class TestResult:
    """What a tester returns.

    ``epsilon_lower``: a lower bound on the mechanism's true epsilon that holds with
    probability >= ``confidence`` over the tester's randomness (``None`` for testers that do
    not produce one).  ``epsilon_estimate``: the tester's point figure (exact testers: the
    certified loss itself).  ``violates``: True iff the evidence shows epsilon above the
    claim (for statistical testers: ``epsilon_lower > claimed``).  ``witness``: the pair
    and output event / output value that attains the figure.  ``details``: every other
    figure a sceptic needs to replay the run (seeds, sample sizes, corrections).
    """

    tester: str
    mechanism: str
    relation: str
    claimed_epsilon: float
    epsilon_estimate: float
    epsilon_lower: float | None
    confidence: float | None
    violates: bool
    witness: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)


class Tester(Protocol):
    """Estimates or bounds a mechanism's privacy loss on given neighbouring pairs."""

    name: str

    def run(
        self, mechanism: Mechanism, pairs: list[NeighbourPair], rng: np.random.Generator
    ) -> TestResult: ...


# --------------------------------------------------------------------------- kernel modules
#: A subject's kernel protocol: function name -> "signature: meaning".  ``dpaudit regress
#: --kernels MODULE`` audits any module that defines some of these names (a subject
#: publishes its protocol; see :class:`audit.registry.RegressSuite`).
KernelProtocol = dict[str, str]


class KernelModuleError(InputError):
    """The --kernels module cannot be imported or provides no protocol function."""


def provided(mod: ModuleType, protocol: KernelProtocol) -> list[str]:
    """Protocol names the module defines as callables."""
    return [name for name in protocol if callable(getattr(mod, name, None))]


def load_kernels(name: str, protocol: KernelProtocol | None = None) -> ModuleType:
    """Import a kernel module by dotted name; error if it implements nothing of ``protocol``."""
    try:
        mod = importlib.import_module(name)
    except Exception as exc:
        raise KernelModuleError(
            f"--kernels {name}: cannot import module ({type(exc).__name__}: {exc})"
        ) from exc
    if protocol is not None and not provided(mod, protocol):
        names = ", ".join(protocol)
        raise KernelModuleError(
            f"--kernels {name}: the module defines none of the kernel protocol functions ({names})"
        )
    return mod
