"""Dick et al.'s mechanisms wrapped for the engine's privacy testers (relation: add/remove one,
the paper's Section 2; replace-one runs are labelled as such by the caller).

* :class:`Alg1Count`, :class:`Alg1Sum` - Algorithm 1 lines 3 and 4 as location-scale Laplace
  mechanisms (:class:`audit.protocols.LocationScaleMechanism`) for
  :func:`audit.privacy.exact_loss.pair_loss`; the joint (n-hat, s-hat) loss is the sum of the
  two certified sups (independent noises; Laplace sups are attained in both signs).
* :class:`Alg1Release`, :class:`Alg3Release`, :class:`Alg2Release` - sampling mechanisms
  (:class:`audit.protocols.Mechanism`) for :class:`audit.privacy.blackbox.BlackBoxTester`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from audit.protocols import ADD_REMOVE_ONE
from kernels.subset_optimal import mean as km
from kernels.subset_optimal import thresholds as th

__all__ = ["Alg1Count", "Alg1Sum", "Alg1Release", "Alg2Release", "Alg3Release", "catalogue"]


class _Laplace:
    noise_name = "laplace"

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return -np.abs(z) - math.log(2.0)

    def noise_logpdf_mp(self, z: Any) -> Any:
        return -abs(z) - mpmath.log(2)


@dataclass(frozen=True)
class Alg1Count(_Laplace):
    """Algorithm 1 line 3: n-hat = |D| + Lap(2/eps); claimed eps/2 (Appendix B.2)."""

    epsilon: float
    name: str = "dick-alg1-count"
    relation: str = ADD_REMOVE_ONE

    @property
    def claimed_epsilon(self) -> float:
        return self.epsilon / 2

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        return float(np.asarray(dataset).size), 2.0 / self.epsilon

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.location_scale(dataset)
        return a + b * rng.laplace(0.0, 1.0, size)


@dataclass(frozen=True)
class Alg1Sum(_Laplace):
    """Algorithm 1 line 4: s-hat = sum(D - m) + Lap(w/eps); claimed eps/2 (Appendix B.2)."""

    epsilon: float
    lower: float
    upper: float
    name: str = "dick-alg1-sum"
    relation: str = ADD_REMOVE_ONE

    @property
    def claimed_epsilon(self) -> float:
        return self.epsilon / 2

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        m = (self.lower + self.upper) / 2
        d = np.asarray(dataset, dtype=np.float64)
        return float(np.sum(d - m)), (self.upper - self.lower) / self.epsilon

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.location_scale(dataset)
        return a + b * rng.laplace(0.0, 1.0, size)


@dataclass(frozen=True)
class Alg1Release:
    """Algorithm 1's mu-hat on public [lower, upper]; claimed eps (Lemma 2)."""

    epsilon: float
    lower: float
    upper: float
    name: str = "dick-alg1"
    relation: str = ADD_REMOVE_ONE

    @property
    def claimed_epsilon(self) -> float:
        return self.epsilon

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return km.alg1_sample(np.asarray(dataset), self.lower, self.upper, self.epsilon, size, rng)


@dataclass(frozen=True)
class Alg2Release:
    """Algorithm 2 with *public* r, alpha, [a, b]; claimed eps (Theorem 2)."""

    r: float
    a: float
    b: float
    alpha: float
    epsilon: float
    name: str = "dick-alg2"
    relation: str = ADD_REMOVE_ONE

    @property
    def claimed_epsilon(self) -> float:
        return self.epsilon

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return th.sample(np.asarray(dataset), self.r, self.a, self.b, self.alpha, self.epsilon,
                         size, rng)


@dataclass(frozen=True)
class Alg3Release:
    """Algorithm 3's mu-hat (lines 1-5); claimed 3 eps (Theorem 1).  ``clip``/``n_public``
    select the reading / twin (see :mod:`kernels.subset_optimal.mean`)."""

    R: float
    epsilon: float
    gamma: float
    clip: bool = True
    n_public: int | None = None
    name: str = field(default="dick-alg3")
    relation: str = ADD_REMOVE_ONE

    @property
    def claimed_epsilon(self) -> float:
        return 3 * self.epsilon

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return km.alg3_sample(np.asarray(dataset), self.R, self.epsilon, self.gamma, size, rng,
                              clip=self.clip, n_public=self.n_public)


def catalogue() -> dict[str, str]:
    return {
        "Alg1Count / Alg1Sum": "Algorithm 1 lines 3-4, Laplace location-scale; add-remove-one",
        "Alg1Release": "Algorithm 1 mu-hat on public [l, u]; claimed eps; add-remove-one",
        "Alg2Release": "Algorithm 2, public r and alpha; claimed eps; add-remove-one",
        "Alg3Release": "Algorithm 3 mu-hat (alpha = gamma/|D| as printed); claimed 3 eps",
    }
