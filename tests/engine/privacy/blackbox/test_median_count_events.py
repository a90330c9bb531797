"""The per-column-median count features (``count-gt-each`` on the columns,
``count-diff-gt-each`` on the consecutive-column increments): exact values by hand, exact
event probabilities against the Laplace tail in closed form, and seeded power on a
composition of Laplace releases and on a prefix sum, each with its broken twin.

Truths.  ``Composition(k, scale)``: k independent releases d + Lap(scale) of one record's
value d; on d = 5 vs 6 the loss of the whole vector is k / scale (each column's log density
ratio is at most 1 / scale, attained together for y > 6 in every column).  ``PrefixSum``:
the running totals of d_i + Lap(scale) over k answers, a post-processing bijection of the
k noisy answers, so on answers all 1 vs all 2 its loss is k / scale as well.  With
scale = k / epsilon both are exactly epsilon-DP (claim 1.0); the twins use scale k / 2
(true epsilon 2.0).  The guarantee bounds a false alarm by 10 % per run; seeds are fixed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from audit.privacy.blackbox import BlackBoxTester, Event
from audit.privacy.blackbox.aggregate_events import median_count_features
from audit.privacy.blackbox.features import Feature, column_differences
from audit.protocols import REPLACE_ONE, NeighbourPair


@dataclass
class Releases:
    """k noisy releases: of one record's value d[0] (``cumulative=False``, the composition)
    or the running totals of d_i + Lap(scale) (``cumulative=True``, the prefix sum)."""

    k: int = 10
    scale: float = 10.0
    cumulative: bool = False
    claimed_epsilon: float = 1.0
    name: str = "laplace-releases"
    relation: str = REPLACE_ONE

    def sample(self, d: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        if not self.cumulative:
            return float(d[0]) + rng.laplace(0.0, self.scale, (size, self.k))
        return np.cumsum(d[None, :] + rng.laplace(0.0, self.scale, (size, d.size)), axis=1)


COMP_PAIR = [NeighbourPair(np.array([5.0]), np.array([6.0]), REPLACE_ONE, {})]
PS_PAIR = [NeighbourPair(np.ones(10), np.full(10, 2.0), REPLACE_ONE, {})]


def _run(mech, pairs, seed):
    t = BlackBoxTester(n_select=40_000, n_certify=200_000, families=("aggregate",))
    return t.run(mech, pairs, np.random.default_rng(seed))


def test_features_by_hand():
    y = np.array([[1.0, 3.0, 2.0], [np.nan, 0.5, 4.0], [2.0, 2.0, 2.0]])
    assert column_differences(y)[0].tolist() == [1.0, 2.0, -1.0]
    assert np.isnan(column_differences(y)[1, :2]).all() and column_differences(y)[1, 2] == 3.5
    cut = (1.5, 1.0, 2.0)
    assert Feature("count-gt-each", (), weights=cut).apply(y).tolist() == [1.0, 1.0, 2.0]
    # increments: [1, 2, -1], [nan, nan, 3.5], [2, 0, 0] against cut (1.5, 1.0, 2.0)
    assert Feature("count-diff-gt-each", (), weights=cut).apply(y).tolist() == [1.0, 1.0, 1.0]
    e = Event("gt", 0, 0.5, family="aggregate",
              feature=Feature("count-diff-gt-each", (), weights=cut))
    assert Event.from_dict(e.to_dict()) == e
    assert "increment" in e.describe(3)


def test_cut_points_are_the_pooled_medians():
    rng = np.random.default_rng(0)
    a = 5.0 + rng.laplace(0.0, 1.0, (20_000, 3))
    b = 6.0 + rng.laplace(0.0, 1.0, (20_000, 3))
    raw, diff = median_count_features(a, b, ())
    assert raw.kind == "count-gt-each" and diff.kind == "count-diff-gt-each"
    # the pooled law is the equal mixture of Lap(5, 1) and Lap(6, 1): median 5.5
    assert np.allclose(raw.weights, 5.5, atol=0.03)
    # increments: 5 or 6 in column 0, a Lap(0,1) - Lap(0,1) difference (median 0) after
    assert abs(diff.weights[0] - 5.5) < 0.03 and np.allclose(diff.weights[1:], 0.0, atol=0.03)


def test_event_probability_matches_the_laplace_tail():
    """{# increments > 1.5 >= 10} on PrefixSum(all 2s) has probability (1 - e^{-1/(2b)}/2)^10
    and on all 1s (e^{-1/(2b)}/2)^10 (closed-form Laplace tails): the simulated frequency of
    the event's mask must agree within 4 standard errors."""
    b = 5.0
    feat = Feature("count-diff-gt-each", (), weights=(1.5,) * 10)
    ev = Event("gt", 0, 9.5, family="aggregate", feature=feat)
    rng = np.random.default_rng(3)
    n = 400_000
    for d, p in ((np.full(10, 2.0), (1 - 0.5 * math.exp(-0.5 / b)) ** 10),
                 (np.ones(10), (0.5 * math.exp(-0.5 / b)) ** 10)):
        freq = ev.mask(Releases(scale=b, cumulative=True).sample(d, n, rng)).mean()
        assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / n), (freq, p)


@pytest.mark.parametrize(("cumulative", "pairs", "seed", "kind"), [
    (False, COMP_PAIR, 11, "count-gt-each"),
    (True, PS_PAIR, 13, "count-diff-gt-each"),
])
def test_correct_not_flagged_broken_flagged(cumulative, pairs, seed, kind):
    ok = _run(Releases(scale=10.0, cumulative=cumulative), pairs, seed)
    assert not ok.violates and ok.epsilon_lower <= 1.0, ok.epsilon_lower
    bad = _run(Releases(scale=5.0, cumulative=cumulative), pairs, seed + 1)
    assert bad.violates and bad.epsilon_lower <= 2.0, bad.epsilon_lower
    assert bad.witness["event_spec"]["feature"]["kind"] == kind
