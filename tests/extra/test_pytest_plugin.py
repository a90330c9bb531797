"""The pytest plugin (audit/pytest_plugin.py) and the Hypothesis strategies
(audit/strategies.py), used the way a DP library's own test suite would.

Truths: a count plus two-sided geometric noise of parameter exp(-epsilon) keeps epsilon
under add/remove (hand-worked; integer outputs, so no float64 grid leak either); its twin
with the noise of epsilon 2 is flagged; OpenDP's own
``sum >> laplace`` keeps the epsilon its ``map`` states (the twin claims a quarter of it);
diffprivlib 0.6.6's ``tools.sum`` adds float noise to a float sum whose rounding exceeds the
sensitivity it gives its mechanism (the exact check's witness, a published bug class:
Casacuberta et al., CCS 2022).  Error rates: every audit runs at confidence 0.999, so a
correct mechanism fails one of these tests with probability <= 0.1 % per call (seeded:
the numpy cases are deterministic; OpenDP draws from its own CSPRNG); the broken twins are
far beyond the CI budget's power (epsilon 2 and 4 against claims 1 and 0.25).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from audit import strategies as dps
from audit.privacy.neighbour_search import are_neighbours
from tests.common.neighbour_oracle import positional_neighbours

#: small budgets (work units): these are the plugin's own tests, not a library's CI
FAST = {"n_select": 4000, "n_certify": 8000, "first_batch": 2000, "max_pairs": 4}


def geometric_count(data, size, rng):
    """Correct: the count of records >= 0.5 plus two-sided geometric noise with
    P(k) proportional to exp(-|k|): 1-DP under add/remove, integer outputs (no float
    grid to leak)."""
    p = 1.0 - np.exp(-1.0)
    k = float(np.count_nonzero(np.asarray(data) >= 0.5))
    return k + rng.geometric(p, size) - rng.geometric(p, size)


def geometric_count_eps2(data, size, rng):
    """Broken twin: the noise of epsilon 2, claimed 1."""
    p = 1.0 - np.exp(-2.0)
    k = float(np.count_nonzero(np.asarray(data) >= 0.5))
    return k + rng.geometric(p, size) - rng.geometric(p, size)


def test_correct_mechanism_passes_and_returns_the_audit(dp_audit):
    audit = dp_audit(geometric_count, claim=1.0, relation="add-remove", domain=(0.0, 1.0),
                     budget=FAST)
    assert audit.outcome == "not-flagged"
    assert audit.parameters["confidence"] == 0.999
    assert audit.parameters["relation"] == "add-remove"


def test_broken_mechanism_fails_with_replay_command_and_false_alarm_rate(dp_audit):
    with pytest.raises(pytest.fail.Exception) as info:
        dp_audit(geometric_count_eps2, claim=1.0, relation="add-remove", domain=(0.0, 1.0),
                 budget=FAST)
    msg = str(info.value)
    assert msg.startswith("dp_audit: FLAGGED: ") and "user.blackbox: epsilon_lower" in msg
    assert "dpaudit replay " in msg and "user.blackbox.json" in msg
    assert f"rerun: dpaudit test {__name__}:geometric_count_eps2 --epsilon 1.0 " in msg
    assert "--relation add-remove --seed 0" in msg
    assert "probability <= 0.001" in msg


@pytest.mark.dp_audit(claim=1.0, relation="add-remove", domain=(0.0, 1.0), budget=FAST)
def test_marker_gives_the_fixture_its_defaults(dp_audit):
    # without the marker's claim and domain this call would be bad input (no epsilon, no
    # bounds): the run going through shows the defaults were applied
    assert dp_audit(geometric_count).outcome == "not-flagged"
    with pytest.raises(pytest.fail.Exception, match="FLAGGED"):
        dp_audit(geometric_count_eps2)


def test_opendp_measurement_correct_and_understated_claim(dp_audit):
    dp = pytest.importorskip("opendp.prelude", reason="opendp not installed: pip install "
                             "'dpaudit[opendp]'")
    from audit.extra.opendp import measurement_mechanism

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
    meas = dp.t.make_sum(*space) >> dp.m.then_laplace(1.0)
    m = measurement_mechanism(meas)
    # claim, relation and domain all come from OpenDP itself
    assert (m.relation, m.lower, m.upper) == ("add-remove", 0.0, 1.0)
    small = {"n_select": 1000, "n_certify": 2000, "first_batch": 1000, "max_pairs": 2,
             "float_bits": False}
    assert dp_audit(m, budget=small).outcome == "not-flagged"
    with pytest.raises(pytest.fail.Exception, match="user.blackbox: epsilon_lower"):
        dp_audit(m, claim=m.epsilon / 4, budget=small)


def test_diffprivlib_tool_flagged_by_the_exact_check(dp_audit):
    tools = pytest.importorskip("diffprivlib.tools", reason="diffprivlib not installed: "
                                "pip install 'dpaudit[diffprivlib]'")
    from audit.extra.diffprivlib import tool_mechanism

    m = tool_mechanism(tools.sum, epsilon=1.0, bounds=(0.0, 1.0))
    tiny = {"n_select": 200, "n_certify": 400, "first_batch": 200, "max_pairs": 2,
            "float_bits": False, "n": 64}
    with pytest.raises(pytest.fail.Exception) as info:
        dp_audit(m, budget=tiny)
    msg = str(info.value)
    assert "user.sensitivity: distance " in msg and "> claimed 1.0" in msg
    assert "user.sensitivity.json" in msg


# ------------------------------------------------------------------ Hypothesis strategies
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-3.0, 2.0**40)])
def test_every_drawn_pair_is_a_neighbour_in_bounds(relation, bounds):
    lo, hi = bounds

    @settings(max_examples=150, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(dps.neighbours(lo, hi, relation=relation, max_size=32))
    def check(pair):
        a, b = pair.first.tolist(), pair.second.tolist()
        assert positional_neighbours(a, b, relation)
        assert are_neighbours(pair.first, pair.second, pair.relation)
        assert all(lo <= x <= hi for x in a + b)
        assert max(len(a), len(b)) <= 32 + (relation == "add-remove")

    check()


def test_strategy_finds_a_naive_float_sums_sensitivity_bug():
    """A left-to-right float sum over [0, 1] claims sensitivity 1; the strategy's draws
    find a pair whose exact output distance exceeds it (and none for an exact sum)."""

    def naive(xs):
        s = 0.0
        for x in xs:
            s += float(x)
        return s

    cfg = settings(max_examples=1000, database=None, derandomize=True,
                   phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    p = find(dps.neighbours(0.0, 1.0, max_size=64),
             lambda p: abs(Fraction(naive(p.first)) - Fraction(naive(p.second))) > 1,
             settings=cfg)
    assert abs(Fraction(naive(p.first)) - Fraction(naive(p.second))) > 1
    with pytest.raises(Exception, match="No examples found"):
        find(dps.neighbours(0.0, 1.0, max_size=16),
             lambda p: abs(sum(map(Fraction, p.first)) - sum(map(Fraction, p.second))) > 1,
             settings=settings(max_examples=200, database=None, derandomize=True,
                               suppress_health_check=list(HealthCheck)))


def test_strategy_rejects_bad_arguments():
    from kernels.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="relation"):
        dps.neighbours(0.0, 1.0, relation="swap")
    with pytest.raises(InvalidParameterError, match="lower"):
        dps.neighbours(1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="min_size"):
        dps.datasets(0.0, 1.0, min_size=5, max_size=2)
