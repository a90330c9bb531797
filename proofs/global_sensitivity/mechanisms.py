"""The Laplace releases of Liu's supplement wrapped for the privacy testers.

:class:`GSRelease` releases T(D) + Lap(GS/epsilon) (per coordinate for the histogram and the
proportion vector), T one of the supplement's statistics and GS the printed or the exact value
(:mod:`kernels.global_sensitivity.formulas`).  Scalar releases are
:class:`audit.protocols.LocationScaleMechanism` (location T(D), scale b, Laplace noise), with
``exact_location_scale`` (T in Fractions, b = GS/epsilon exactly) for the certified exact loss.

Which n / cell sizes the GS uses (``gs_from``):

* ``"public"`` (default): the values given (``n``, ``sizes``): under Def 2 the size of the
  LARGER data set of the pair, the supplement's convention - the same scale on both sides;
* ``"own"``: each data set's own size / cell sizes - what a curator who does not know the
  neighbour does; under Def 2 the two sides then get different scales (claim
  ``gs.private-quantities``).

Vector releases: ``projection`` (a fixed public sign vector) makes ``sample`` return the scalar
sum_c sign_c y_c - post-processing, so any black-box lower bound for it is a lower bound for
the vector release.  ``scale_factor < 1`` gives the broken twin (noise too small).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from kernels.global_sensitivity import formulas as fo
from proofs.global_sensitivity import oracles as es

__all__ = ["GSRelease", "catalogue", "exact_values"]


def _exact(x: Any) -> Any:
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_exact(v) for v in x]
    if isinstance(x, float | np.floating):
        return Fraction(float(x))
    if isinstance(x, np.integer):
        return int(x)
    return x


def exact_values(stat: str, dataset: Any, k: int | None = None) -> Any:
    """T(dataset) exactly (Fractions), records converted exactly from floats."""
    data = _exact(dataset)
    if stat == "covariance":
        data = [tuple(p) for p in data]
    if stat == "pooled-covariance":
        data = [[tuple(p) for p in c] for c in data]
    return es.statistic(stat, k)(data)


@dataclass(frozen=True)
class GSRelease:
    """T(D) + Lap(GS/epsilon); see the module docstring."""

    stat: str
    relation: str
    epsilon: float = 1.0
    gs_rule: str = "printed"  # "printed" | "exact"
    n: int | None = None
    sizes: tuple[int, ...] | None = None
    k: int | None = None
    gs_from: str = "public"  # "public" | "own"
    scale_factor: float = 1.0
    projection: tuple[int, ...] | None = None
    lower: float = 0.0
    upper: float = 1.0
    noise: str = "laplace"
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.name:
            tag = "" if self.scale_factor == 1.0 else f"<BROKEN:x{self.scale_factor:g}>"
            own = ",own-n" if self.gs_from == "own" else ""
            object.__setattr__(self, "name", f"laplace[{self.stat},{self.relation},"
                               f"{self.gs_rule} GS{own},eps={self.epsilon:g}]{tag}")

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    def gs(self, dataset: Any) -> Any:
        """The GS used on ``dataset`` (exact: Fraction, or mpf for the printed pooled cov)."""
        n, sizes = self.n, self.sizes
        if self.gs_from == "own":
            if self.stat.startswith("pooled"):
                sizes = tuple(len(c) for c in dataset)
            else:
                n = len(dataset)
            if self.relation == fo.DEF2 and not self.stat.startswith("pooled"):
                n = max(n, 3 if self.stat in ("variance", "covariance") else 2)
        fn = fo.printed_gs if self.gs_rule == "printed" else fo.exact_gs
        kw: dict[str, Any] = {"k": self.k}
        if self.stat.startswith("pooled"):
            kw["sizes"] = sizes
        else:
            kw["n"] = n
        return fn(self.stat, self.relation, **kw)

    def exact_scale(self, dataset: Any) -> Any:
        g = self.gs(dataset)
        with mpmath.workdps(50):
            if isinstance(g, Fraction):
                return g * Fraction(self.scale_factor) / Fraction(self.epsilon)
            return g * mpmath.mpf(self.scale_factor) / mpmath.mpf(self.epsilon)

    def exact_location_scale(self, dataset: Any) -> tuple[Any, Any]:
        return exact_values(self.stat, dataset, self.k), self.exact_scale(dataset)

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        a, b = self.exact_location_scale(dataset)
        if isinstance(a, list):
            raise TypeError("vector release: no scalar location")
        return float(a), float(b)

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return -math.log(2.0) - np.abs(np.asarray(z, dtype=np.float64))

    def noise_logpdf_mp(self, z: Any) -> Any:
        return -mpmath.log(2) - abs(mpmath.mpf(z))

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.exact_location_scale(dataset)
        b = float(b)
        if isinstance(a, list):
            y = np.array([float(v) for v in a])[None, :] + rng.laplace(0.0, b, (size, len(a)))
            if self.projection is not None:
                return y @ np.asarray(self.projection, dtype=np.float64)
            return y
        return float(a) + rng.laplace(0.0, b, size)


def catalogue() -> dict[str, str]:
    """Mechanisms this subject offers to the privacy testers."""
    return {
        "GSRelease": "T(D) + Lap(GS/eps) for T in mean, proportion, histogram, proportion "
        "vector, variance, covariance, pooled variance, pooled covariance; GS printed or "
        "exact; Def 1 or Def 2; gs_from='own' uses the data set's own n / cell sizes",
        "GSRelease(scale_factor<1)": "broken twin: noise scale too small",
    }
