"""Vectorised adapters (audit/extra/batched.py) and the diffprivlib model adapter
(audit/extra/diffprivlib_models.py).

Truths, independent of the code under test:

* OpenDP's float Laplace at scale b has the Laplace(t(D), b) law (mean t(D), standard
  deviation sqrt(2) b): a one-sample Kolmogorov-Smirnov test of 20,000 batched outputs
  against scipy's Laplace(t(D), b) must not reject at level 1e-6 (false-alarm rate 1e-6;
  OpenDP's CSPRNG is not seedable), and the same sample against Laplace(t(D), 2b) — a
  deliberately wrong scale — must reject (miss rate: the KS distance between the two laws
  is 0.19, at n = 20,000 the test's power is 1 - 1e-300);
* diffprivlib's per-call tool and the batched form draw from the same law: a two-sample
  KS test of 3,000 seeded outputs each does not reject at 1e-6 (seeded: deterministic);
* a diffprivlib model fitted directly with ``RandomState(seed)`` gives the same parameters
  as the model adapter with that seed (bit for bit), and the adapter's facts are the
  library's (epsilon, replace-one, clips, bounds).

Needs the ``opendp`` and ``diffprivlib`` extras, else skipped with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

dp = pytest.importorskip("opendp.prelude", reason="opendp not installed: pip install "
                         "'dpaudit[opendp]'")
tools = pytest.importorskip("diffprivlib.tools", reason="diffprivlib not installed: pip "
                            "install 'dpaudit[diffprivlib]'")

from audit.extra.batched import diffprivlib_batched, opendp_batched  # noqa: E402
from audit.extra.diffprivlib_models import model_mechanism  # noqa: E402
from kernels.errors import InputError  # noqa: E402

dp.enable_features("contrib")


def _sized_sum(n: int):
    dom = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=n)
    return dp.t.make_sum(dom, dp.symmetric_distance())


def test_opendp_batched_has_the_per_call_facts_and_the_laplace_law():
    t = _sized_sum(64)
    m = opendp_batched(t, 2.0)
    assert (m.epsilon, m.relation, m.size, m.lower, m.upper) == (
        m.per_call.epsilon, "replace-one", 64, 0.0, 1.0)
    assert m.epsilon == float((t >> dp.m.then_laplace(2.0)).map(2))
    x = np.linspace(0.0, 1.0, 64)
    centre = float(t(x.tolist()))
    y = m(x, 20_000)
    assert y.shape == (20_000,)
    assert stats.kstest(y, stats.laplace(loc=centre, scale=2.0).cdf).pvalue > 1e-6
    assert stats.kstest(y, stats.laplace(loc=centre, scale=4.0).cdf).pvalue < 1e-6


def test_opendp_batched_rejects_a_vector_output():
    t = dp.t.make_clamp(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                        dp.symmetric_distance(), (0.0, 1.0))
    with pytest.raises(InputError, match="one float"):
        opendp_batched(t, 1.0)


def test_diffprivlib_batched_matches_the_per_call_law():
    m = diffprivlib_batched(tools.sum, epsilon=1.0, bounds=(0.0, 1.0))
    assert (m.epsilon, m.relation, m.lower, m.upper) == (1.0, "replace-one", 0.0, 1.0)
    x = np.random.default_rng(1).uniform(0.0, 1.0, 50)
    batched = m(x, 3000, 7)
    per_call = np.array([m.per_call(x, s) for s in range(3000)])
    assert stats.ks_2samp(batched, per_call).pvalue > 1e-6
    assert np.array_equal(m(x, 50, 7), m(x, 50, 7))  # seeded


def test_model_adapter_facts_and_seeded_parameters():
    from diffprivlib.models import LinearRegression

    kw = {"bounds_X": (0.0, 1.0), "bounds_y": (0.0, 1.0), "fit_intercept": False}
    m = model_mechanism(LinearRegression, epsilon=1.0, n_features=1, **kw)
    assert (m.epsilon, m.relation, m.clips, m.lower, m.upper) == (
        1.0, "replace-one", True, 0.0, 1.0)
    rows = np.random.default_rng(2).uniform(0.0, 1.0, (20, 2))
    direct = LinearRegression(epsilon=1.0, random_state=np.random.RandomState(5), **kw).fit(
        rows[:, :1], rows[:, 1])
    assert np.array_equal(m(rows, 5), np.r_[direct.coef_.ravel(), direct.intercept_])
    with pytest.raises(InputError, match="n_features"):
        model_mechanism(LinearRegression, epsilon=1.0, n_features=0, **kw)
