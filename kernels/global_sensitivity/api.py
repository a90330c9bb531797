"""dpaudit's own Liu kernels behind :data:`kernels.global_sensitivity.protocol.PROTOCOL`.

Thin wrappers with the protocol's fixed names; the mathematics (and its supplement
references) lives in :mod:`.statistics`, :mod:`.formulas` and :mod:`.releases`.  ``dpaudit
regress --subject liu-global-sensitivity`` audits this module by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from kernels.global_sensitivity import formulas as _gs
from kernels.global_sensitivity import releases as _rel
from kernels.global_sensitivity import statistics as _st

DPAUDIT_NAME = "dpaudit Liu global-sensitivity kernels (Fractions / float64)"
DPAUDIT_SUBJECT = "liu-global-sensitivity"


def mean(xs: Sequence[Any]) -> Any:
    return _st.mean(xs)


def proportion(bits: Sequence[int]) -> Any:
    return _st.proportion(bits)


def histogram(labels: Sequence[int], k: int) -> list[int]:
    return _st.histogram(labels, k)


def proportion_vector(labels: Sequence[int], k: int) -> list[Any]:
    return _st.proportion_vector(labels, k)


def variance(xs: Sequence[Any]) -> Any:
    return _st.variance(xs)


def covariance(pts: Sequence[tuple[Any, Any]]) -> Any:
    return _st.covariance(pts)


def pooled_variance(cells: Sequence[Sequence[Any]]) -> Any:
    return _st.pooled_variance(cells)


def pooled_covariance(cells: Sequence[Sequence[tuple[Any, Any]]]) -> Any:
    return _st.pooled_covariance(cells)


def exact_gs(stat: str, relation: str, **kw: Any) -> Fraction:
    return _gs.exact_gs(stat, relation, **kw)


def laplace_scale(gs: Any, epsilon: float) -> float:
    return _rel.laplace_scale(gs, epsilon)


def laplace_release(value: Any, gs: Any, epsilon: float, rng: np.random.Generator,
                    size: int = 1) -> np.ndarray:
    return _rel.laplace_release(value, gs, epsilon, rng, size)


def truncated_laplace(value: float, scale: float, lo: float, hi: float,
                      rng: np.random.Generator, size: int = 1) -> np.ndarray:
    return _rel.truncated_laplace(value, scale, lo, hi, rng, size)


def clip(y: Any, lo: float, hi: float) -> np.ndarray:
    return _rel.clip(y, lo, hi)


def rescale_proportions(y: Any) -> np.ndarray:
    return _rel.rescale_proportions(y)
