"""OpenDP adapter (audit/extra/opendp.py): OpenDP's own sums through the exact sensitivity
check, claims read from OpenDP's ``map`` / ``check``.

Truths: OpenDP's own privacy maps (the claim under test); a fake transformation whose
``check`` accepts exactly ``d_out >= c`` for a known float ``c`` (the bisection must return
``c`` bit for bit); the published, fixed float-sum bug of OpenDP <= 0.4 (Casacuberta,
Shoemate, Vadhan & Wagaman, CCS 2022: the bounded float sum claimed the real-number
sensitivity; OpenDP 0.5.0 added the float rounding allowance), reproduced on the pinned
old release (slow test: installs opendp 0.4.0 and 0.5.0 into a temporary folder).  The
check is deterministic: no false-alarm rates apply; a refutation is exact.

Needs the ``opendp`` extra; without it these tests are skipped with the reason printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from audit.extra.opendp import audit_transformation, claim_from, metric_info
from audit.findings import Verdict
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE

dp = pytest.importorskip("opendp.prelude", reason="opendp not installed: pip install "
                         "'dpaudit[opendp]'")
dp.enable_features("contrib")
ROOT = Path(__file__).resolve().parents[2]


def _sum(size=None, bounds=(0.0, 1.0)):
    dom = (dp.vector_domain(dp.atom_domain(bounds=bounds), size=size) if size else
           dp.vector_domain(dp.atom_domain(bounds=bounds)))
    return dp.t.make_sum(dom, dp.symmetric_distance())


def test_metric_read_from_the_transformation():
    i = metric_info(_sum())
    assert (i.relation, i.ordered, i.d_in, i.size) == (ADD_REMOVE_ONE, False, 1, None)
    j = metric_info(_sum(size=64))
    assert (j.relation, j.ordered, j.d_in, j.size) == (REPLACE_ONE, False, 2, 64)


def test_claim_by_bisection_on_check_is_exact():
    c = 1.0000000093132257

    class CheckOnly:
        def check(self, d_in, d_out):
            return d_out >= c * d_in

    assert claim_from(CheckOnly(), 1) == c
    assert claim_from(CheckOnly(), 2) == 2 * c


@pytest.mark.parametrize("size", [None, 64])
def test_current_opendp_sum_not_refuted(size):
    f, r = audit_transformation(_sum(size), n_max=2**12)
    assert f.verdict == Verdict.NOT_REFUTED and r.evaluated > 100
    assert not r.skipped


def test_current_opendp_sum_without_its_rounding_allowance_is_refuted():
    """The broken twin: OpenDP's own sum with the real-number claim U - L = 1."""
    t = _sum()

    class RealNumberClaim:
        input_metric, input_domain = t.input_metric, t.input_domain

        def __call__(self, x):
            return t(x)

        def map(self, d_in):
            return 1.0 * d_in

    f, r = audit_transformation(RealNumberClaim(), n_max=2**12)
    assert f.verdict == Verdict.REFUTED
    assert r.worst["distance"] > 1.0 and r.worst["n"] <= 2**12


@pytest.mark.parametrize("lower,refuted", [(2.0 ** 50, True), (0.0, False)])
def test_sum_of_squared_deviations_mean_rounding_bug(lower, refuted):
    """OpenDP 0.16's sized SSD (opendp issue 2923): at [2^50, 2^50 + 1] the float mean of
    1024 records flips by one ulp (0.25) when one record moves by an ulp, and every
    deviation moves with it: the outputs differ by about 1024 * 0.25^2 = 64, beyond OpenDP's
    own claim ``map(2)`` (about 40.6); in [0, 1] the release is float-sound and the same
    families stay within its claim (its real-number part (n - 1) / n is attained)."""
    dom = dp.vector_domain(dp.atom_domain(bounds=(lower, lower + 1.0), nan=False), size=1024)
    t = dp.t.make_sum_of_squared_deviations(dom, dp.symmetric_distance())
    f, r = audit_transformation(t)
    assert (f.verdict == Verdict.REFUTED) is refuted
    if refuted:
        assert r.worst["family"] == "ulp-step" and r.worst["distance"] > 60.0
        assert r.worst["distance"] > float(t.map(2)) > 40.0
    else:
        assert r.worst["distance"] == 1023 / 1024 <= float(t.map(2))


OLD = textwrap.dedent("""
    import json, numpy as np
    np.bool8 = np.bool_  # numpy 2 removed the alias these releases import
    from opendp.mod import enable_features
    from opendp.trans import make_bounded_sum
    from audit.extra.opendp import audit_transformation
    enable_features("contrib")
    f, r = audit_transformation(make_bounded_sum((0.0, 1.0)), lower=0.0, upper=1.0,
                                metric="SymmetricDistance", n_max=1024)
    print(json.dumps({"verdict": str(f.verdict), "worst": r.worst["family"],
                      "distance": r.worst["distance"], "claimed": r.worst["claimed"]}))
""")


@pytest.mark.slow
@pytest.mark.parametrize("version,flagged", [("0.4.0", True), ("0.5.0", False)])
def test_published_float_sum_bug_on_pinned_old_release(tmp_path_factory, version, flagged):
    """python -m pytest -m slow tests/extra/test_opendp_adapter.py (downloads two wheels)."""
    target = tmp_path_factory.mktemp(f"opendp{version}")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                          "--target", str(target), f"opendp=={version}"],
                         capture_output=True, text=True, timeout=600)
    if pip.returncode != 0:
        pytest.skip(f"cannot install opendp=={version}: {pip.stderr[-300:]}")
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-c", OLD], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert (res["verdict"] == "refuted") is flagged, res
    if flagged:  # found by the generated families, no hand-built pair
        assert res["distance"] > res["claimed"] == 1.0
