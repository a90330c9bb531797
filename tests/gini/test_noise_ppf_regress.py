"""``dpaudit regress`` checks the quantile function of density (10) against the 50-digit
reference over the whole range (issue 39: the numerics of a noise law, caught by a command).

Truth: ``proofs.gini.reference.powerlaw_ppf`` (mpmath Newton at 50 digits, two precisions).
The shipped kernel passes (worst 3.1 units of 2^-53 times the condition number on the grid;
allowed 8); twins that are off by 1e-12 relative in the centre, or return the largest double
instead of infinity beyond it, are refuted.
"""

from __future__ import annotations

import types

import numpy as np

from audit.checks.kernel import Context, run_check
from audit.findings import Verdict
from kernels.gini import api
from kernels.gini import noise as kn
from proofs.gini.regress.checks import check_by_id

CHECK = check_by_id("noise.ppf.vs-reference")
CTX = Context(seed=0, mode="quick", max_n=3000)


def _module(fn) -> types.ModuleType:  # noqa: ANN001
    mod = types.ModuleType("ppf_twin")
    mod.noise_ppf = fn
    return mod


def test_the_shipped_quantile_passes() -> None:
    [f] = run_check(CHECK, api, "kernels:kernels.gini.api", CTX)
    assert f.verdict is Verdict.NOT_REFUTED, f.evidence


def test_a_quantile_off_by_1e12_relative_is_refuted() -> None:
    got = run_check(CHECK, _module(lambda q, g: np.asarray(kn.powerlaw_ppf(q, g)) * (1 + 1e-12)),
                    "kernels:twin", CTX)
    assert got[0].verdict is Verdict.REFUTED


def test_a_finite_quantile_beyond_the_largest_double_is_refuted() -> None:
    def capped(q, g):  # noqa: ANN001, ANN202
        return np.clip(np.asarray(kn.powerlaw_ppf(q, g)), -np.finfo(float).max,
                       np.finfo(float).max)

    got = run_check(CHECK, _module(capped), "kernels:twin", CTX)
    assert got[0].verdict is Verdict.REFUTED
