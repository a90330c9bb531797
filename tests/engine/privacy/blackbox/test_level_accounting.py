"""The black-box testers' level accounting, checked exactly: the one-sided bounds a run
certifies spend at most the nominal alpha = 1 - confidence in total (the union bound behind
both schedules' guarantee), and nearly all of it; each sequential look certifies, on the
fresh batch of its own round, the event selected on the earlier rounds.

Truths: the schedule rule as documented (batches ``first * growth^r`` while <= ``n_max``, at
least two rounds; every round after the first is a look) recomputed here; the union bound
summed in Fractions (no float rounding: a level rounded up by half an ulp would spend more
than alpha); the generator stream replayed from the run's recorded start state (one pair:
round r draws b_r outputs of D, then b_r of D'), and the selection replayed on the pool of
the earlier rounds (each look must certify the event chosen before its batch was drawn).
Deterministic: seeded runs, exact comparisons.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from audit.privacy.blackbox import BlackBoxTester, Event
from audit.privacy.blackbox.select import select_pair
from audit.privacy.blackbox.sequential import schedule
from audit.privacy.blackbox.statistics import bonferroni_level
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import REPLACE_ONE, NeighbourPair

#: the smallest share of alpha the split may leave unspent (it rounds down, by an ulp)
WASTE = Fraction(1, 2**40)
CONFIDENCES = (0.9, 0.95, 0.8, 0.99, 0.999, 0.75, 0.6)


def _pair(v: float) -> NeighbourPair:
    return NeighbourPair(np.array([0.0, 0.0]), np.array([0.0, v]), REPLACE_ONE,
                         {"op": "replace", "rank": 1, "new": v})


def _batches(first: int, growth: int, n_max: int) -> list[int]:
    out = [first]
    while out[-1] * growth <= n_max:
        out.append(out[-1] * growth)
    return out if len(out) >= 2 else [first, max(first, n_max)]


@pytest.mark.parametrize("conf", CONFIDENCES)
def test_sequential_schedule_spends_exactly_alpha_over_its_looks(conf: float) -> None:
    alpha = 1 - Fraction(conf)  # 1 - confidence is exact in binary64 for confidence >= 1/2
    for first, growth, n_max in itertools.product((10, 250, 1000, 3), (2, 3, 5),
                                                  (5, 100, 16_000, 10**6)):
        if first < 1:
            continue
        s = schedule(first, growth, n_max, float(alpha))
        assert list(s.batches) == _batches(first, growth, n_max)
        assert s.looks == len(s.batches) - 1
        spent = Fraction(s.alpha_per_look) * s.looks
        assert spent <= alpha, (first, growth, n_max, conf, s.looks)
        assert spent >= alpha * (1 - WASTE), (first, growth, n_max, conf)
        for by_size in (0.0, 0.25, 0.5, 1.0):  # the looks' shares (dpaudit test: 0.5)
            sb = schedule(first, growth, n_max, float(alpha), by_size=by_size)
            spent = sum((Fraction(sb.alpha_at(r)) for r in range(1, sb.looks + 1)), Fraction(0))
            assert spent <= alpha, (first, growth, n_max, conf, by_size)
            assert spent >= alpha * (1 - WASTE), (first, growth, n_max, conf, by_size)


@pytest.mark.parametrize("conf", CONFIDENCES)
def test_bonferroni_levels_sum_to_at_most_alpha(conf: float) -> None:
    alpha = 1 - Fraction(conf)
    for m in range(1, 257):
        each = Fraction(bonferroni_level(float(alpha), m))
        assert each * m <= alpha, (conf, m)
        assert each * m >= alpha * (1 - WASTE), (conf, m)


def _replay_stream(res, mech: LaplaceMechanism, pair: NeighbourPair, batches: list[int]
                   ) -> list[tuple[dict, np.ndarray, np.ndarray]]:
    """Round by round from the recorded start state: (state before the round, outputs on D,
    outputs on D') - the order of a one-pair run (its chunk size is larger than a batch)."""
    start = res.details["rng_at_start"]
    bg = getattr(np.random, start["bit_generator"])()
    bg.state = start["state"]
    g = np.random.Generator(bg)
    out = []
    for b in batches:
        state = g.bit_generator.state
        ya = np.asarray(mech.sample(pair.first, b, g), dtype=np.float64).reshape(b, -1)
        yb = np.asarray(mech.sample(pair.second, b, g), dtype=np.float64).reshape(b, -1)
        out.append((state, ya, yb))
    return out


@pytest.mark.parametrize("conf,first,growth,n_max,factor,seed", [
    (0.9, 50, 2, 800, 1.0, 0),      # 4 looks at the claim
    (0.95, 40, 3, 1080, 1.0, 1),    # 3 looks
    (0.8, 30, 2, 960, 1.0, 2),      # 5 looks (alpha/5 rounds up in float)
    (0.9, 50, 2, 1600, 0.25, 3),    # a violation (true epsilon 4, claim 1): flagged early
])
def test_sequential_run_spends_at_most_alpha_and_certifies_each_look_on_its_own_round(
        conf: float, first: int, growth: int, n_max: int, factor: float, seed: int) -> None:
    # claim 1; noise scale factor * 1, so the true epsilon on the pair is 1 / factor
    mech = LaplaceMechanism(1.0, noise_scale_factor=factor)
    pair = _pair(1.0)
    t = BlackBoxTester(n_select=400, n_certify=n_max, confidence=conf, sequential=True,
                       seq_first=first, seq_growth=growth)
    res = t.run(mech, [pair], np.random.default_rng(seed))
    batches = _batches(first, growth, n_max)
    d = res.details
    assert d["schedule"] == batches
    alpha = 1 - Fraction(conf)
    per_look = [Fraction(a) for a in d["alpha_per_look"]]  # what each planned look spends
    assert len(per_look) == len(batches) - 1
    # the union bound over every planned look (two one-sided bounds each)
    assert sum(per_look, Fraction(0)) <= alpha
    assert sum(per_look, Fraction(0)) >= alpha * (1 - WASTE)
    stream = _replay_stream(res, mech, pair, batches)
    looks = d["looks"]
    cap = int(d["n_select"])
    assert looks, "a run that certified nothing"
    rounds = [c["round"] for c in looks]
    assert rounds == list(range(1, len(looks) + 1))  # one look per round after round 0
    for c in looks:
        r = c["round"]
        assert 2 * Fraction(c["alpha_per_bound"]) == per_look[r - 1]
        state, ya, yb = stream[r]
        # certified on the fresh batch of its own round: that round's generator state, b_r
        # outputs per data set, and the stored counts recomputed on those outputs
        assert c["replay"]["rng_state"] == state
        assert c["replay"]["n"] == batches[r] == c["counts"]["n"]
        ev = Event.from_dict(c["event_spec"])
        assert int(np.count_nonzero(ev.mask(ya))) == c["counts"]["first"]
        assert int(np.count_nonzero(ev.mask(yb))) == c["counts"]["second"]
        # and the event it certified was selected on the earlier rounds only: selection
        # replayed on the pool of rounds 0..r-1 (the last n_select outputs) picks it
        pa = np.concatenate([stream[j][1] for j in range(r)])[-cap:]
        pb = np.concatenate([stream[j][2] for j in range(r)])[-cap:]
        sel = select_pair(0, pa, pb, t.event_settings(), t.max_events, batches[r],
                          1.0 - t.selection_confidence, float(per_look[r - 1]) / 2.0,
                          0.0, heldout=t.heldout_selection)
        best = max(sel.picks, key=lambda q: q.score)
        assert (best.event.to_dict(), best.direction) == (c["event_spec"],
                                                          c["direction_index"]), r
    if factor < 1.0:
        assert res.violates and d["stopped"] == "flagged"


def test_fixed_run_per_direction_spends_at_most_alpha_over_its_events() -> None:
    """certify='per-direction' on three pairs: up to six certified events, twelve bounds
    (alpha/12 rounds up in float at confidence 0.9)."""
    mech = LaplaceMechanism(1.0)
    pairs = [_pair(v) for v in (1.0, 0.5, 0.25)]
    t = BlackBoxTester(n_select=400, n_certify=1000, confidence=0.9, certify="per-direction")
    res = t.run(mech, pairs, np.random.default_rng(7))
    d = res.details
    m = d["certified_events"]
    assert m == len(d["certified"]) >= 2
    alpha = 1 - Fraction(0.9)
    a_bound = Fraction(d["alpha_per_bound"])
    assert all(Fraction(c["alpha_per_bound"]) == a_bound for c in d["certified"])
    assert a_bound * 2 * m <= alpha
    assert a_bound * 2 * m >= alpha * (1 - WASTE)
