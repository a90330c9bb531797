"""Dick et al. certify chain (proofs/subset_optimal/certify.py; issue 42): the every-neighbour
link computes its bound (no verdict by flag), the mean step is a link of its own, and
CERTIFIED names every step with the links covering it."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np

from audit.findings import Verdict
from proofs.subset_optimal import certify as c
from proofs.subset_optimal.reference import exact_pieces


def _k_values(d: list[F], r: F, alpha: F, taus: list[F]) -> list[F]:
    out = []
    for t in taus:
        p = exact_pieces(d, -4, 4, alpha, (t - F(1, 10**6), t + F(1, 10**6)))
        i = next(j for j, (lo, hi) in enumerate(zip(p.lo, p.hi, strict=True)) if lo <= t < hi)
        out.append(p.losses(r)[i])
    return out


def test_score_sensitivity_against_brute_force() -> None:
    """Brute force: K_D(tau) - K_D'(tau) over every tau on a fine grid, every add neighbour
    with the added record on a grid finer than the window and every remove neighbour, the
    rank moved as Algorithm 3 line 1 moves it.  The computed sensitivity (1) bounds every
    change and is attained."""
    alpha = F(1, 2)
    taus = [F(k, 8) for k in range(-30, 31)]
    adds = [F(k, 4) for k in range(-16, 17)]
    for key in ("t_l", "t_u"):
        sens, _ = c.score_sensitivity(key)
        assert sens == 1
        seen = 0
        for d in ([F(0), F(1), F(1), F(2)], [F(-1), F(0), F(3)]):
            r = F(3, 2) if key == "t_l" else F(len(d)) - F(3, 2)
            base = _k_values(d, r, alpha, taus)
            neighbours = [sorted([*d, v]) for v in adds] + \
                [d[:i] + d[i + 1:] for i in range(len(d))]
            for d2 in neighbours:
                r2 = r + c.rank_shift(key, len(d2) - len(d))
                for k1, k2 in zip(base, _k_values(d2, r2, alpha, taus), strict=True):
                    assert abs(k1 - k2) <= sens
                    seen = max(seen, abs(k1 - k2))
        assert seen == sens  # attained: the bound is not loose in this scope


def test_mean_step_loss_hand_worked() -> None:
    eps, R = F(1), F(100)
    # clipped: eps/2 + (u - l)/2 * eps / (u - l) = eps for every window
    for w in itertools.product((F(-100), F(-3), F(0)), (F(1), F(50), F(100))):
        assert c.mean_step_loss(eps, True, R, w) == 1
    # printed (no clipping), window [0, 50]: 1/2 + (100 + 25)/50 = 3
    assert c.mean_step_loss(eps, False, R, (F(0), F(50))) == 3


def test_chain_certifies_only_with_public_size_and_names_every_step() -> None:
    x = np.linspace(-50.0, 50.0, 30)
    got = {}
    for npub in (None, 30):
        res = c.certify_alg3(c.SubsetCertifyConfig(x, {"sample": "t"}, 100.0, 1.0, 1.0, npub))
        got[npub] = res
        by = {f.id: f for f in res.findings}
        assert by["subset.step-mean"].verdict is Verdict.VERIFIED
        assert by["subset.step-mean"].reading.startswith("clipping reading")
        assert by["subset.input"].evidence["twin"]["outcome"] == "refuted"
        for step, links in c.STEP_COVERAGE:
            assert f"{step} <- {links}" in res.certification["scope"]
    assert got[None].certification["verdict"] == "INCONCLUSIVE"
    assert got[30].certification["verdict"] == "CERTIFIED"
    ev = {f.id: f for f in got[30].findings}["subset.every-neighbour"]
    assert ev.verdict is Verdict.VERIFIED and ev.method.value == "exhaustive"
    assert ev.evidence["twin"]["outcome"] == "refuted"
    assert all(v["loss_bound"] == 1 for v in ev.evidence["per_step"].values())
