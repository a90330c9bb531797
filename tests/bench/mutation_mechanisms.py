"""Known-answer mechanisms for the engine mutants' ``dpaudit test`` runs
(``tests/bench/mutation_kill.py``, run ``test:neighbours``): vectorised callables
``f(data, size, rng)`` on records in [0, 1].

* :func:`sum_twin`: sum of the records + Lap(1/1.5): epsilon 1.5 under both relations (the
  sum has sensitivity 1), run with the claim 1: a violation, but only on a pair whose sums
  differ by more than 2/3 (replace a small record by the upper bound 1; add a 1).
* :func:`spike_twin`: a leak in one direction only (see its docstring).
* :func:`gauss_twin` / :func:`gauss_half_twin`: sum + N(0, 1) (mu = 1 GDP, rho = 0.5 zCDP
  on a pair whose sums differ by 1) and its sigma-halved twin (mu = 2, rho = 2): the claim
  tester's runs (``test:claims``).
* :func:`max_twin`: largest record + Lap(1/1.5): with data (0, 0.9), lower 0, upper 1, the
  only pair that moves the output by more than 2/3 is *removing* 0.9 (adding 1 moves it
  by 0.1).
"""

from __future__ import annotations

import numpy as np


def sum_twin(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    return float(np.sum(data)) + rng.laplace(0.0, 1.0 / 1.5, size)


def max_twin(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    d = np.asarray(data, dtype=np.float64)
    top = float(d.max()) if d.size else 0.0
    return top + rng.laplace(0.0, 1.0 / 1.5, size)


def spike_twin(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Sum of the records + Lap(2) (epsilon 0.5), except that a data set whose sum exceeds
    0.6 outputs 1000 with probability 0.1: on (0, 0.2, 0.3) and its neighbour with a 1, the
    event {y == 1000} is impossible for the first and has probability 0.1 for the second
    (unbounded loss, favoured by the *second* data set only); the other direction's loss is
    at most 0.5 + log(1/0.9) = 0.61 < 1."""
    y = float(np.sum(data)) + rng.laplace(0.0, 2.0, size)
    if float(np.sum(data)) > 0.6:
        y[rng.random(size) < 0.1] = 1000.0
    return y


def gauss_twin(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    return float(np.sum(data)) + rng.standard_normal(size)


def gauss_half_twin(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    return float(np.sum(data)) + 0.5 * rng.standard_normal(size)
