"""Tests of the tight smooth sensitivity (kernels/gini/tight.py, issue 18).

Truths used: the exact brute-force oracles (proofs/gini/oracles.py: LS of every neighbour,
k-ball enumeration), the exact reference (proofs/gini/reference/tight.py, Fractions; its
``search="all"`` mode evaluates every candidate), never the kernel's own output.
"""

from __future__ import annotations

from fractions import Fraction as Q

import numpy as np
import pytest

from audit.cli import main as cli_main
from audit.findings import from_jsonable
from kernels.errors import InputError
from kernels.gini import tight
from kernels.gini.sensitivity import BOUNDS, smooth_sensitivity
from proofs.gini import oracles
from proofs.gini import reference as ref
from proofs.gini import tight_bound as tb


def _rational_cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(2, 8))
        L = float(rng.choice([0, 0, 1, 3]))
        U = L + float(rng.choice([1, 2, 10]))
        x = L + np.round(rng.uniform(0, U - L, n) * 8) / 8
        if x.sum() > 0:
            out.append((x, L, U))
    return out


def test_bound_names_kept_and_tight_added():
    assert BOUNDS[:2] == ("thm43", "thm44") and "tight" in BOUNDS


@pytest.mark.parametrize("seed", [0, 1])
def test_a0_is_exact_local_sensitivity(seed):
    """A_tight^(0) = LS(X) exactly (module docstring) vs the brute-force oracle."""
    for x, L, U in _rational_cases(seed, 60):
        xs = [Q(v) for v in x]
        ls = oracles.local_sensitivity(xs, Q(L), Q(U))
        a0 = ref.bound_A_tight(xs, L, U, 0)
        assert a0 == ls or (a0 == 1 and sum(xs) - max(xs) + Q(L) <= 0), (x, L, U)
        f = tight.local_sensitivity_fast(x, L, U)
        assert float(ls) <= f <= float(ls) * (1 + 1e-9) + 1e-300


def test_reference_binary_search_equals_every_candidate():
    for x, L, U in _rational_cases(2, 40):
        for k in range(len(x) + 1):
            assert ref.bound_A_tight(x, L, U, k) == ref.bound_A_tight(x, L, U, k, search="all")


@pytest.mark.parametrize("family", ["lognormal", "cps-like", "ties"])
def test_kernel_vs_exact_reference(family):
    rng = np.random.default_rng(7)
    n = 400
    if family == "lognormal":
        x, L, U = np.minimum(rng.lognormal(10, 1, n), 5e5), 0.0, 5e5
    elif family == "cps-like":
        x, L, U = np.round(rng.gamma(2.0, 9.0, n), 2).clip(0, 100), 0.0, 100.0
    else:
        x, L, U = rng.integers(1, 5, n).astype(float), 1.0, 4.0
    ks = [0, 1, 2, 5, 37, n - 1, n]
    for k in ks:
        exact = ref.bound_A_tight(x, L, U, k)
        got = tight.bound_A_tight(x, k, L, U)
        assert got >= float(exact), (family, k)
        assert got <= float(exact) * (1 + 1e-9), (family, k)
    sref = ref.smooth_sensitivity_tight(x, L, U, 0.1)
    s = smooth_sensitivity(x, L, U, 0.1, bound="tight").value
    assert float(sref.value) <= s <= float(sref.value) * (1 + 1e-9)


def test_tight_is_never_above_eq23_and_well_below_on_skewed_data():
    rng = np.random.default_rng(3)
    x = np.minimum(rng.lognormal(10, 1, 1000), 5e5)
    for beta in (0.08, 0.17, 0.33):
        s23 = smooth_sensitivity(x, 0, 5e5, beta).value
        st = smooth_sensitivity(x, 0, 5e5, beta, bound="tight").value
        assert st <= 0.4 * s23


def test_exhaustive_ball_check_verifies_the_bound():
    for L, U, ds, rs, ns in tb.SCOPES:
        r = tb.exhaustive_ball_check(tb.tight_bound, ns, L, U, ds, rs, (0, 1, 2, 3),
                                     stop_at_first=False)
        assert r["violation"] is None
        assert r["nontrivial"] > 250  # many cases where the bound is below 1 (not vacuous)


@pytest.mark.parametrize("name", list(tb.MUTANTS))
def test_exhaustive_ball_check_refutes_too_tight_variants(name):
    L, U, ds, rs, ns = tb.POWER_SCOPE
    r = tb.exhaustive_ball_check(tb.MUTANTS[name], ns, L, U, ds, rs, (0, 1, 2, 3))
    v = r["violation"]
    assert v is not None
    # the witness really is in the ball and really beats the mutant (independent recheck)
    from collections import Counter

    dist = len(v["x"]) - sum((Counter(v["x"]) & Counter(v["witness"])).values())
    assert dist <= v["k"]
    assert oracles.local_sensitivity(v["witness"], L, U) > tb.MUTANTS[name](v["x"], L, U, v["k"])


def test_ball_replayer_fails_only_for_a_too_tight_bound(monkeypatch):
    L, U, ds, rs, ns = tb.POWER_SCOPE
    mut = tb.MUTANTS["scaled-0.99-for-k>=1"]
    v = tb.exhaustive_ball_check(mut, ns, L, U, ds, rs, (1, 2, 3))["violation"]
    inp = from_jsonable(tb._ball_cx(v, L, U)["inputs"])
    assert tb.replay_ball(inp)[0] is False  # the real bound holds there
    orig = tb.tight_bound
    monkeypatch.setattr(tb, "tight_bound",
                        lambda x, L_, U_, k: (Q(99, 100) if k else 1) * orig(x, L_, U_, k))
    assert tb.replay_ball(inp)[0] is True


def test_chain_exhaustive_and_twin_refuted():
    r = tb.chain_check((2, 3, 4), Q(1), Q(2), Q(1, 4))
    assert r["violation"] is None and r["ls_mismatch"] is None and r["pairs"] > 1000
    twin = tb.chain_check((2, 3), Q(0), Q(1), Q(1, 4),
                          bound=lambda x, L, U, k: tb.tight_bound(x, L, U, 0))
    assert twin["violation"] is not None


def test_smoothness_search_small_and_power():
    r = tb.smoothness_search(4, (0.05, 0.5), seed=11)
    assert r["below_ls"] is None
    for _, x, y, L, U, b in r["worst"][:2]:
        assert tb._exact_ratio(x, y, L, U, b) <= 1
    twin = tb.smoothness_search(3, (0.05,), seed=12,
                                s_fn=lambda x, L, U, b: float(oracles.local_sensitivity(x, L, U)))
    assert twin["worst"][0][0] > 1


def test_bad_input():
    with pytest.raises(InputError):
        tight.bound_A_tight([1.0, 2.0], 3, 0, 2)
    with pytest.raises(InputError):
        tight.bound_A_tight([1.0, 3.0], 0, 0, 2)
    with pytest.raises(ValueError):
        smooth_sensitivity([1.0, 2.0], 0, 2, 0.1, bound="tighter")  # type: ignore[arg-type]


def test_cli_release_bound_tight(capsys):
    rc = cli_main(["release", "--sample", "cpssw8_earnings", "--upper", "100",
                   "--bound", "tight", "--seed", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and "tight" in out
