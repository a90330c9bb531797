"""The exact-loss neighbour search reaches worst cases planted where it must look (issue 39).

Truth: the closed form of :mod:`audit.privacy.search_reach` is itself checked against a brute
force over a grid of replacement / added values that contains every planted centre.  Then the
shipped search certifies all 24 planted cases (``dpaudit calibrate`` and ``dpaudit regress``
run this check), while searches narrowed the way the held-out maintainer edits narrowed it
(one side of the data only; no optimisation of the new value; the extreme records never
candidates) are refuted with a replayable counterexample.  The order-statistic truths are
checked against every replace-one / add-remove neighbour with new values on a fine grid.
"""

from __future__ import annotations

import numpy as np
import pytest

from audit.findings import Verdict
from audit.privacy import search_reach as SR
from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.neighbours import replace
from audit.protocols import REPLACE_ONE


@pytest.mark.parametrize("case", SR.planted_cases(), ids=lambda c: c.key)
def test_closed_form_truth_matches_brute_force(case: SR.PlantedCase) -> None:
    grid = np.round(np.linspace(0.0, 1.0, 100_001), 5)  # contains every planted centre
    wv = np.array([case.w(float(v)) for v in grid])
    ws = [case.w(x) for x in SR.DATA]
    if case.relation == REPLACE_ONE:
        brute = max(max(wv.max() - v, v - wv.min()) for v in ws)
    else:
        brute = max(wv.max(), max(ws))
    assert abs(brute - case.truth()) <= 1e-12, (case.key, brute, case.truth())


@pytest.mark.parametrize("case", SR.order_cases(), ids=lambda c: c.key)
def test_order_statistic_truth_matches_brute_force(case: SR.OrderCase) -> None:
    xs = np.sort(np.array(case.data))
    pick = np.min if case.stat == "min" else np.max
    f0 = float(pick(xs))
    values = np.linspace(0.0, 1.0, 201)  # contains 0 and 1 (where the truths are attained)
    if case.relation == REPLACE_ONE:
        brute = max(abs(float(pick(replace(xs, i, v))) - f0)
                    for i in range(xs.size) for v in values)
    else:
        brute = max([abs(float(pick(np.delete(xs, i))) - f0) for i in range(xs.size)]
                    + [abs(float(pick(np.append(xs, v))) - f0) for v in values])
    assert abs(brute - case.truth()) <= 1e-12, (case.key, brute, case.truth())


def test_the_shipped_search_reaches_every_planted_case() -> None:
    f = SR.check_search_reach()
    assert f.id == "engine.search-reach"
    assert f.verdict is Verdict.VERIFIED, f.evidence
    assert f.evidence["cases"] == 24
    assert f.evidence["missed"] == [] and f.evidence["twin_missed"] >= 4


def _right_of_the_data_only(mech, xs, *, lower, upper, **kw):  # noqa: ANN001, ANN202
    return worst_neighbour(mech, xs, lower=float(np.min(xs)), upper=upper, **kw)


def _no_optimisation(mech, xs, **kw):  # noqa: ANN001, ANN202
    kw["refine"] = 0
    return worst_neighbour(mech, xs, **kw)


def _extremes_never_candidates(mech, xs, **kw):  # noqa: ANN001, ANN202
    # the generator's candidates without the smallest and the largest record (as if
    # candidate_indices dropped its first and last order statistic)
    import audit.privacy.exact_loss as EL

    real = EL.candidate_indices

    def inner(x, m=64):  # noqa: ANN001, ANN202
        return [i for i in real(x, m) if 0 < i < len(x) - 1]

    EL.candidate_indices = inner
    try:
        return worst_neighbour(mech, xs, **kw)
    finally:
        EL.candidate_indices = real


@pytest.mark.parametrize("narrowed", [_right_of_the_data_only, _no_optimisation,
                                      pytest.param(_extremes_never_candidates,
                                                   marks=pytest.mark.slow)])
def test_a_narrowed_search_is_refuted(narrowed) -> None:  # noqa: ANN001
    f = SR.check_search_reach(narrowed)
    assert f.verdict is Verdict.REFUTED
    assert f.counterexample is not None and f.evidence["missed"]
    missed = f.evidence["missed"][0]
    assert missed["certified"] < missed["truth"] - SR.TOL
