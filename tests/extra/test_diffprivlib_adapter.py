"""diffprivlib adapter (audit/extra/diffprivlib.py): diffprivlib's tools through the exact
sensitivity check, the claim being the sensitivity diffprivlib passes its own mechanism.

Truths: diffprivlib's own stated sensitivities (``tools.sum``: U - L; ``tools.mean``:
(U - L) / n, from its source, diffprivlib/tools/utils.py); exact rationals computed here from
numpy's own results for the witness pair (an independent recomputation of the distance);
an exact sum (Python ints) as the correct twin through the same capture.  Deterministic: no
false-alarm rates apply.  Needs the ``diffprivlib`` extra, else skipped with the reason.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from audit.findings import Verdict

tools = pytest.importorskip("diffprivlib.tools", reason="diffprivlib not installed (or not "
                            "importable with this scikit-learn): pip install "
                            "'dpaudit[diffprivlib]'")

from audit.extra.diffprivlib import audit_tool, captured_query, tool_mechanism  # noqa: E402


def test_capture_reads_diffprivlibs_own_value_and_sensitivity():
    q, s = captured_query(tools.sum, bounds=(0.0, 1.0))
    x = np.array([0.25, 0.5, 2.0])  # 2.0 is clipped to 1.0 by the tool
    assert q(x) == 1.75
    assert s(3) == 1.0 and s(10) == 1.0
    qm, sm = captured_query(tools.mean, bounds=(0.0, 1.0))
    assert qm(x) == pytest.approx(1.75 / 3)
    assert sm(4) == 0.25


def test_sum_refuted_by_rounding_and_the_witness_recomputed_exactly():
    f, r = audit_tool(tools.sum, lower=0.0, upper=1.0, n_max=64)
    assert f.verdict == Verdict.REFUTED
    p = r.witness_pair
    a, b = np.sum(np.clip(p.first, 0, 1)), np.sum(np.clip(p.second, 0, 1))
    assert abs(Fraction(float(a)) - Fraction(float(b))) > 1  # exceeds U - L exactly
    assert np.count_nonzero(p.first != p.second) == 1


def test_correct_twin_not_refuted():
    def exact_sum(array, epsilon=1.0, bounds=None, **_):
        lo, hi = bounds
        return sum(int(v) for v in np.clip(np.rint(array), lo, hi).tolist())

    from audit.privacy.neighbour_search import SearchSpace
    from audit.privacy.sensitivity_check import check_sensitivity

    res = check_sensitivity(lambda x: exact_sum(x, bounds=(0, 1)), 1.0,
                            SearchSpace(0.0, 1.0, n_max=64))
    assert not res.refuted and res.evaluated > 50


def test_tool_mechanism_seeds_within_randomstate_range():
    m = tool_mechanism(tools.sum, epsilon=1.0, bounds=(0.0, 1.0))
    big = 2**63 - 1  # dpaudit's seed range; RandomState accepts < 2^32 only
    y1, y2 = m(np.array([0.5, 0.5]), big), m(np.array([0.5, 0.5]), big)
    assert y1 == y2 and m.epsilon == 1.0 and m.relation == "replace-one"
