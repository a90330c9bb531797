"""Issue 16 (certify at census scale): every speedup checked against the full computation it
replaces, and the Dask path against the single-process run.

* kernels/gini/neighbour.py: a replace-one neighbour's sorted values read through the shift
  identities equal the materialised neighbour exactly, and its (g, S) equal the kernel's on
  the materialised neighbour within 1e-9 relative (both bounds with a fast path), over
  random data with ties and replacements by L, U, data values and interior values.
* worst_neighbour(screen=...): the certified figures are the same as without the screen
  (they are recomputed on the materialised neighbour), and the screen only steers.
* the black-box sampler: draws through the shipped release equal the release's own draws
  on the same generator state (bit for bit), and a release that does not decompose is
  detected and then sampled through itself.
* posterior coverage: the vectorised cdf test gives the same hit count as the scalar
  interval loop it replaces.
* LocalCluster with 2 workers: certify's verdicts, evidence and figures equal the
  single-process run (same data, same seed).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.neighbours import replace
from kernels.gini.index import gini_sorted
from kernels.gini.neighbour import neighbour_tables
from kernels.gini.noise import powerlaw
from kernels.gini.release import noise_constants, posterior_exact, release_gini
from kernels.gini.sensitivity import smooth_sensitivity
from proofs.gini.certify.chain import CertifyConfig, _coverage_hits, certify
from proofs.gini.certify.links import _Neighbour, _ReleaseSampler
from proofs.gini.mechanisms import ShippedRelease


def _data(rng: np.random.Generator, n: int, ties: bool) -> tuple[np.ndarray, float, float]:
    x = np.sort(np.round(rng.lognormal(3.0, 1.0, n), 2))
    if ties:
        x[: n // 2] = x[0]
        x = np.sort(x)
    return x, 0.0, float(np.ceil(x.max() * 2))


@pytest.mark.parametrize("n", [2, 3, 7, 60, 3000])
def test_neighbour_tables_equal_full_recomputation(n: int) -> None:
    rng = np.random.default_rng(n)
    beta = noise_constants(1.0, 2.0).beta
    checked = 0
    for trial in range(6):
        x, L, U = _data(rng, n, ties=trial % 2 == 0)
        t = neighbour_tables(x, L, U)
        for _ in range(8):
            r = int(rng.integers(n))
            v = float(rng.choice([L, U, rng.uniform(L, U), x[rng.integers(n)]]))
            y = replace(x, r, v)
            assert np.array_equal(t.sorted_neighbour(r, v), y)
            if y[-1] == 0:
                continue
            for bound in ("thm43", "thm44"):
                g, s = t.gini_smooth(r, v, beta, bound)
                s_full = smooth_sensitivity(y, L, U, beta, bound=bound).value
                assert abs(g - gini_sorted(y)) <= 1e-9 * gini_sorted(y) + 1e-15
                assert abs(s - s_full) <= 1e-9 * s_full
                checked += 1
    assert checked > 50


def test_neighbour_tables_detect_a_wrong_neighbour() -> None:
    """Power: the same comparison separates a different neighbour (rank off by one)."""
    rng = np.random.default_rng(7)
    x, L, U = _data(rng, 400, ties=False)
    t = neighbour_tables(x, L, U)
    beta = noise_constants(1.0, 2.0).beta
    _, s = t.gini_smooth(398, U, beta)
    g_wrong = gini_sorted(replace(x, 399, U))
    g, _ = t.gini_smooth(398, U, beta)
    assert abs(g - g_wrong) > 1e-9 * g_wrong


def test_screened_search_certifies_the_same_figures() -> None:
    from proofs.gini.certify.links import _fast_screen

    rng = np.random.default_rng(11)
    x, L, U = _data(rng, 2000, ties=False)
    cfg = CertifyConfig(x, {"sample": "t"}, L, U, 1.0, quick=True)

    class Ctx:
        pass

    ctx = Ctx()
    ctx.cfg, ctx.xs = cfg, x
    mech = ShippedRelease(release_gini, L, U, 1.0)
    kw = dict(max_evals=40, time_budget_s=None, refine=2, certify_top=2, reference=False)
    slow = worst_neighbour(mech, x, **kw)
    fast = worst_neighbour(mech, x, screen=_fast_screen(ctx), **kw)
    assert fast.n_pairs == slow.n_pairs
    assert fast.worst.change == slow.worst.change
    assert fast.epsilon_up == slow.epsilon_up
    for t in fast.top:  # certified on the release's own figures of the built neighbour
        second = replace(x, int(t.change["rank"]), float(t.change["new"]))
        assert t.location_scale == mech.location_scale(second)


def test_sampler_draws_are_the_release_draws() -> None:
    rng = np.random.default_rng(5)
    x, L, U = _data(rng, 500, ties=False)
    shipped = ShippedRelease(release_gini, L, U, 1.0)
    sampler = _ReleaseSampler(shipped)
    nb = _Neighbour(x, 499, L)
    for d, data in ((x, x), (nb, replace(x, 499, L))):
        for size in (1000, 5000):  # the first call verifies, the second reuses
            a = np.random.default_rng(size)
            b = np.random.default_rng(size)
            got = sampler.sample(d, size, a)
            want = np.asarray(release_gini(data, L, U, 1.0, b, size=size).value)
            assert np.array_equal(got, want)
            assert a.bit_generator.state == b.bit_generator.state
    assert sampler.verified == [True, True]


def test_sampler_detects_a_release_that_does_not_decompose() -> None:
    calls = {"n": 0}

    def odd_release(x, lower, upper, epsilon, rng, size=None, **kw):
        calls["n"] += 1
        r = release_gini(x, lower, upper, epsilon, rng, size=size, **kw)
        from dataclasses import replace as dc_replace

        return dc_replace(r, value=np.asarray(r.value) + 1e-3)  # not g + scale * Z

    rng = np.random.default_rng(6)
    x, L, U = _data(rng, 300, ties=False)
    sampler = _ReleaseSampler(ShippedRelease(odd_release, L, U, 1.0))
    y1 = sampler.sample(x, 100, np.random.default_rng(1))
    y2 = sampler.sample(x, 100, np.random.default_rng(2))
    assert sampler.verified == [False]
    assert calls["n"] == 2  # every draw went through the release itself
    ref = np.asarray(release_gini(x, L, U, 1.0, np.random.default_rng(2), size=100).value)
    assert np.array_equal(y2, ref + 1e-3) and y1.shape == (100,)


def test_vectorised_coverage_equals_scalar_loop() -> None:
    rng = np.random.default_rng(9)
    noise = powerlaw(2.0)
    for scale in (0.01, 0.3):
        gs = rng.uniform(0, 1, 60)
        gts = gs + scale * noise.sample(rng, 60)
        hits, spot, disagree = _coverage_hits(gs, gts, scale, noise, 0.9)
        loop = 0
        for g, gt in zip(gs, gts, strict=True):
            lo, hi = posterior_exact(float(gt), scale, noise, level=0.9).interval
            loop += lo <= g <= hi
        assert hits == loop and disagree == 0 and spot == 8


def _as_json(r) -> tuple[str, str, str]:
    return (json.dumps([(f.id, f.verdict.value, f.evidence, f.confidential)
                        for f in r.findings],
                       sort_keys=True, default=str),
            json.dumps(r.figures, sort_keys=True, default=str),
            json.dumps(r.certification, sort_keys=True, default=str))


# ~12 s: a second LocalCluster; tests/engine/test_distributed.py starts one by default
@pytest.mark.slow
def test_local_cluster_equals_single_process() -> None:
    pytest.importorskip("distributed")
    x = np.round(np.random.default_rng(3).lognormal(10.0, 1.0, 3000), 2)
    U = float(np.ceil(x.max() * 2.5))
    one = certify(CertifyConfig(x, {"sample": "t"}, 0.0, U, 1.0, quick=True, seed=4))
    two = certify(CertifyConfig(x, {"sample": "t"}, 0.0, U, 1.0, quick=True, seed=4,
                                workers=2))
    assert one.certification["verdict"] == "CERTIFIED"
    assert _as_json(one) == _as_json(two)
